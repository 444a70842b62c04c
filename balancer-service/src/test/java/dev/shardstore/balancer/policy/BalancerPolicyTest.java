package dev.shardstore.balancer.policy;

import dev.shardstore.contracts.balancer.BalancerSettings;
import dev.shardstore.contracts.balancer.ActiveWindow;

import static dev.shardstore.balancer.policy.Snapshots.MB;
import static dev.shardstore.balancer.policy.Snapshots.NS;
import static dev.shardstore.balancer.policy.Snapshots.chunkCount;
import static dev.shardstore.balancer.policy.Snapshots.chunks;
import static dev.shardstore.balancer.policy.Snapshots.collection;
import static dev.shardstore.balancer.policy.Snapshots.draining;
import static dev.shardstore.balancer.policy.Snapshots.inZones;
import static dev.shardstore.balancer.policy.Snapshots.jumbo;
import static dev.shardstore.balancer.policy.Snapshots.key;
import static dev.shardstore.balancer.policy.Snapshots.range;
import static dev.shardstore.balancer.policy.Snapshots.shards;
import static dev.shardstore.balancer.policy.Snapshots.sizes;
import static dev.shardstore.balancer.policy.Snapshots.snapshot;
import static dev.shardstore.balancer.policy.Snapshots.spread;
import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.balancer.policy.BalancerAction.Migration;
import dev.shardstore.contracts.sharding.Chunk;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** The balancer policy over snapshots (mongo/src/mongo/db/s/README.md "What happens during a balancer round", "Jumbo Chunks"). */
class BalancerPolicyTest {
    private final BalancerPolicy policy = new BalancerPolicy();

    private static String moved(Migration m) {
        return m.from() + "->" + m.to() + " " + m.chunk() + " " + m.reason().value();
    }

    @Nested
    class ChunkCountPolicy {
        @Test
        void thresholdsAreTheReferences() {
            assertThat(LoadMeasure.ChunkCount.threshold(1)).isEqualTo(2);
            assertThat(LoadMeasure.ChunkCount.threshold(19)).isEqualTo(2);
            assertThat(LoadMeasure.ChunkCount.threshold(20)).isEqualTo(4);
            assertThat(LoadMeasure.ChunkCount.threshold(79)).isEqualTo(4);
            assertThat(LoadMeasure.ChunkCount.threshold(80)).isEqualTo(8);
        }

        @Test
        void twentyChunksMoveAtAFourChunkDifferenceNotBelow() {
            RoundPlan moves = policy.plan(snapshot(shards("a", "b"), chunkCount(), collection(spread("a", 12, "b", 8))));
            assertThat(moves.migrations()).singleElement().satisfies(m -> {
                assertThat(m.from()).isEqualTo("a");
                assertThat(m.to()).isEqualTo("b");
                assertThat(m.reason()).isEqualTo(MigrationReason.CHUNKS_IMBALANCE);
                assertThat(m.wholeChunk()).isTrue();
                assertThat(m.chunk()).isEqualTo(range(Integer.MIN_VALUE, 10));
            });

            RoundPlan none = policy.plan(snapshot(shards("a", "b"), chunkCount(), collection(spread("a", 11, "b", 9))));
            assertThat(none.migrations()).isEmpty();
            assertThat(none.decisions()).anySatisfy(d -> {
                assertThat(d.decider()).isEqualTo(ImbalanceDecider.NAME);
                assertThat(d.verdict()).isEqualTo(Verdict.NO);
                assertThat(d.reason()).contains("balanced by chunkCount");
            });
        }

        @Test
        void smallCollectionMovesAtTwoChunksDifference() {
            assertThat(policy.plan(snapshot(shards("a", "b"), chunkCount(), collection(spread("a", 3)))).migrations()).hasSize(1);
            assertThat(policy.plan(snapshot(shards("a", "b"), chunkCount(), collection(spread("a", 2, "b", 1)))).migrations()).isEmpty();
        }
    }

    @Nested
    class DataSizePolicy {
        private final BalancerSettings dataSize = BalancerSettings.DEFAULTS;

        @Test
        void balancedWhileTheDifferenceIsUnderThreeChunkSizes() {
            List<Chunk> chunks = chunks("a", "a", "a", "b");
            CollectionState under = collection(NS, chunks, sizes("a", 30 * MB - 1, "b", 0), 10 * MB, List.of());
            assertThat(policy.plan(snapshot(shards("a", "b"), dataSize, under)).migrations()).isEmpty();

            CollectionState at = collection(NS, chunks, sizes("a", 30 * MB, "b", 0), 10 * MB, List.of());
            assertThat(policy.plan(snapshot(shards("a", "b"), dataSize, at)).migrations()).singleElement().satisfies(m -> {
                assertThat(m.from()).isEqualTo("a");
                assertThat(m.to()).isEqualTo("b");
                // MongoDB 6+: only min is sent, the donor cuts the range at half the maximum chunk size
                assertThat(m.wholeChunk()).isFalse();
                assertThat(m.toBson().containsKey("max")).isFalse();
            });
        }

        @Test
        void drainingMovesSendOnlyMinSoThatTheConfigServiceCutsAMovableRange() {
            // the draining shard's chunk is far bigger than a chunk: moved whole, the donor would refuse it (ChunkTooBig)
            CollectionState collection = collection(NS, chunks("a", "b"), sizes("a", 500 * MB, "b", 0), 10 * MB, List.of());
            assertThat(policy.plan(snapshot(List.of(draining("a"), ShardState.active("b")), dataSize, collection)).migrations())
                    .singleElement().satisfies(m -> {
                        assertThat(m.reason()).isEqualTo(MigrationReason.DRAINING);
                        assertThat(m.wholeChunk()).isFalse();
                    });
        }

        @Test
        void aShardThatDidNotReportItsSizeTakesNoPart() {
            CollectionState collection = collection(NS, chunks("a", "a", "a"), sizes("a", 300 * MB), 10 * MB, List.of());
            assertThat(policy.plan(snapshot(shards("a", "b"), dataSize, collection)).migrations()).isEmpty();
        }

        @Test
        void chunkCountsDoNotMatterOnlyBytes() {
            // b holds more chunks, but a holds the bytes
            CollectionState collection = collection(NS, spread("a", 1, "b", 5), sizes("a", 100 * MB, "b", 5 * MB), 10 * MB, List.of());
            assertThat(policy.plan(snapshot(shards("a", "b"), dataSize, collection)).migrations())
                    .singleElement().satisfies(m -> assertThat(m.from()).isEqualTo("a"));
        }
    }

    @Test
    void disjointPairsMigrateInTheSameRound() {
        RoundPlan plan = policy.plan(snapshot(shards("a", "b", "c", "d"), chunkCount(), collection(spread("a", 6, "b", 6))));
        assertThat(plan.migrations()).extracting(BalancerPolicyTest::moved).hasSize(2);
        Set<String> involved = new HashSet<>();
        plan.migrations().forEach(m -> {
            assertThat(involved.add(m.from())).as("each shard in at most one migration").isTrue();
            assertThat(involved.add(m.to())).as("each shard in at most one migration").isTrue();
        });
        assertThat(involved).containsExactlyInAnyOrder("a", "b", "c", "d");
    }

    /**
     * Over many layouts (2 to 9 shards, some draining; 1 to 4 collections with chunks spread at random, some on the
     * chunk-count policy's threshold), a round never gives one shard two migrations, and no donor is its own recipient.
     */
    @Test
    void parallelMigrationsNeverPickTheSameShardTwiceInARound() {
        java.util.SplittableRandom random = new java.util.SplittableRandom(37);
        int rounds = 0;
        int parallel = 0;
        for (int layout = 0; layout < 500; layout++) {
            int shardCount = 2 + random.nextInt(8);
            List<ShardState> shards = new ArrayList<>();
            for (int i = 0; i < shardCount; i++) {
                String id = "s" + i;
                shards.add(i > 0 && random.nextInt(6) == 0 ? draining(id) : ShardState.active(id));
            }
            List<CollectionState> collections = new ArrayList<>();
            for (int c = random.nextInt(4); c >= 0; c--) {
                List<Object> spread = new ArrayList<>();
                for (ShardState shard : shards) {
                    spread.add(shard.id());
                    spread.add(random.nextInt(random.nextBoolean() ? 3 : 12));
                }
                List<Chunk> chunks = spread(spread.toArray());
                if (!chunks.isEmpty()) {
                    collections.add(collection("test.c" + c, chunks, Snapshots.sizesByChunkCount(chunks, MB), 128 * MB, List.of()));
                }
            }
            RoundPlan plan = policy.plan(snapshot(shards, chunkCount(), collections.toArray(CollectionState[]::new)));
            Set<String> involved = new HashSet<>();
            for (Migration m : plan.migrations()) {
                assertThat(involved.add(m.from())).as("layout %d: %s is a donor once, in no other migration", layout, m.from()).isTrue();
                assertThat(involved.add(m.to())).as("layout %d: %s is a recipient once, in no other migration", layout, m.to()).isTrue();
                assertThat(m.from()).isNotEqualTo(m.to());
            }
            rounds++;
            parallel += plan.migrations().size() > 1 ? 1 : 0;
        }
        assertThat(rounds).isEqualTo(500);
        assertThat(parallel).as("rounds that ran several migrations at once").isGreaterThan(100);
    }

    @Test
    void everyDisjointPairOfSixShardsMigratesInOneRound() {
        RoundPlan plan = policy.plan(snapshot(shards("a", "b", "c", "d", "e", "f"), chunkCount(),
                collection(spread("a", 8, "b", 8, "c", 8))));
        assertThat(plan.migrations()).hasSize(3);
        assertThat(plan.migrations()).extracting(Migration::from).containsExactlyInAnyOrder("a", "b", "c");
        assertThat(plan.migrations()).extracting(Migration::to).containsExactlyInAnyOrder("d", "e", "f");
    }

    @Test
    void aShardTakesPartInOneMigrationPerRoundAcrossCollections() {
        CollectionState first = collection(NS, spread("a", 4), sizes(), 128 * MB, List.of());
        CollectionState second = collection("test.other", spread("a", 4), sizes(), 128 * MB, List.of());
        RoundPlan plan = policy.plan(snapshot(shards("a", "b"), chunkCount(), first, second));
        assertThat(plan.migrations()).singleElement().satisfies(m -> assertThat(m.namespace()).isEqualTo(NS));
        assertThat(plan.decisions()).anySatisfy(d -> {
            assertThat(d.namespace()).isEqualTo("test.other");
            assertThat(d.verdict()).isEqualTo(Verdict.THROTTLE);
        });
    }

    @Test
    void drainingComesFirstAndTakesItsShards() {
        List<ShardState> shards = List.of(draining("a"), ShardState.active("b"), ShardState.active("c"));
        RoundPlan plan = policy.plan(snapshot(shards, chunkCount(), collection(spread("a", 1, "b", 5))));
        assertThat(plan.migrations()).extracting(BalancerPolicyTest::moved)
                .containsExactly("a->c " + range(Integer.MIN_VALUE, 10) + " draining");
        // b -> c would fix the imbalance, but c is taken by the draining move this round
        assertThat(plan.decisions()).anySatisfy(d -> {
            assertThat(d.decider()).isEqualTo(ImbalanceDecider.NAME);
            assertThat(d.verdict()).isEqualTo(Verdict.THROTTLE);
        });
    }

    @Test
    void drainingNeverPicksADrainingRecipient() {
        List<ShardState> shards = List.of(draining("a"), draining("b"), ShardState.active("c"));
        RoundPlan plan = policy.plan(snapshot(shards, chunkCount(), collection(spread("a", 1, "b", 1))));
        assertThat(plan.migrations()).extracting(BalancerPolicyTest::moved)
                .containsExactly("a->c " + range(Integer.MIN_VALUE, 10) + " draining");
        assertThat(plan.decisions()).anySatisfy(d -> {
            assertThat(d.decider()).isEqualTo(DrainingShardDecider.NAME);
            assertThat(d.verdict()).isEqualTo(Verdict.THROTTLE);
            assertThat(d.reason()).contains("b");
        });
    }

    @Test
    void zoneViolationsMoveToTheZonesShards() {
        List<ShardState> shards = List.of(inZones("a", "EU"), ShardState.active("b"), ShardState.active("c"));
        ZoneRange eu = new ZoneRange("EU", range(Integer.MIN_VALUE, 10));
        CollectionState collection = collection(NS, chunks("b", "b", "c"), sizes(), 128 * MB, List.of(eu));
        RoundPlan plan = policy.plan(snapshot(shards, chunkCount(), collection));
        assertThat(plan.migrations()).extracting(BalancerPolicyTest::moved)
                .containsExactly("b->a " + range(Integer.MIN_VALUE, 10) + " zoneViolation");
    }

    @Test
    void zoneChunksBalanceOnlyAmongTheZonesShards() {
        List<ShardState> shards = List.of(inZones("a", "EU"), inZones("b", "EU"), ShardState.active("c"));
        ZoneRange eu = new ZoneRange("EU", range(Integer.MIN_VALUE, 40));
        // four EU chunks on a; c is emptier but not in EU
        CollectionState collection = collection(NS, spread("a", 4, "c", 1), sizes(), 128 * MB, List.of(eu));
        RoundPlan plan = policy.plan(snapshot(shards, chunkCount(), collection));
        assertThat(plan.migrations()).singleElement().satisfies(m -> {
            assertThat(m.from()).isEqualTo("a");
            assertThat(m.to()).isEqualTo("b");
        });
    }

    @Test
    void zoneBoundarySplitsComeBeforeAnyMove() {
        ZoneRange eu = new ZoneRange("EU", range(5, 15));
        List<ShardState> shards = List.of(inZones("a", "EU"), ShardState.active("b"));
        CollectionState collection = collection(NS, spread("b", 2), sizes(), 128 * MB, List.of(eu));
        RoundPlan plan = policy.plan(snapshot(shards, chunkCount(), collection));
        assertThat(plan.migrations()).isEmpty();
        assertThat(plan.splits()).extracting(s -> s.chunk() + " at " + s.splitPoints())
                .containsExactly(range(Integer.MIN_VALUE, 10) + " at " + List.of(key(5)), range(10, Integer.MAX_VALUE) + " at " + List.of(key(15)));
        assertThat(plan.decisions().getFirst().decider()).isEqualTo(ZoneBoundarySplitDecider.NAME);

        // once split, the EU chunks [5, 10) and [10, 15) move to a
        List<Chunk> split = new ArrayList<>(List.of(
                chunkOn("b", range(Integer.MIN_VALUE, 5)), chunkOn("b", range(5, 10)), chunkOn("b", range(10, 15)),
                chunkOn("b", range(15, Integer.MAX_VALUE))));
        RoundPlan next = policy.plan(snapshot(shards, chunkCount(), collection(NS, split, sizes(), 128 * MB, List.of(eu))));
        assertThat(next.splits()).isEmpty();
        assertThat(next.migrations()).extracting(BalancerPolicyTest::moved).containsExactly("b->a " + range(5, 10) + " zoneViolation");
    }

    private static Chunk chunkOn(String shard, dev.shardstore.contracts.sharding.ChunkRange range) {
        Chunk template = chunks(shard).getFirst();
        return new Chunk(range, shard, template.lastmod());
    }

    @Test
    void jumboChunksAreSkipped() {
        List<Chunk> chunks = new ArrayList<>(spread("a", 4));
        chunks.set(0, jumbo(chunks.get(0)));
        chunks.set(1, jumbo(chunks.get(1)));
        assertThat(policy.plan(snapshot(shards("a", "b"), chunkCount(), collection(chunks))).migrations())
                .singleElement().satisfies(m -> assertThat(m.chunk()).isEqualTo(range(20, 30)));

        List<Chunk> allJumbo = spread("a", 3).stream().map(Snapshots::jumbo).toList();
        RoundPlan plan = policy.plan(snapshot(shards("a", "b"), chunkCount(), collection(allJumbo)));
        assertThat(plan.migrations()).isEmpty();
        assertThat(plan.decisions()).anySatisfy(d -> assertThat(d.reason()).contains("only jumbo chunks"));

        RoundPlan drainingJumbo = policy.plan(snapshot(List.of(draining("a"), ShardState.active("b")), chunkCount(), collection(allJumbo)));
        assertThat(drainingJumbo.migrations()).isEmpty();
        assertThat(drainingJumbo.decisions()).anySatisfy(d -> {
            assertThat(d.decider()).isEqualTo(DrainingShardDecider.NAME);
            assertThat(d.reason()).contains("only jumbo chunks");
        });
    }

    @Test
    void attemptToBalanceJumboChunksForcesTheMove() {
        BalancerSettings force = new BalancerSettings(BalancerSettings.Mode.FULL, null, true, 128 * MB, BalancerSettings.Policy.CHUNK_COUNT, true, false);
        assertThat(policy.plan(snapshot(shards("a", "b"), force, collection(spread("a", 3)))).migrations())
                .singleElement().satisfies(m -> assertThat(m.forceJumbo()).isTrue());
    }

    @Test
    void offModeAndActiveWindowStopTheRound() {
        CollectionState imbalanced = collection(spread("a", 4));
        BalancerSettings off = new BalancerSettings(BalancerSettings.Mode.OFF, null, false, 128 * MB, BalancerSettings.Policy.CHUNK_COUNT, true, false);
        assertThat(policy.plan(snapshot(shards("a", "b"), off, imbalanced)).decisions()).singleElement()
                .satisfies(d -> assertThat(d.reason()).contains("off"));

        BalancerSettings night = new BalancerSettings(BalancerSettings.Mode.FULL, ActiveWindow.parse("1:00", "02:00"), false, 128 * MB,
                BalancerSettings.Policy.CHUNK_COUNT, true, false);
        assertThat(policy.plan(snapshot(shards("a", "b"), night, imbalanced)).decisions()).singleElement()
                .satisfies(d -> assertThat(d.reason()).contains("activeWindow 01:00–02:00"));

        BalancerSettings wrapping = new BalancerSettings(BalancerSettings.Mode.FULL, ActiveWindow.parse("23:00", "13:00"), false, 128 * MB,
                BalancerSettings.Policy.CHUNK_COUNT, true, false);
        assertThat(policy.plan(snapshot(shards("a", "b"), wrapping, imbalanced)).migrations()).hasSize(1);
        assertThat(wrapping.activeWindow().contains(LocalTime.of(13, 0))).isFalse();
        assertThat(wrapping.activeWindow().contains(LocalTime.of(23, 0))).isTrue();
    }

    @Test
    void noBalanceCollectionsAreLeftAlone() {
        CollectionState disabled = new CollectionState(NS, spread("a", 4), Map.of(), 128 * MB, true, List.of());
        RoundPlan plan = policy.plan(snapshot(shards("a", "b"), chunkCount(), disabled));
        assertThat(plan.migrations()).isEmpty();
        assertThat(plan.decisions()).singleElement().satisfies(d -> assertThat(d.decider()).isEqualTo(BalancerPolicy.COLLECTION));
    }

    @Test
    void complianceNamesTheFirstViolationInTheReferencesOrder() {
        ZoneRange eu = new ZoneRange("EU", range(Integer.MIN_VALUE, 10));
        CollectionState zoned = collection(NS, spread("b", 4), sizes(), 128 * MB, List.of(eu));
        List<ShardState> drainingA = List.of(new ShardState("a", true, Set.of("EU")), ShardState.active("b"));
        CollectionState onA = collection(NS, spread("a", 1, "b", 3), sizes(), 128 * MB, List.of(eu));
        assertThat(policy.firstComplianceViolation(onA, drainingA, chunkCount())).contains(MigrationReason.DRAINING);
        assertThat(policy.firstComplianceViolation(zoned, List.of(inZones("a", "EU"), ShardState.active("b")), chunkCount()))
                .contains(MigrationReason.ZONE_VIOLATION);
        assertThat(policy.firstComplianceViolation(collection(spread("a", 4)), shards("a", "b"), chunkCount()))
                .contains(MigrationReason.CHUNKS_IMBALANCE);
        assertThat(policy.firstComplianceViolation(collection(spread("a", 2, "b", 2)), shards("a", "b"), chunkCount())).isEmpty();
    }

    /**
     * The compliance check asks the deciders' own rules, so it also names what no round acts on now: a draining shard
     * holding only jumbo chunks, a jumbo chunk outside its zone, a chunk across a zone boundary.
     */
    @Test
    void complianceNamesViolationsNoRoundActsOnNow() {
        List<Chunk> allJumbo = spread("a", 3).stream().map(Snapshots::jumbo).toList();
        assertThat(policy.firstComplianceViolation(collection(allJumbo), List.of(draining("a"), ShardState.active("b")), chunkCount()))
                .contains(MigrationReason.DRAINING);

        ZoneRange eu = new ZoneRange("EU", range(Integer.MIN_VALUE, 10));
        List<Chunk> jumboFirst = new ArrayList<>(spread("a", 2, "b", 2));
        jumboFirst.set(0, jumbo(new Chunk(jumboFirst.get(0).range(), "b", jumboFirst.get(0).lastmod())));
        List<ShardState> aInEu = List.of(inZones("a", "EU"), ShardState.active("b"));
        CollectionState misplacedJumbo = collection(NS, jumboFirst, sizes(), 128 * MB, List.of(eu));
        assertThat(policy.plan(snapshot(aInEu, chunkCount(), misplacedJumbo)).migrations()).as("the jumbo chunk stays").isEmpty();
        assertThat(policy.firstComplianceViolation(misplacedJumbo, aInEu, chunkCount())).contains(MigrationReason.ZONE_VIOLATION);

        ZoneRange across = new ZoneRange("EU", range(Integer.MIN_VALUE, 5));
        List<ShardState> bothInEu = List.of(inZones("a", "EU"), inZones("b", "EU"));
        assertThat(policy.firstComplianceViolation(collection(NS, spread("a", 2, "b", 2), sizes(), 128 * MB, List.of(across)), bothInEu,
                chunkCount())).contains(MigrationReason.ZONE_VIOLATION);
        assertThat(policy.firstComplianceViolation(collection(NS, spread("a", 2, "b", 2), sizes(), 128 * MB, List.of(eu)), bothInEu,
                chunkCount())).isEmpty();
    }
}
