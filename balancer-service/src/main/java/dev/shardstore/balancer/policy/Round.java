package dev.shardstore.balancer.policy;

import java.util.Collection;
import java.util.HashSet;
import java.util.Set;

/**
 * The shards still free in the round being planned: a shard takes part in at most one migration per round (mongo/src/mongo/db/s/README.md
 * "What happens during a balancer round"), so choosing a donor and a recipient takes both. Not thread-safe: one per plan.
 */
final class Round {
    private final Set<String> available;

    Round(Collection<String> shardIds) {
        this.available = new HashSet<>(shardIds);
    }

    /** A round in which every one of {@code shards} is free. */
    static Round of(java.util.List<ShardState> shards) {
        return new Round(shards.stream().map(ShardState::id).toList());
    }

    boolean available(String shard) {
        return available.contains(shard);
    }

    void take(String donor, String recipient) {
        available.remove(donor);
        available.remove(recipient);
    }
}
