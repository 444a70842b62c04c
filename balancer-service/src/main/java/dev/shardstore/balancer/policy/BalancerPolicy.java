package dev.shardstore.balancer.policy;

import dev.shardstore.contracts.balancer.BalancerSettings;
import dev.shardstore.contracts.balancer.ActiveWindow;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The balancer's policy as a pure function of a {@link ClusterSnapshot} (mongo/src/mongo/db/s/README.md "What happens during a balancer
 * round"). Per round: nothing while the balancer is off or outside its {@code activeWindow}; then per collection (skipping
 * {@code noBalance} ones) the deciders in the order of mongo/src/mongo/db/s/README.md "What happens during a balancer round": zone-boundary splits (a collection with splits moves
 * nothing else this round), draining shards, zone violations, imbalance within each zone by the configured
 * {@link LoadMeasure}; then the auto-merger ({@link AutoMergeDecider}) on the shards no migration takes. All collections share one {@link Round}, so a shard takes part in at most one migration per round.
 * Thread-safe (immutable).
 */
public final class BalancerPolicy {
    static final String MODE = "balancerMode";
    static final String COLLECTION = "collectionBalancing";
    /** MongoDB's default {@code minSnapshotHistoryWindowInSeconds}. */
    public static final Duration DEFAULT_SNAPSHOT_HISTORY_WINDOW = Duration.ofMinutes(5);

    private final Duration snapshotHistoryWindow;

    /** A policy whose auto-merger waits {@link #DEFAULT_SNAPSHOT_HISTORY_WINDOW}. */
    public BalancerPolicy() {
        this(DEFAULT_SNAPSHOT_HISTORY_WINDOW);
    }

    /** @param snapshotHistoryWindow how long chunks must be settled on their shard before the auto-merger joins them */
    public BalancerPolicy(Duration snapshotHistoryWindow) {
        if (snapshotHistoryWindow.isNegative()) {
            throw new IllegalArgumentException("snapshotHistoryWindow must not be negative, was " + snapshotHistoryWindow);
        }
        this.snapshotHistoryWindow = snapshotHistoryWindow;
    }

    /** The next round's decisions for {@code snapshot}. */
    public RoundPlan plan(ClusterSnapshot snapshot) {
        BalancerSettings settings = snapshot.settings();
        if (settings.mode() == BalancerSettings.Mode.OFF) {
            return new RoundPlan(List.of(Decision.no(MODE, "", "the balancer is off (balancerStart turns it on)")));
        }
        ActiveWindow window = settings.activeWindow();
        if (window != null && !window.contains(snapshot.localTime())) {
            return new RoundPlan(List.of(Decision.no(MODE, "", "outside the activeWindow " + ActiveWindow.format(window.start())
                    + "–" + ActiveWindow.format(window.stop()))));
        }
        Round round = Round.of(snapshot.shards());
        List<Decider> moves = moveDeciders(settings);
        Decider merger = new AutoMergeDecider(snapshot.now(), snapshotHistoryWindow);
        List<Decision> decisions = new ArrayList<>();
        for (CollectionState collection : snapshot.collections()) {
            if (collection.noBalance()) {
                decisions.add(Decision.no(COLLECTION, collection.namespace(), "balancing is disabled for the collection (noBalance)"));
                continue;
            }
            Distribution distribution = new Distribution(collection, snapshot.shards(), settings);
            List<Decision> splits = new ZoneBoundarySplitDecider().decide(distribution, round);
            decisions.addAll(splits);
            if (splits.stream().anyMatch(d -> d.verdict() == Verdict.YES)) {
                continue;
            }
            for (Decider decider : moves) {
                decisions.addAll(decider.decide(distribution, round));
            }
            decisions.addAll(merger.decide(distribution, round));
        }
        return new RoundPlan(decisions);
    }

    /**
     * {@code balancerCollectionStatus}'s {@code firstComplianceViolation} for {@code collection}, empty when compliant: the
     * first {@link Decider#violation} of the deciders, in priority order: a chunk on a draining shard ({@code draining}); a
     * chunk across a zone boundary or outside its zone's shards ({@code zoneViolation}); an imbalance the policy would move,
     * ignoring what other collections use this round ({@code chunksImbalance}).
     */
    public Optional<MigrationReason> firstComplianceViolation(CollectionState collection, List<ShardState> shards, BalancerSettings settings) {
        Distribution distribution = new Distribution(collection, shards, settings);
        LoadMeasure load = LoadMeasure.of(settings.policy());
        // the reference's priority order: draining, then zones (a chunk across a boundary, or outside its zone), imbalance
        for (Decider decider : List.of(new DrainingShardDecider(load), new ZoneBoundarySplitDecider(), new ZoneViolationDecider(load),
                new ImbalanceDecider(load))) {
            Optional<MigrationReason> violation = decider.violation(distribution);
            if (violation.isPresent()) {
                return violation;
            }
        }
        return Optional.empty();
    }

    private static List<Decider> moveDeciders(BalancerSettings settings) {
        LoadMeasure load = LoadMeasure.of(settings.policy());
        return List.of(new DrainingShardDecider(load), new ZoneViolationDecider(load), new ImbalanceDecider(load));
    }
}
