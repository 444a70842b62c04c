package dev.shardstore.balancer.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.balancer.BalancerProperties;
import dev.shardstore.balancer.cluster.ClusterStatistics;
import dev.shardstore.balancer.cluster.RecordingPeers;
import dev.shardstore.balancer.round.Balancer;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.sharding.Chunk;
import dev.shardstore.contracts.sharding.ChunkRange;
import dev.shardstore.contracts.sharding.ShardKeyPattern;
import dev.shardstore.contracts.sharding.ShardedCollection;
import dev.shardstore.contracts.version.ChunkVersion;
import dev.shardstore.support.ServiceSupportProperties;
import dev.shardstore.support.testing.MutableClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonMaxKey;
import org.bson.BsonMinKey;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;

/**
 * The balancer commands against {@link RecordingPeers}: what they persist on the config service, and
 * {@code balancerStop}'s wait for the round in progress, with a round held inside its migration by the fake.
 */
class BalancerCommandsTest {
    private static final ServiceSupportProperties SUPPORT = RecordingPeers.supportProperties();
    private static final ShardedCollection COLLECTION = new ShardedCollection("geo.cities", UUID.randomUUID(), new ObjectId(),
            new BsonTimestamp(1_700_000_000, 1), ShardKeyPattern.of(new BsonDocument("x", new BsonInt32(1))), false, false);

    private final MutableClock clock = MutableClock.at(Instant.parse("2026-01-01T12:00:00Z"));
    private final RecordingPeers peers = new RecordingPeers();
    private final ClusterStatistics statistics = new ClusterStatistics(peers, SUPPORT, clock);
    private final BalancerCommands commands = new BalancerCommands();

    /** A balancer whose round calls go to the same fake peers. */
    private Balancer balancer() {
        return new Balancer(statistics, peers, RecordingPeers.CONFIG_URL, new BalancerProperties(Duration.ofSeconds(10), Duration.ofSeconds(1),
                Duration.ofHours(1), 20, "balancer-test", Duration.ofSeconds(300)), new SimpleMeterRegistry(), clock);
    }

    @Test
    void balancerStartAndStopPersistTheModeOnTheConfigService() {
        Balancer balancer = balancer();

        assertThat(commands.balancerStart(peers, SUPPORT).run(OperationContext.internal("test"), "admin", new BsonDocument("balancerStart", new BsonInt32(1)))
                .getNumber("ok").intValue()).isEqualTo(1);
        assertThat(commands.balancerStop(peers, SUPPORT, balancer).run(OperationContext.internal("test"), "admin", new BsonDocument("balancerStop", new BsonInt32(1)))
                .getNumber("ok").intValue()).isEqualTo(1);

        assertThat(peers.calls("_configsvrSetSettings")).containsExactly(
                new BsonDocument("_configsvrSetSettings", new BsonString("balancer")).append("set",
                        new BsonDocument("mode", new BsonString("full")).append("stopped", BsonBoolean.FALSE)),
                new BsonDocument("_configsvrSetSettings", new BsonString("balancer")).append("set",
                        new BsonDocument("mode", new BsonString("off")).append("stopped", BsonBoolean.TRUE)));
    }

    @Test
    void balancerStopWaitsForTheRoundInProgressAndStatusReportsIt() throws Exception {
        // one shard owns the collection, so the round migrates; the fake holds the migration until released
        List<Chunk> chunks = List.of(new Chunk(new ChunkRange(new BsonDocument("x", new BsonMinKey()), new BsonDocument("x", new BsonInt32(0))), "sh1",
                new ChunkVersion(1, 0, COLLECTION.epoch(), COLLECTION.timestamp())), new Chunk(new ChunkRange(new BsonDocument("x", new BsonInt32(0)), new BsonDocument("x", new BsonMaxKey())), "sh1",
                new ChunkVersion(1, 1, COLLECTION.epoch(), COLLECTION.timestamp())));
        peers.store("settings", new BsonDocument("_id", new BsonString("chunksize")).append("value", new BsonInt32(1)))
                .store("settings", new BsonDocument("_id", new BsonString("automerge")).append("enabled", BsonBoolean.FALSE))
                .shard("sh1", 10L * 1024 * 1024).shard("sh2", 0).collection(COLLECTION, chunks);
        CountDownLatch migrating = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        peers.answer("_configsvrMoveRange", move -> {
            migrating.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return new BsonDocument("ok", new BsonDouble(1));
        });
        Balancer balancer = balancer();
        CompletableFuture<?> round = CompletableFuture.runAsync(balancer::runRound, Thread.ofVirtual()::start);
        try {
            assertThat(migrating.await(30, TimeUnit.SECONDS)).as("the round reached its migration").isTrue();

            BsonDocument status = commands.balancerStatus(statistics, balancer).run(OperationContext.internal("test"), "admin", new BsonDocument("balancerStatus", new BsonInt32(1)));
            assertThat(status.getBoolean("inBalancerRound").getValue()).isTrue();
            assertThat(status.getNumber("numBalancerRounds").longValue()).isEqualTo(1);
            assertThat(status.getString("mode").getValue()).isEqualTo("full");
            assertThatThrownBy(() -> commands.balancerStop(peers, SUPPORT, balancer)
                    .run(OperationContext.internal("test"), "admin", new BsonDocument("balancerStop", new BsonInt32(1)).append("maxTimeMS", new BsonInt32(1))))
                    .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.ExceededTimeLimit));
        } finally {
            release.countDown();
        }
        round.get(30, TimeUnit.SECONDS);
        assertThat(balancer.inRound()).isFalse();
        assertThat(commands.balancerStop(peers, SUPPORT, balancer).run(OperationContext.internal("test"), "admin", new BsonDocument("balancerStop", new BsonInt32(1)))
                .getNumber("ok").intValue()).as("no round in progress: the stop answers at once").isEqualTo(1);
    }
}
