package dev.shardstore.balancer.policy;

import static dev.shardstore.balancer.policy.Snapshots.MB;
import static dev.shardstore.balancer.policy.Snapshots.NOW;
import static dev.shardstore.balancer.policy.Snapshots.NS;
import static dev.shardstore.balancer.policy.Snapshots.chunks;
import static dev.shardstore.balancer.policy.Snapshots.jumbo;
import static dev.shardstore.balancer.policy.Snapshots.key;
import static dev.shardstore.balancer.policy.Snapshots.range;
import static dev.shardstore.balancer.policy.Snapshots.shards;
import static dev.shardstore.balancer.policy.Snapshots.sizes;
import static dev.shardstore.balancer.policy.Snapshots.snapshot;
import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.balancer.policy.BalancerAction.Merge;
import dev.shardstore.contracts.balancer.BalancerSettings;
import dev.shardstore.contracts.sharding.Chunk;
import dev.shardstore.contracts.sharding.ChunkRange;
import dev.shardstore.contracts.sharding.ShardKeyPattern;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.junit.jupiter.api.Test;

/** The auto-merger step of the policy over snapshots (MongoDB 7.0's automerge: settled, contiguous, same shard, same zone). */
class AutoMergeTest {
    private static final Duration WINDOW = Duration.ofMinutes(5);
    private static final Instant SETTLED = NOW.minus(Duration.ofHours(1));
    private static final Instant FRESH = NOW.minus(Duration.ofMinutes(1));
    private static final ShardKeyPattern KEY = ShardKeyPattern.of(new BsonDocument("x", new BsonInt32(1)));

    private final BalancerPolicy policy = new BalancerPolicy(WINDOW);

    /** The collection with every chunk on its shard since {@code since}, except those in {@code fresh}. */
    private static CollectionState collection(List<Chunk> chunks, Map<String, Long> sizes, List<ZoneRange> zones, boolean autoMerger,
            ChunkRange... fresh) {
        Map<ChunkRange, Instant> since = new HashMap<>();
        chunks.forEach(c -> since.put(c.range(), SETTLED));
        for (ChunkRange range : fresh) {
            since.put(range, FRESH);
        }
        return new CollectionState(NS, chunks, sizes, 128 * MB, false, zones, KEY, autoMerger, since);
    }

    private static CollectionState collection(List<Chunk> chunks, ChunkRange... fresh) {
        return collection(chunks, sizes("a", MB, "b", MB), List.of(), true, fresh);
    }

    private List<Merge> merges(CollectionState collection) {
        return policy.plan(snapshot(shards("a", "b"), BalancerSettings.DEFAULTS, collection)).merges();
    }

    @Test
    void settledContiguousChunksOnOneShardAreMergedPerShard() {
        List<Merge> merges = merges(collection(chunks("a", "a", "a", "b", "b")));
        assertThat(merges).hasSize(2);
        assertThat(merges.get(0).shard()).isEqualTo("a");
        assertThat(merges.get(0).chunks()).containsExactly(range(Integer.MIN_VALUE, 10), range(10, 20), range(20, 30));
        assertThat(merges.get(0).keyPattern()).isEqualTo(KEY);
        assertThat(merges.get(0).maxChunkSizeBytes()).isEqualTo(128 * MB);
        assertThat(merges.get(1).shard()).isEqualTo("b");
        assertThat(merges.get(1).range()).isEqualTo(range(30, Integer.MAX_VALUE));
    }

    @Test
    void aChunkOnItsShardForLessThanTheWindowBreaksTheRun() {
        // [20, 30) moved to a a minute ago: only [MinKey, 20) merges; [30, 40) stands alone
        List<Merge> merges = merges(collection(chunks("a", "a", "a", "a", "b"), range(20, 30)));
        assertThat(merges).singleElement().satisfies(m -> assertThat(m.range()).isEqualTo(range(Integer.MIN_VALUE, 20)));
    }

    @Test
    void jumboChunksAndZoneBoundariesBreakRuns() {
        List<Chunk> chunks = new ArrayList<>(chunks("a", "a", "a", "a", "a", "a"));
        chunks.set(2, jumbo(chunks.get(2)));
        ZoneRange zone = new ZoneRange("Z", range(40, Integer.MAX_VALUE));
        CollectionState collection = collection(chunks, sizes("a", MB, "b", MB), List.of(zone), true);
        ShardState both = Snapshots.inZones("a", "Z");
        List<Merge> merges = policy.plan(snapshot(List.of(both, Snapshots.inZones("b", "Z")), BalancerSettings.DEFAULTS, collection)).merges();
        assertThat(merges).extracting(Merge::range)
                .containsExactly(range(Integer.MIN_VALUE, 20), range(40, Integer.MAX_VALUE));
    }

    @Test
    void theSettingsTurnItOff() {
        List<Chunk> chunks = chunks("a", "a");
        BalancerSettings off = new BalancerSettings(BalancerSettings.Mode.FULL, null, false, 128 * MB, BalancerSettings.Policy.DATA_SIZE,
                false, false);
        RoundPlan globallyOff = policy.plan(snapshot(shards("a", "b"), off, collection(chunks)));
        assertThat(globallyOff.merges()).isEmpty();
        assertThat(globallyOff.decisions()).anySatisfy(d -> assertThat(d.reason()).contains("automerge"));

        RoundPlan collectionOff = policy.plan(snapshot(shards("a", "b"), BalancerSettings.DEFAULTS,
                collection(chunks, sizes("a", MB, "b", MB), List.of(), false)));
        assertThat(collectionOff.merges()).isEmpty();
        assertThat(collectionOff.decisions()).anySatisfy(d -> assertThat(d.reason()).contains("enableAutoMerger"));

        RoundPlan chunkCount = policy.plan(snapshot(shards("a", "b"), Snapshots.chunkCount(), collection(chunks("a", "a", "b", "b"))));
        assertThat(chunkCount.merges()).isEmpty();
    }

    @Test
    void aShardMigratingThisRoundMergesLater() {
        // a holds far more than b: a → b migrates, so neither merges this round
        CollectionState busy = collection(chunks("a", "a", "a", "a", "b", "b"), sizes("a", 900 * MB, "b", 0L), List.of(), true);
        RoundPlan plan = policy.plan(snapshot(shards("a", "b"), BalancerSettings.DEFAULTS, busy));
        assertThat(plan.migrations()).hasSize(1);
        assertThat(plan.merges()).isEmpty();
        assertThat(plan.decisions()).anySatisfy(d -> {
            assertThat(d.decider()).isEqualTo(AutoMergeDecider.NAME);
            assertThat(d.verdict()).isEqualTo(Verdict.THROTTLE);
        });
    }

    @Test
    void groupsStayBetweenTheSplitVectorPoints() {
        Merge merge = merges(collection(chunks("a", "a", "a", "a", "a", "a", "b"))).getFirst();
        assertThat(merge.chunks()).hasSize(6);
        // no split point: the whole run fits in one chunk
        assertThat(merge.groupsWithin(List.of())).containsExactly(range(Integer.MIN_VALUE, 60));
        // points at 25 (inside [20, 30)) and 40 (a chunk bound): no group may hold a point strictly inside it, so [20, 30)
        // and [30, 40) stay apart; [MinKey, 20) and [40, 60) merge
        assertThat(merge.groupsWithin(List.of(key(25), key(40))))
                .containsExactly(range(Integer.MIN_VALUE, 20), range(40, 60));
        // a point in every chunk: nothing to merge
        assertThat(merge.groupsWithin(List.of(key(5), key(15), key(25), key(35), key(45), key(55)))).isEmpty();
    }
}
