package dev.shardstore.shard.command;

import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.contracts.sharding.ShardKeyPattern;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import dev.shardstore.shard.versioning.CollectionAccess;
import org.springframework.stereotype.Component;

/**
 * MongoDB's {@code splitVector: "db.coll"} (run on the collection's database) with {@code keyPattern}, {@code min?}
 * and {@code max?} (bounds in pattern shape, hashed components as NumberLong; default the whole key space) and
 * either {@code maxChunkSizeBytes} or {@code force: true} → {@code {splitKeys: [...], ok: 1}}: the split points of
 * the range's documents in shard key order, found by walking the index that supports the key pattern
 * ({@link ShardKeyIndex}), as MongoDB does — with {@code force}, the median key (none with fewer than two distinct
 * keys), else points cutting chunks of about {@code maxChunkSizeBytes}, each document counted as the collection's
 * average document size ({@link SplitPoints}).
 *
 * <p>Errors: InvalidNamespace (73) for a malformed namespace; NamespaceNotFound (26) for a missing collection;
 * InvalidOptions (72) when neither {@code maxChunkSizeBytes} nor {@code force} is given; BadValue for a malformed
 * key pattern or bounds not in its shape; without a usable index, ShardKeyNotFound (61) for a document whose key
 * holds an array, else IndexNotFound (27) (MongoDB: "couldn't find index over splitting key").
 */
@Component
public class SplitVectorCommand extends ShardCommand {
    private final SplitVector splitVector;

    public SplitVectorCommand(CommandInvoker invoker, SplitVector splitVector) {
        super(invoker);
        this.splitVector = splitVector;
    }

    @Override
    public String name() {
        return "splitVector";
    }

    @Override
    protected CollectionAccess access() {
        return CollectionAccess.READ;
    }

    /** Its first field is a whole namespace {@code db.coll}, not a collection of the database it runs on. */
    @Override
    protected Namespace namespace(String db, BsonDocument command) {
        return Namespace.parse(new CommandArgs(command).requiredString(name()));
    }

    @Override
    protected BsonDocument execute(OperationContext opCtx, String db, BsonDocument command) {
        CommandArgs args = new CommandArgs(command);
        Namespace ns = Namespace.parse(args.requiredString(name()));
        ShardKeyPattern key = ShardKeyPattern.of(args.document(args.required(command, "keyPattern", "keyPattern"), "keyPattern"));
        byte[] low = key.encode(command.containsKey("min") ? args.document(command.get("min"), "min") : key.globalMin());
        byte[] high = key.encode(command.containsKey("max") ? args.document(command.get("max"), "max") : key.globalMax());
        boolean force = args.optionalBoolean(command, "force", "force", false);
        if (!force && !command.containsKey("maxChunkSizeBytes")) {
            throw new CommandException(ErrorCode.InvalidOptions,
                    "splitVector needs the desired chunk size ('maxChunkSizeBytes') or 'force: true'");
        }
        long maxChunkSizeBytes = ShardsvrPrepareShardCollectionCommand.maxChunkSizeBytes(args, command);
        SplitVector.KeyRange range = splitVector.range(ns, key, low, high);
        List<BsonDocument> splitKeys = force ? range.median() : range.bySize(range.averageObjectSize(), maxChunkSizeBytes);
        return Replies.ok(new BsonDocument("splitKeys", new BsonArray(splitKeys)));
    }
}
