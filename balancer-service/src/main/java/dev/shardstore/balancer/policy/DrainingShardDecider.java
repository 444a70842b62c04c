package dev.shardstore.balancer.policy;

import dev.shardstore.contracts.sharding.Chunk;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Second step: each draining shard (removeShard) gives one chunk per round to the least loaded shard that may hold the
 * chunk's zone (mongo/src/mongo/db/s/README.md "What happens during a balancer round", priority 1). The whole chunk moves under the chunk-count
 * policy; under the data-size policy only its {@code min} is sent and the config service cuts at half the chunk size. Jumbo chunks are
 * skipped (a draining shard holding only jumbo chunks cannot finish without {@code clearJumboFlag}).
 */
record DrainingShardDecider(LoadMeasure load) implements Decider {
    static final String NAME = "draining";
    @Override
    public String name() {
        return NAME;
    }

    @Override
    public List<Decision> decide(Distribution distribution, Round round) {
        String ns = distribution.namespace();
        List<Decision> decisions = new ArrayList<>();
        for (ShardState shard : distribution.shards()) {
            if (!drains(distribution, shard)) {
                continue;
            }
            List<Chunk> chunks = distribution.chunksOn(shard.id());
            if (!round.available(shard.id())) {
                decisions.add(Decision.throttle(NAME, ns, "draining shard " + shard.id() + " already takes part in a migration this round"));
                continue;
            }
            decisions.add(drainOne(distribution, round, shard, chunks));
        }
        if (decisions.isEmpty()) {
            decisions.add(Decision.no(NAME, ns, "no draining shard owns chunks of the collection"));
        }
        return decisions;
    }

    /** A draining shard still owning chunks of the collection: the ones it must give away (jumbo ones included). */
    @Override
    public Optional<MigrationReason> violation(Distribution distribution) {
        return distribution.shards().stream().anyMatch(shard -> drains(distribution, shard))
                ? Optional.of(MigrationReason.DRAINING) : Optional.empty();
    }

    private static boolean drains(Distribution distribution, ShardState shard) {
        return shard.draining() && !distribution.chunksOn(shard.id()).isEmpty();
    }

    private Decision drainOne(Distribution distribution, Round round, ShardState shard, List<Chunk> chunks) {
        String ns = distribution.namespace();
        boolean onlyJumbo = true;
        for (Chunk chunk : chunks) {
            String zone = distribution.zoneOf(chunk);
            if (chunk.jumbo() || zone == null) {
                continue;
            }
            onlyJumbo = false;
            Optional<ShardState> to = distribution.leastLoadedRecipient(zone, shard.id(), round, load);
            if (to.isEmpty()) {
                continue;
            }
            round.take(shard.id(), to.get().id());
            return Decision.yes(NAME, new BalancerAction.Migration(ns, chunk.range(), shard.id(), to.get().id(), MigrationReason.DRAINING,
                    load.wholeChunk(), distribution.settings().attemptToBalanceJumboChunks()),
                    "shard " + shard.id() + " is draining; " + to.get().id() + " is the least loaded eligible recipient");
        }
        return onlyJumbo
                ? Decision.no(NAME, ns, "draining shard " + shard.id() + " holds only jumbo chunks (clearJumboFlag to move them)")
                : Decision.throttle(NAME, ns, "no shard free this round may receive the chunks of draining shard " + shard.id());
    }
}
