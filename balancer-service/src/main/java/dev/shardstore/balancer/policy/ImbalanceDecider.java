package dev.shardstore.balancer.policy;

import dev.shardstore.contracts.sharding.Chunk;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Last step: within each zone (and among the chunks in no zone), repeatedly pair the most loaded free shard with the least
 * loaded free one and move a chunk between them while the {@link LoadMeasure} says they are imbalanced (mongo/src/mongo/db/s/README.md "What
 * happens during a balancer round", priority 3). Each pair takes its two shards, so disjoint pairs migrate in parallel:
 * about n/2 migrations per round on n shards. The donor's first non-jumbo chunk of the zone moves.
 */
record ImbalanceDecider(LoadMeasure load) implements Decider {
    static final String NAME = "chunksImbalance";
    @Override
    public String name() {
        return NAME;
    }

    @Override
    public List<Decision> decide(Distribution distribution, Round round) {
        List<Decision> decisions = new ArrayList<>();
        for (String zone : distribution.zonesPlusNoZone()) {
            List<Decision> zoneDecisions = new ArrayList<>();
            Optional<Decision> next;
            while ((next = nextMove(distribution, zone, round)).isPresent()) {
                zoneDecisions.add(next.get());
                if (next.get().verdict() != Verdict.YES) {
                    break;
                }
            }
            if (zoneDecisions.isEmpty() && nextMove(distribution, zone, Round.of(distribution.shards())).isPresent()) {
                zoneDecisions.add(Decision.throttle(NAME, distribution.namespace(), "zone " + describe(zone)
                        + " is imbalanced but its shards already take part in migrations this round"));
            }
            decisions.addAll(zoneDecisions);
        }
        if (decisions.isEmpty()) {
            decisions.add(Decision.no(NAME, distribution.namespace(), "balanced by " + distribution.settings().policy().value()
                    + " in every zone"));
        }
        return decisions;
    }

    /**
     * An imbalance this decider would move with every shard free (what other collections use this round does not count):
     * a yes of {@link #decide} on a fresh round.
     */
    @Override
    public Optional<MigrationReason> violation(Distribution distribution) {
        return decide(distribution, Round.of(distribution.shards())).stream().anyMatch(d -> d.verdict() == Verdict.YES)
                ? Optional.of(MigrationReason.CHUNKS_IMBALANCE) : Optional.empty();
    }

    /** The next migration for {@code zone}, a no when only jumbo chunks could move, or empty when balanced or no pair is free. */
    private Optional<Decision> nextMove(Distribution distribution, String zone, Round round) {
        List<ShardState> zoneShards = distribution.shards().stream()
                .filter(s -> !s.draining() && s.accepts(zone) && (!load.needsDataSize() || distribution.dataSize(s.id()).isPresent()))
                .toList();
        if (zoneShards.isEmpty()) {
            return Optional.empty();
        }
        long ideal = load.ideal(distribution, zone, zoneShards);
        Optional<ShardState> donor = zoneShards.stream()
                .filter(s -> round.available(s.id()) && distribution.chunksInZone(s.id(), zone) > 0)
                .max(Comparator.<ShardState>comparingLong(s -> load.of(distribution, s.id(), zone))
                        .thenComparing(ShardState::id, Comparator.reverseOrder()));
        if (donor.isEmpty()) {
            return Optional.empty();
        }
        String from = donor.get().id();
        Optional<ShardState> recipient = distribution.leastLoadedRecipient(zone, from, round, load);
        if (recipient.isEmpty()) {
            return Optional.empty();
        }
        String to = recipient.get().id();
        String why = load.imbalance(distribution, zone, load.of(distribution, from, zone), load.of(distribution, to, zone), ideal);
        if (why == null) {
            return Optional.empty();
        }
        Optional<Chunk> chunk = distribution.chunksOn(from).stream().filter(c -> !c.jumbo() && zone.equals(distribution.zoneOf(c))).findFirst();
        if (chunk.isEmpty()) {
            return Optional.of(Decision.no(NAME, distribution.namespace(), "shard " + from + " holds only jumbo chunks in zone "
                    + describe(zone) + " (clearJumboFlag to move them)"));
        }
        round.take(from, to);
        return Optional.of(Decision.yes(NAME, new BalancerAction.Migration(distribution.namespace(), chunk.get().range(), from, to,
                MigrationReason.CHUNKS_IMBALANCE, load.wholeChunk(), distribution.settings().attemptToBalanceJumboChunks()),
                "zone " + describe(zone) + ": " + from + " → " + to + ": " + why));
    }

    private static String describe(String zone) {
        return ZoneRange.NO_ZONE.equals(zone) ? "(none)" : "'" + zone + "'";
    }
}
