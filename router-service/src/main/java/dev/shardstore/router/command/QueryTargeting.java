package dev.shardstore.router.command;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.sharding.RoutingTable;
import dev.shardstore.router.routing.CollectionRouting;
import dev.shardstore.router.routing.ShardKeyEqualities;
import dev.shardstore.router.routing.ShardKeyTargeter;
import java.util.List;
import java.util.Optional;
import org.bson.BsonDocument;

/**
 * Where a query-driven write (an update or delete statement, findAndModify) goes, by MongoDB's rules
 * (mongos' {@code ChunkManagerTargeter}):
 *
 * <ul>
 *   <li>unsharded: the primary shard;</li>
 *   <li>equality on every shard key field (the hashed field for a hashed key): the one shard owning that key;</li>
 *   <li>an upsert without that: refused, the shard to insert into is unknown;</li>
 *   <li>a multi-document write: the shards owning chunks the query's shard-key bounds intersect
 *       ({@link ShardKeyTargeter}; every shard owning chunks when the query does not bound the key);</li>
 *   <li>a single-document write with an {@code _id} equality: every shard owning chunks — {@code _id} is unique
 *       per shard only, so if two shards hold the same {@code _id} (possible when the shard key is not
 *       {@code _id}) each may write one, as in MongoDB before 7.0;</li>
 *   <li>any other single-document write: refused;</li>
 *   <li>on a sharded time-series collection: refused (NotImplemented) for now.</li>
 * </ul>
 */
final class QueryTargeting {
    private QueryTargeting() {}

    /**
     * The shards for a write with {@code query}.
     *
     * @param kind        "update" or "delete", for MongoDB's error wording
     * @param description the statement, quoted in errors
     * @throws CommandException ShardKeyNotFound (61) with MongoDB's message when the write cannot be targeted
     */
    static List<String> shards(CollectionRouting routing, BsonDocument query, boolean multi, boolean upsert, String kind, BsonDocument description) {
        if (!routing.isSharded()) {
            return List.of(routing.database().primary());
        }
        requireNotTimeseries(routing, kind);
        RoutingTable table = routing.table();
        Optional<String> owner = owner(table, query);
        if (owner.isPresent()) {
            return owner.map(List::of).orElseThrow();
        }
        if (upsert) {
            throw new CommandException(ErrorCode.ShardKeyNotFound, "Failed to target upsert by query :: could not extract exact shard key"
                    + " from " + query.toJson() + ", shard key pattern: " + table.shardKey().pattern().toJson());
        }
        if (multi) {
            return ShardKeyTargeter.shards(table, query);
        }
        if (ShardKeyEqualities.hasIdEquality(query)) {
            return table.shards();
        }
        throw new CommandException(ErrorCode.ShardKeyNotFound, "A single " + kind + " on a sharded collection must contain an exact match"
                + " on _id (and have the collection default collation) or contain the shard key (and have the simple collation). "
                + Character.toUpperCase(kind.charAt(0)) + kind.substring(1) + " request: " + description.toJson()
                + ", shard key pattern: " + table.shardKey().pattern().toJson());
    }

    /**
     * Refuses a query-driven write on a sharded time-series collection, which the shards do not serve yet (updates
     * and deletes that unpack and repack buckets; issue 13).
     *
     * @throws CommandException NotImplemented (238) naming the write and the collection
     */
    static void requireNotTimeseries(CollectionRouting routing, String kind) {
        if (routing.isSharded() && routing.table().collection().isTimeseries()) {
            throw new CommandException(ErrorCode.NotImplemented, kind + " on the sharded time-series collection " + routing.namespace()
                    + " is not implemented");
        }
    }

    /** The shard owning the key {@code query} pins with equalities on every shard key field, if it does. */
    static Optional<String> owner(RoutingTable table, BsonDocument query) {
        return ShardKeyEqualities.shardKey(table.shardKey(), query).map(key -> table.findChunk(table.shardKey().encode(key)).shard());
    }
}
