package dev.shardstore.router.routing;

import dev.shardstore.support.catalog.DatabaseEntry;
import dev.shardstore.contracts.sharding.RoutingTable;
import dev.shardstore.contracts.version.ChunkVersion;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What the router knows about one namespace for one attempt of a statement (MongoDB's
 * {@code CollectionRoutingInfo}): the database's placement and, when the collection is sharded, its routing
 * table. Immutable; a retry after a stale reply gets a new one.
 *
 * @param namespace {@code db.coll}
 * @param database  the database's primary shard and version
 * @param table     the routing table, or null when the router believes the collection unsharded
 */
public record CollectionRouting(String namespace, DatabaseEntry database, @Nullable RoutingTable table) {
    public CollectionRouting {
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(database, "database");
    }

    public boolean isSharded() {
        return table != null;
    }

    /** The collection name (the namespace without {@code db.}). */
    public String collection() {
        return namespace.substring(database.name().length() + 1);
    }

    /** Sharded: the shards owning at least one chunk, sorted; unsharded: the primary shard. */
    public List<String> allShards() {
        return table != null ? table.shards() : List.of(database.primary());
    }

    /**
     * The version to attach for {@code shard}: its shard version (0|0 of the epoch for a shard owning no chunk)
     * when sharded, {@link ChunkVersion#UNSHARDED} otherwise.
     */
    public ChunkVersion shardVersion(String shard) {
        return RoutingTable.versionOf(table, shard);
    }
}
