package dev.shardstore.balancer.policy;

import dev.shardstore.contracts.balancer.BalancerSettings;

import java.time.Instant;
import java.time.LocalTime;
import java.util.List;
import java.util.Objects;

/**
 * Everything a balancer round decides from, read once at its start; the policy is a pure function of it
 * (mongo/src/mongo/db/s/README.md "What happens during a balancer round": ClusterStatistics and one DistributionStatus per collection).
 *
 * @param shards      every {@code config.shards} entry (copied)
 * @param collections every sharded collection (copied)
 * @param settings    the cluster's balancer settings
 * @param localTime   the balancer's local time when the snapshot was read (for {@code activeWindow})
 * @param now         the instant the snapshot was read (for the auto-merger's history window)
 */
public record ClusterSnapshot(List<ShardState> shards, List<CollectionState> collections, BalancerSettings settings,
        LocalTime localTime, Instant now) {
    public ClusterSnapshot {
        shards = List.copyOf(Objects.requireNonNull(shards, "shards"));
        collections = List.copyOf(Objects.requireNonNull(collections, "collections"));
        Objects.requireNonNull(settings, "settings");
        Objects.requireNonNull(localTime, "localTime");
        Objects.requireNonNull(now, "now");
    }
}
