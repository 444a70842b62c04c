package dev.shardstore.balancer.round;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.balancer.BalancerProperties;
import dev.shardstore.balancer.cluster.ClusterStatistics;
import dev.shardstore.balancer.cluster.RecordingPeers;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.sharding.Chunk;
import dev.shardstore.contracts.sharding.ChunkRange;
import dev.shardstore.contracts.sharding.ShardKeyPattern;
import dev.shardstore.contracts.sharding.ShardedCollection;
import dev.shardstore.contracts.version.ChunkVersion;
import dev.shardstore.support.testing.MutableClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonMaxKey;
import org.bson.BsonMinKey;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;

/**
 * A balancer round from its snapshot to its report, against {@link RecordingPeers} and on a {@link MutableClock}: what
 * it asks the config service and the shards, in which order, and what it reports (reference: "Auto-balancing",
 * "Jumbo Chunks"). The policy's decisions themselves are {@code BalancerPolicyTest}'s.
 */
class BalancerRoundTest {
    private static final Instant START = Instant.parse("2026-01-01T12:00:00Z");
    private static final long MB = 1024 * 1024;
    private static final ShardedCollection COLLECTION = new ShardedCollection("geo.cities", UUID.randomUUID(), new ObjectId(),
            new BsonTimestamp(1_700_000_000, 1), ShardKeyPattern.of(new BsonDocument("x", new BsonInt32(1))), false, false);
    private static final BalancerProperties PROPERTIES = new BalancerProperties(Duration.ofSeconds(10), Duration.ofSeconds(1),
            Duration.ofHours(1), 20, "balancer-test", Duration.ofSeconds(300));

    private final MutableClock clock = MutableClock.at(START);
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final RecordingPeers peers = new RecordingPeers()
            // a 1 MB chunk size: shards 3 MB apart are imbalanced; the auto-merger stays out of these rounds
            .store("settings", new BsonDocument("_id", new BsonString("chunksize")).append("value", new BsonInt32(1)))
            .store("settings", new BsonDocument("_id", new BsonString("automerge")).append("enabled", BsonBoolean.FALSE));
    private final Balancer balancer = new Balancer(new ClusterStatistics(peers, RecordingPeers.supportProperties(), clock), peers,
            RecordingPeers.CONFIG_URL, PROPERTIES, meters, clock);

    /** Ten chunks {@code [MinKey, 10), [10, 20), ..., [90, MaxKey)}, all on {@code shard}. */
    private static List<Chunk> chunksOn(String shard) {
        List<Chunk> chunks = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            BsonValue min = i == 0 ? new BsonMinKey() : new BsonInt32(10 * i);
            BsonValue max = i == 9 ? new BsonMaxKey() : new BsonInt32(10 * (i + 1));
            chunks.add(new Chunk(new ChunkRange(new BsonDocument("x", min), new BsonDocument("x", max)), shard,
                    new ChunkVersion(1, i, COLLECTION.epoch(), COLLECTION.timestamp())));
        }
        return chunks;
    }

    /** sh1 owns the whole collection (10 MB), sh2 nothing. */
    private void imbalanced() {
        peers.shard("sh1", 10 * MB).shard("sh2", 0).collection(COLLECTION, chunksOn("sh1"));
    }

    @Test
    void aRoundCountsItselfMovesWhatThePolicyPlansAndReportsItOnItsClock() {
        imbalanced();
        peers.answer("_configsvrMoveRange", move -> {
            clock.advance(Duration.ofSeconds(3)); // the migration takes 3 s
            return new BsonDocument("ok", new org.bson.BsonDouble(1));
        });

        RoundReport report = balancer.runRound();

        assertThat(report.error()).isNull();
        assertThat(report.number()).as("the number the config service counted").isEqualTo(1);
        assertThat(report.started()).isEqualTo(START);
        assertThat(report.millis()).isEqualTo(3_000);
        assertThat(report.outcomes()).singleElement().satisfies(outcome -> {
            assertThat(outcome.ok()).isTrue();
            assertThat(outcome.millis()).isEqualTo(3_000);
        });
        assertThat(peers.calls().getFirst().command()).as("the round is counted before anything is read")
                .isEqualTo(new BsonDocument("_configsvrBalancerRound", new BsonInt32(1)).append("start", BsonBoolean.TRUE));
        BsonDocument move = peers.calls("_configsvrMoveRange").getFirst();
        assertThat(move.getString("_configsvrMoveRange").getValue()).isEqualTo("geo.cities");
        assertThat(move.getString("toShard").getValue()).isEqualTo("sh2");
        assertThat(move.getDocument("min")).isEqualTo(new BsonDocument("x", new BsonMinKey()));
        assertThat(move.getBoolean("waitForDelete").getValue()).isFalse();
        assertThat(move.getBoolean("forceJumbo").getValue()).isFalse();
        assertThat(peers.calls().getLast().command().getString("_configsvrLogAction").getValue()).as("a round that acted is logged")
                .isEqualTo("balancer.round");
        assertThat(balancer.recentRounds()).hasSize(1);
        assertThat(meters.counter("shardstore.balancer.moves", "outcome", "ok").count()).isEqualTo(1);
        assertThat(Balancer.pauseAfter(report, PROPERTIES)).as("a round that balanced something is followed soon")
                .isEqualTo(Duration.ofSeconds(1));
    }

    /**
     * The round's migrations run at once: each move the config service receives waits until the other one arrived too, which
     * moves one after the other would never do.
     */
    @Test
    void theMigrationsOfARoundRunAtOnce() {
        List<Chunk> chunks = new ArrayList<>(chunksOn("sh1"));
        for (int i = 5; i < 10; i++) {
            Chunk chunk = chunks.get(i);
            chunks.set(i, new Chunk(chunk.range(), "sh2", chunk.lastmod()));
        }
        peers.shard("sh1", 5 * MB).shard("sh2", 5 * MB).shard("sh3", 0).shard("sh4", 0).collection(COLLECTION, chunks);
        java.util.concurrent.CountDownLatch bothArrived = new java.util.concurrent.CountDownLatch(2);
        List<Boolean> metTheOther = new java.util.concurrent.CopyOnWriteArrayList<>();
        peers.answer("_configsvrMoveRange", move -> {
            bothArrived.countDown();
            try {
                metTheOther.add(bothArrived.await(30, java.util.concurrent.TimeUnit.SECONDS));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                metTheOther.add(false);
            }
            return new BsonDocument("ok", new org.bson.BsonDouble(1));
        });

        RoundReport report = balancer.runRound();

        assertThat(report.error()).isNull();
        assertThat(report.outcomes()).hasSize(2).allSatisfy(outcome -> assertThat(outcome.ok()).isTrue());
        assertThat(metTheOther).containsExactly(true, true);
        assertThat(peers.calls("_configsvrMoveRange")).extracting(m -> m.getString("toShard").getValue())
                .containsExactlyInAnyOrder("sh3", "sh4");
    }

    @Test
    void aBalancedClusterIsLeftAloneAndTheRoundIsNotLogged() {
        peers.shard("sh1", 10 * MB).shard("sh2", 10 * MB).collection(COLLECTION, chunksOn("sh1"));

        RoundReport report = balancer.runRound();

        assertThat(report.error()).isNull();
        assertThat(report.outcomes()).isEmpty();
        assertThat(peers.calls()).extracting(RecordingPeers.Call::name).containsOnly("_configsvrBalancerRound", "find", "_shardsvrDataDistribution");
        assertThat(Balancer.pauseAfter(report, PROPERTIES)).isEqualTo(PROPERTIES.roundInterval());
    }

    @Test
    void aMoveRefusedAsTooBigSplitsTheChunkAtItsMedianAndFails() {
        imbalanced();
        peers.answer("_configsvrMoveRange", move -> {
            throw new CommandException(ErrorCode.ChunkTooBig, "the chunk is too big to move");
        });

        RoundReport report = balancer.runRound();

        assertThat(report.outcomes()).singleElement().satisfies(outcome -> {
            assertThat(outcome.ok()).isFalse();
            assertThat(outcome.errmsg()).contains("too big");
        });
        assertThat(peers.calls("_configsvrSplitChunk")).singleElement().satisfies(split -> assertThat(split.getArray("bounds"))
                .isEqualTo(new BsonArray(List.of(new BsonDocument("x", new BsonMinKey()), new BsonDocument("x", new BsonInt32(10))))));
        assertThat(peers.calls("_configsvrSetJumboFlag")).isEmpty();
        assertThat(Balancer.pauseAfter(report, PROPERTIES)).as("every action failed: the full interval").isEqualTo(PROPERTIES.roundInterval());
    }

    @Test
    void aTooBigChunkThatCannotBeSplitIsMarkedJumbo() {
        imbalanced();
        peers.answer("_configsvrMoveRange", move -> {
            throw new CommandException(ErrorCode.ChunkTooBig, "the chunk is too big to move");
        }).answer("_configsvrSplitChunk", split -> {
            throw new CommandException(ErrorCode.CannotSplit, "one key");
        });

        balancer.runRound();

        assertThat(peers.calls("_configsvrSetJumboFlag")).singleElement().satisfies(mark -> {
            assertThat(mark.getDocument("min")).isEqualTo(new BsonDocument("x", new BsonMinKey()));
            assertThat(mark.getBoolean("jumbo").getValue()).isTrue();
        });
        assertThat(meters.counter("shardstore.balancer.jumbo.marked").count()).isEqualTo(1);
    }

    @Test
    void aRoundThatCannotReadTheCatalogReportsTheErrorInsteadOfThrowing() {
        imbalanced();
        peers.answer("find", find -> {
            throw new CommandException(ErrorCode.HostUnreachable, "config at " + RecordingPeers.CONFIG_URL + " refused the connection");
        });

        RoundReport report = balancer.runRound();

        assertThat(report.error()).contains("refused the connection");
        assertThat(report.number()).isEqualTo(1);
        assertThat(report.outcomes()).isEmpty();
        assertThat(peers.calls("_configsvrMoveRange")).isEmpty();
        assertThat(meters.counter("shardstore.balancer.round.failures").count()).isEqualTo(1);
        assertThat(peers.calls("_configsvrLogAction")).as("a failed round is logged too").hasSize(1);
        assertThat(balancer.inRound()).isFalse();
    }
}
