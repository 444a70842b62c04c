package dev.shardstore.balancer.policy;

import dev.shardstore.contracts.balancer.BalancerSettings;
import dev.shardstore.contracts.sharding.Chunk;
import dev.shardstore.contracts.sharding.ChunkRange;
import dev.shardstore.contracts.sharding.ShardKeyPattern;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Last step, MongoDB 7.0's auto-merger: on each shard free this round, every run of two or more contiguous chunks of the
 * collection that have all been on that shard, unchanged, for longer than the snapshot history window (their
 * {@code onCurrentShardSince} is older than {@code now - window}, MongoDB's {@code minSnapshotHistoryWindowInSeconds}:
 * a merge drops the chunks' placement history, which reads at an older cluster time would need), none jumbo and all in
 * the same zone, becomes a {@link BalancerAction.Merge}; the round merges only as much of each run as stays under the
 * maximum chunk size. Needs {@code automerge.enabled} and the collection's {@code enableAutoMerger}; runs under the
 * data-size policy only (under chunk count a merge changes the very measure balanced, and moves would follow merges).
 * A shard that takes part in a migration this round is left for a later round (its chunks may be the ones moving).
 */
record AutoMergeDecider(Instant now, Duration window) implements Decider {
    static final String NAME = "autoMerge";

    AutoMergeDecider {
        Objects.requireNonNull(now, "now");
        Objects.requireNonNull(window, "window");
    }

    @Override
    public String name() {
        return NAME;
    }

    /** Chunks the auto-merger would join break no placement rule: a collection complies whatever it merges. */
    @Override
    public Optional<MigrationReason> violation(Distribution distribution) {
        return Optional.empty();
    }

    @Override
    public List<Decision> decide(Distribution distribution, Round round) {
        String ns = distribution.namespace();
        CollectionState collection = distribution.collection();
        if (!distribution.settings().autoMerge()) {
            return List.of(Decision.no(NAME, ns, "the auto-merger is off (config.settings automerge)"));
        }
        if (!collection.enableAutoMerger()) {
            return List.of(Decision.no(NAME, ns, "the auto-merger is off for the collection (enableAutoMerger: false)"));
        }
        if (distribution.settings().policy() != BalancerSettings.Policy.DATA_SIZE) {
            return List.of(Decision.no(NAME, ns, "the auto-merger runs under the dataSize policy only"));
        }
        ShardKeyPattern key = collection.key();
        if (key == null || collection.chunks().isEmpty()) {
            return List.of(Decision.no(NAME, ns, "no shard key pattern or chunks known"));
        }
        Instant settledBefore = now.minus(window);
        List<Decision> decisions = new ArrayList<>();
        List<Chunk> run = new ArrayList<>();
        for (Chunk chunk : collection.chunks()) {
            if (!run.isEmpty() && !(continues(distribution, run.getLast(), chunk) && mergeable(collection, chunk, settledBefore))) {
                decide(distribution, key, round, run, decisions);
                run.clear();
            }
            if (mergeable(collection, chunk, settledBefore)) {
                run.add(chunk);
            }
        }
        decide(distribution, key, round, run, decisions);
        if (decisions.isEmpty()) {
            decisions.add(Decision.no(NAME, ns, "no two contiguous chunks on one shard have been settled for " + window.toSeconds() + " s"));
        }
        return decisions;
    }

    private void decide(Distribution distribution, ShardKeyPattern key, Round round, List<Chunk> run, List<Decision> decisions) {
        if (run.size() < 2) {
            return;
        }
        String shard = run.getFirst().shard();
        String ns = distribution.namespace();
        if (!round.available(shard)) {
            decisions.add(Decision.throttle(NAME, ns, "shard " + shard + " takes part in a migration this round; its " + run.size()
                    + " mergeable chunks wait"));
            return;
        }
        CollectionState collection = distribution.collection();
        Chunk first = run.getFirst();
        List<ChunkRange> ranges = run.stream().map(Chunk::range).toList();
        decisions.add(Decision.yes(NAME, new BalancerAction.Merge(ns, shard, key, ranges, collection.maxChunkSizeBytes(),
                first.lastmod().epoch(), first.lastmod().timestamp()), run.size() + " contiguous chunks on " + shard
                + " settled for over " + window.toSeconds() + " s"));
    }

    /** Whether {@code next} extends the run ending with {@code last}: same shard, adjacent, same zone. */
    private static boolean continues(Distribution distribution, Chunk last, Chunk next) {
        String zone = distribution.zoneOf(last);
        return last.shard().equals(next.shard()) && last.range().max().equals(next.range().min()) && zone != null
                && zone.equals(distribution.zoneOf(next));
    }

    private static boolean mergeable(CollectionState collection, Chunk chunk, Instant settledBefore) {
        Instant since = collection.onCurrentShardSince().get(chunk.range());
        return !chunk.jumbo() && since != null && since.isBefore(settledBefore);
    }
}
