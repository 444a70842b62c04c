package dev.shardstore.config.catalog;

import dev.shardstore.contracts.version.VersionRules;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.sharding.Chunk;
import dev.shardstore.contracts.sharding.ChunkRange;
import dev.shardstore.contracts.sharding.ShardKeyPattern;
import dev.shardstore.contracts.version.ChunkVersion;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeMap;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonMinKey;
import org.bson.BsonTimestamp;
import org.bson.types.ObjectId;

/**
 * The initial chunks of {@code shardCollection} (docs/sharding-protocol.md, MongoDB's {@code InitialSplitPolicy}):
 * an empty collection with a hashed prefix gets {@code numInitialChunks} chunks (default 2 per shard) evenly over the
 * signed 64-bit hash space, assigned round-robin over the shards sorted by id; otherwise one chunk more than the
 * split keys the primary shard chose, all on the primary. Chunks cover the whole key space and carry
 * {@code 1|0, 1|1, …} in key order ({@link VersionRules#shardCollection}).
 */
public final class InitialChunks {
    /** MongoDB's limits on {@code numInitialChunks}: 8192 per shard and a million in all. */
    public static final long MAX_PER_SHARD = 8192;
    public static final long MAX_TOTAL = 1_000_000;

    private InitialChunks() {}

    /**
     * Checks {@code numInitialChunks} (0 = the default) before anything is asked of a shard.
     *
     * @throws CommandException InvalidOptions naming {@code numInitialChunks} when it is given for a key without a
     *                          hashed prefix, or exceeds 8192 per shard or a million
     */
    public static void checkRequested(ShardKeyPattern key, long numInitialChunks, int shardCount) {
        if (numInitialChunks == 0) {
            return;
        }
        if (!key.isHashedPrefix()) {
            throw onlyForEmptyHashed();
        }
        long limit = Math.min(MAX_PER_SHARD * shardCount, MAX_TOTAL);
        if (numInitialChunks > limit) {
            throw new CommandException(ErrorCode.InvalidOptions, "numInitialChunks cannot be more than either 8192 * number of shards ("
                    + MAX_PER_SHARD * shardCount + ") or " + MAX_TOTAL + ", was " + numInitialChunks);
        }
    }

    /**
     * The initial chunks.
     *
     * @param numInitialChunks the requested count, 0 for the default (see {@link #checkRequested})
     * @param shards           the registered shard ids (any order; at least one)
     * @param primary          the database's primary shard
     * @param empty            whether the primary reported the collection empty
     * @param splitKeys        the split keys the primary chose (pattern shape), ignored for an empty hashed-prefix key
     * @throws CommandException InvalidOptions naming {@code numInitialChunks} when given for a non-empty collection;
     *                          BadValue when a split key does not match the pattern
     */
    public static List<Chunk> compute(ShardKeyPattern key, long numInitialChunks, List<String> shards, String primary, boolean empty,
            List<BsonDocument> splitKeys, ObjectId epoch, BsonTimestamp timestamp) {
        checkRequested(key, numInitialChunks, shards.size());
        List<BsonDocument> points;
        List<String> owners = new ArrayList<>();
        if (key.isHashedPrefix() && empty) {
            long count = numInitialChunks == 0 ? 2L * shards.size() : numInitialChunks;
            points = hashedSplitPoints(key, (int) count);
            List<String> sorted = shards.stream().sorted().toList();
            for (int i = 0; i <= points.size(); i++) {
                owners.add(sorted.get(i % sorted.size()));
            }
        } else {
            if (numInitialChunks != 0) {
                throw onlyForEmptyHashed();
            }
            points = sortedDistinct(key, splitKeys);
            for (int i = 0; i <= points.size(); i++) {
                owners.add(primary);
            }
        }
        List<BsonDocument> bounds = new ArrayList<>(points.size() + 2);
        bounds.add(key.globalMin());
        bounds.addAll(points);
        bounds.add(key.globalMax());
        List<ChunkVersion> versions = VersionRules.shardCollection(bounds.size() - 1, epoch, timestamp);
        List<Chunk> chunks = new ArrayList<>(versions.size());
        for (int i = 0; i < versions.size(); i++) {
            chunks.add(new Chunk(new ChunkRange(bounds.get(i), bounds.get(i + 1)), owners.get(i), versions.get(i)));
        }
        return chunks;
    }

    /**
     * MongoDB's {@code calculateHashedSplitPoints}: {@code count - 1} split points dividing the signed int64 hash space
     * into intervals of {@code (Long.MAX_VALUE / count) * 2}, symmetric around 0 (0 itself is a split point when
     * {@code count} is even); the fields after the hashed prefix are MinKey.
     */
    static List<BsonDocument> hashedSplitPoints(ShardKeyPattern key, int count) {
        List<Long> values = new ArrayList<>();
        long interval = (Long.MAX_VALUE / count) * 2;
        long current = 0;
        if (count % 2 == 0) {
            values.add(current);
            current += interval;
        } else {
            current += interval / 2;
        }
        for (int i = 0; i < (count - 1) / 2; i++) {
            values.add(current);
            values.add(-current);
            current += interval;
        }
        values.sort(null);
        List<String> fields = key.fields();
        return values.stream().map(v -> {
            BsonDocument point = new BsonDocument(fields.getFirst(), new BsonInt64(v));
            fields.subList(1, fields.size()).forEach(f -> point.append(f, new BsonMinKey()));
            return point;
        }).toList();
    }

    /** The split keys in key order without duplicates or global bounds; each must match the pattern. */
    private static List<BsonDocument> sortedDistinct(ShardKeyPattern key, List<BsonDocument> splitKeys) {
        byte[] low = key.encode(key.globalMin());
        byte[] high = key.encode(key.globalMax());
        TreeMap<byte[], BsonDocument> sorted = new TreeMap<>(Arrays::compareUnsigned);
        for (BsonDocument k : splitKeys) {
            byte[] encoded = key.encode(k);
            if (Arrays.compareUnsigned(encoded, low) > 0 && Arrays.compareUnsigned(encoded, high) < 0) {
                sorted.put(encoded, k);
            }
        }
        return List.copyOf(sorted.values());
    }

    private static CommandException onlyForEmptyHashed() {
        return new CommandException(ErrorCode.InvalidOptions,
                "numInitialChunks is only supported when the collection is empty and the shard key has a hashed prefix");
    }
}
