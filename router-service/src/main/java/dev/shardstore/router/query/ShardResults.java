package dev.shardstore.router.query;

import dev.shardstore.contracts.bson.BsonOrder;
import dev.shardstore.contracts.bson.Collation;
import dev.shardstore.contracts.error.ErrorReplies;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonValue;

/**
 * Combines the replies of several shards to one statement into the reply mongos gives: counts, distinct values,
 * and the first error. The shards' requests are built for these rules (see {@link #shardCount}).
 */
public final class ShardResults {
    private ShardResults() {}

    /**
     * The first error reply among {@code replies} (in their order) rethrown as the client's error.
     *
     * @throws dev.shardstore.contracts.error.CommandException the first shard error
     */
    public static void throwFirstError(Collection<BsonDocument> replies) {
        for (BsonDocument reply : replies) {
            if (ErrorReplies.isError(reply)) {
                throw ErrorReplies.toException(reply);
            }
        }
    }

    /**
     * The {@code count} command each of several shards runs: {@code skip} removed and {@code limit} raised to
     * {@code skip + limit} (a shard cannot know how many of its documents the skip drops); the router then applies
     * skip and limit to the sum ({@link #count}).
     *
     * @param skip  the client's skip (≥ 0)
     * @param limit the client's limit (≥ 0, 0 for none)
     */
    public static BsonDocument shardCount(BsonDocument command, long skip, long limit) {
        BsonDocument forShard = command.clone();
        forShard.remove("skip");
        forShard.remove("limit");
        if (limit > 0) {
            forShard.put("limit", new BsonInt64(skip > Long.MAX_VALUE - limit ? Long.MAX_VALUE : skip + limit));
        }
        return forShard;
    }

    /**
     * mongos's count over shards' {@code {n}} replies to {@link #shardCount}: {@code max(0, min(sum - skip,
     * limit))} (without a limit, {@code max(0, sum - skip)}), as {@code {n, ok: 1}} with {@code n} an int when it
     * fits.
     */
    public static BsonDocument count(Collection<BsonDocument> replies, long skip, long limit) {
        throwFirstError(replies);
        long sum = 0;
        for (BsonDocument reply : replies) {
            sum += reply.getNumber("n").longValue();
        }
        long n = Math.max(0, sum - skip);
        if (limit > 0) {
            n = Math.min(n, limit);
        }
        return new BsonDocument("n", n <= Integer.MAX_VALUE ? new BsonInt32((int) n) : new BsonInt64(n)).append("ok", new BsonInt32(1));
    }

    /**
     * The union of shards' {@code distinct} replies ({@code {values: [...]}}): values equal in BSON order
     * ({@code 1}, {@code 1.0}) count once, the one from the first shard (in reply order) kept; listed in BSON
     * order, as the engine's distinct lists one shard's values. Under a non-simple {@code collation} (the command's),
     * values equal under it count once (MongoDB: "a" and "A" are one value at strength 2).
     */
    public static BsonDocument distinct(Map<String, BsonDocument> replies, Collation collation) {
        throwFirstError(replies.values());
        TreeSet<BsonValue> values = new TreeSet<>((a, b) -> BsonOrder.compare(a, b, collation));
        for (BsonDocument reply : replies.values()) {
            values.addAll(reply.getArray("values").getValues());
        }
        return new BsonDocument("values", new BsonArray(List.copyOf(values))).append("ok", new BsonInt32(1));
    }
}
