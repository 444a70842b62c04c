package dev.shardstore.router.write;

import dev.shardstore.contracts.bson.Collation;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.sharding.RoutingTable;
import dev.shardstore.contracts.timeseries.TimeseriesOptions;
import dev.shardstore.engine.timeseries.BucketPredicates;
import dev.shardstore.router.routing.CollectionRouting;
import dev.shardstore.router.routing.ShardKeyTargeter;
import java.util.List;
import java.util.Optional;
import org.bson.BsonDocument;

/**
 * Where a query-driven write (an update or delete statement) goes, by MongoDB's rules (mongos'
 * {@code ChunkManagerTargeter}, 7.1 and later):
 *
 * <ul>
 *   <li>unsharded: the primary shard;</li>
 *   <li>under a non-simple {@code collation}, a query comparing strings on the shard key is routed as if it narrowed
 *       nothing ({@link ShardKeyTargeter#routable}): chunk ranges and hashes are of binary values; a string {@code _id}
 *       equality then takes no shortcut below ({@link ShardKeyTargeter#hasIdEquality});</li>
 *   <li>equality on every shard key field (the hashed field for a hashed key): the one shard owning that key;</li>
 *   <li>a multi-document write: the shards owning chunks the query's shard-key bounds intersect
 *       ({@link ShardKeyTargeter}; every shard owning chunks when the query does not bound the key);</li>
 *   <li>a single-document write (not an upsert) with an {@code _id} equality: every shard owning chunks — {@code _id}
 *       is unique per shard only, so if two shards hold the same {@code _id} (possible when the shard key is not
 *       {@code _id}) each may write one, as in MongoDB;</li>
 *   <li>any other single-document write, and an upsert without the shard key: {@link WriteWithoutShardKey}'s read
 *       then write;</li>
 *   <li>on a sharded time-series collection the rules above apply to the statement's bucket-level predicate
 *       ({@link BucketPredicates}: meta field → {@code meta}, time field → {@code control.min/max};
 *       mongo/src/mongo/db/s/README_timeseries.md "CRUD operations"), which is {@code {}} (every shard owning chunks) when it narrows
 *       nothing; the {@code _id} equality shortcut does not apply (a measurement's {@code _id} is not unique on a
 *       shard), so a single-measurement write without the meta pinned goes through {@link WriteWithoutShardKey}.
 *       {@code findAndModify} there is refused ({@link #requireNotTimeseries}).</li>
 * </ul>
 */
public final class QueryTargeting {
    private QueryTargeting() {}

    /**
     * The target of a write statement with {@code query} compared under {@code collation}: a query comparing strings
     * on the shard key (or, for the {@code _id} shortcut, on {@code _id}) under a non-simple collation pins nothing
     * ({@link ShardKeyTargeter#routable}), so it goes to every shard owning chunks (multi) or through
     * {@link WriteWithoutShardKey} (single-document), as mongos.
     */
    public static BatchedWrite.Target target(CollectionRouting routing, BsonDocument query, Collation collation, boolean multi, boolean upsert) {
        RoutingTable table = routing.table();
        if (table == null) {
            return BatchedWrite.Target.to(List.of(routing.database().primary()));
        }
        TimeseriesOptions timeseries = table.collection().timeseriesFields();
        BsonDocument routable = ShardKeyTargeter.routable(table, query, collation);
        // a time-series filter is on measurements, the shard key on their buckets: route by the bucket-level predicate
        BsonDocument routingQuery = timeseries == null ? routable : BucketPredicates.of(timeseries, routable);
        Optional<String> owner = owner(table, routingQuery);
        if (owner.isPresent()) {
            return BatchedWrite.Target.to(List.of(owner.get()));
        }
        if (multi && !upsert) {
            return BatchedWrite.Target.to(ShardKeyTargeter.shards(table, routingQuery));
        }
        if (multi) {
            throw new CommandException(ErrorCode.ShardKeyNotFound, "Failed to target upsert by query :: could not extract exact shard key"
                    + " from " + query.toJson() + ", shard key pattern: " + table.shardKey().pattern().toJson()
                    + " (a multi: true upsert needs the full shard key in its filter)");
        }
        // a measurement's _id is not unique even on one shard: a time-series write goes the read-then-write way
        if (!upsert && timeseries == null && ShardKeyTargeter.hasIdEquality(query, collation)) {
            return BatchedWrite.Target.to(table.shards());
        }
        return BatchedWrite.Target.withoutShardKey();
    }

    /**
     * Refuses a {@code findAndModify} on a sharded time-series collection, which the shards do not serve (only
     * {@code update} and {@code delete} unpack and repack buckets).
     *
     * @throws CommandException NotImplemented (238) naming the write and the collection
     */
    public static void requireNotTimeseries(CollectionRouting routing, String kind) {
        RoutingTable table = routing.table();
        if (table != null && table.collection().isTimeseries()) {
            throw new CommandException(ErrorCode.NotImplemented, kind + " on the sharded time-series collection " + routing.namespace()
                    + " is not implemented");
        }
    }

    /** The shard owning the key {@code query} pins with equalities on every shard key field, if it does. */
    public static Optional<String> owner(RoutingTable table, BsonDocument query) {
        return table.shardKey().extractShardKeyFromQuery(query).map(key -> table.findChunk(table.shardKey().encode(key)).shard());
    }
}
