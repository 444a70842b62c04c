package dev.shardstore.shard.versioning;

import dev.shardstore.contracts.sharding.RoutingTable;
import dev.shardstore.contracts.version.ChunkVersion;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What this shard knows about one collection's sharding, from the config service (MongoDB's
 * CollectionMetadata): unsharded, or sharded with its routing table, which is also the shard's filtering
 * metadata (which shard key ranges this shard owns).
 *
 * @param routingTable the routing table; null when the collection is unsharded (or does not exist)
 */
public record CollectionFilteringInfo(@Nullable RoutingTable routingTable) {
    /** The collection is not sharded. */
    public static final CollectionFilteringInfo UNSHARDED = new CollectionFilteringInfo(null);

    public boolean sharded() {
        return routingTable != null;
    }

    /** The routing table, empty when unsharded. */
    public Optional<RoutingTable> table() {
        return Optional.ofNullable(routingTable);
    }

    /** {@code shard}'s version of the collection: {@link ChunkVersion#UNSHARDED} when unsharded. */
    public ChunkVersion shardVersion(String shard) {
        return RoutingTable.versionOf(routingTable, shard);
    }
}
