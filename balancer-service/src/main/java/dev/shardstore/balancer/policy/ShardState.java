package dev.shardstore.balancer.policy;

import java.util.Objects;
import java.util.Set;

/**
 * One {@code config.shards} entry as the balancer sees it (mongo/src/mongo/db/s/README.md "Auto-balancing", ClusterStatistics).
 *
 * @param id       the shard id ({@code shard1})
 * @param draining whether {@code removeShard} started draining it: it gives chunks away and takes none
 * @param zones    the zones ({@code config.shards.tags}) the shard belongs to (copied)
 */
public record ShardState(String id, boolean draining, Set<String> zones) {
    public ShardState {
        if (Objects.requireNonNull(id, "id").isEmpty()) {
            throw new IllegalArgumentException("shard id must not be empty");
        }
        zones = Set.copyOf(Objects.requireNonNull(zones, "zones"));
    }

    /** An active shard in no zone. */
    public static ShardState active(String id) {
        return new ShardState(id, false, Set.of());
    }

    /** Whether chunks of {@code zone} may live here; {@link ZoneRange#NO_ZONE} fits every shard. */
    public boolean accepts(String zone) {
        return ZoneRange.NO_ZONE.equals(zone) || zones.contains(zone);
    }
}
