package dev.shardstore.balancer.policy;

import dev.shardstore.contracts.sharding.Chunk;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Third step: a chunk on a shard outside the chunk's zone moves to the least loaded shard of that zone, one per shard per
 * round (mongo/src/mongo/db/s/README.md "What happens during a balancer round", priority 2). Jumbo chunks are skipped.
 */
record ZoneViolationDecider(LoadMeasure load) implements Decider {
    static final String NAME = "zoneViolation";
    @Override
    public String name() {
        return NAME;
    }

    @Override
    public List<Decision> decide(Distribution distribution, Round round) {
        String ns = distribution.namespace();
        List<Decision> decisions = new ArrayList<>();
        for (ShardState shard : distribution.shards()) {
            for (Chunk chunk : distribution.chunksOn(shard.id())) {
                if (!misplaced(distribution, shard, chunk) || chunk.jumbo()) {
                    continue;
                }
                String zone = Objects.requireNonNull(distribution.zoneOf(chunk), "a misplaced chunk lies in a zone");
                if (!round.available(shard.id())) {
                    decisions.add(Decision.throttle(NAME, ns, "shard " + shard.id() + " holds chunks of zone '" + zone
                            + "' but already takes part in a migration this round"));
                    break;
                }
                Optional<ShardState> to = distribution.leastLoadedRecipient(zone, shard.id(), round, load);
                if (to.isEmpty()) {
                    decisions.add(Decision.throttle(NAME, ns, "chunk " + chunk.range() + " violates zone '" + zone
                            + "' but no shard of the zone is free this round"));
                    continue;
                }
                round.take(shard.id(), to.get().id());
                decisions.add(Decision.yes(NAME, new BalancerAction.Migration(ns, chunk.range(), shard.id(), to.get().id(),
                        MigrationReason.ZONE_VIOLATION, load.wholeChunk(), distribution.settings().attemptToBalanceJumboChunks()),
                        "chunk " + chunk.range() + " belongs to zone '" + zone + "', which shard " + shard.id() + " is not in"));
                break;
            }
        }
        if (decisions.isEmpty()) {
            decisions.add(Decision.no(NAME, ns, "every chunk is on a shard of its zone"));
        }
        return decisions;
    }

    /** A chunk on a shard outside its zone (jumbo ones included: they violate the zone even if no round moves them). */
    @Override
    public Optional<MigrationReason> violation(Distribution distribution) {
        for (ShardState shard : distribution.shards()) {
            for (Chunk chunk : distribution.chunksOn(shard.id())) {
                if (misplaced(distribution, shard, chunk)) {
                    return Optional.of(MigrationReason.ZONE_VIOLATION);
                }
            }
        }
        return Optional.empty();
    }

    /** Whether {@code chunk}, on {@code shard}, lies in one zone that {@code shard} is not in. */
    private static boolean misplaced(Distribution distribution, ShardState shard, Chunk chunk) {
        String zone = distribution.zoneOf(chunk);
        return zone != null && !shard.accepts(zone);
    }
}
