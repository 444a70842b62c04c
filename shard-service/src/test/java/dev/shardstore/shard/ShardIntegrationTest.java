package dev.shardstore.shard;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.event.CatalogEvent;
import dev.shardstore.contracts.clock.ClusterTimeGossip;
import dev.shardstore.infra.EmbeddedInfra;
import dev.shardstore.support.testing.ServiceHealthContract;
import dev.shardstore.transport.http.CommandClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Base of the shard's service tests: one Spring context for every subclass (same configuration, so
 * Spring's test context cache reuses it) on a real embedded PostgreSQL database and Kafka broker, with
 * {@link ConfigServerStub} as the config peer. Commands go over real HTTP through {@link CommandClient}.
 * Each test class uses its own database names, so classes do not see each other's collections. Every
 * subclass also meets the services' shared {@link ServiceHealthContract}. The shard's clock is {@link MovableShardClock}'s: a test
 * can skip past a timeout instead of waiting it out.
 */
@Import(MovableShardClock.class)
public abstract class ShardIntegrationTest extends ServiceHealthContract {
    protected static final String SHARD_NAME = "shard-it";

    @Autowired
    protected JdbcClient jdbc;

    private final CommandClient client = new CommandClient(Duration.ofSeconds(2), Duration.ofSeconds(60));

    @DynamicPropertySource
    static void infrastructure(DynamicPropertyRegistry registry) {
        register(registry, "shard_it");
        createCatalogTopic(EmbeddedInfra.shared().bootstrapServers());
        registry.add("shardstore.config-url", () -> ConfigServerStub.instance().url());
        registry.add("shardstore.shard.name", () -> SHARD_NAME);
        registry.add("shardstore.shard.cursor-timeout", () -> "4s"); // short for the idle-cursor test, long enough for a 14 MiB batch on a loaded machine
        registry.add("shardstore.shard.cursor-reap-interval", () -> "200ms");
        registry.add("shardstore.set-parameter.internalQueryMaxBlockingSortMemoryUsageBytes", () -> "2000000"); // 2 MB
        // tests run the time-series TTL monitor themselves: a scheduled pass would race their assertions
        registry.add("shardstore.shard.ttl-monitor-interval", () -> "1h");
        // auto-split tests change config.settings on the stub and expect the shard to follow soon
        registry.add("shardstore.shard.autosplit.settings-refresh-interval", () -> "200ms");
        MIGRATION_SETTINGS.forEach((name, value) -> registry.add(name, () -> value));
    }

    /**
     * Migration settings of every shard in these tests (this one and {@link OtherShard}s): small clone batches, so a
     * clone takes several batches to pause between, and short delays.
     */
    protected static final Map<String, String> MIGRATION_SETTINGS = Map.of(
            "shardstore.shard.migration.clone-batch-bytes", "200B",
            "shardstore.shard.migration.orphan-cleanup-delay", "1s",
            "shardstore.shard.migration.range-deleter-batch-size", "7",
            "shardstore.shard.migration.range-deleter-batch-delay", "1ms",
            "shardstore.shard.migration.recovery-retry-interval", "200ms",
            "shardstore.shard.migration.status-poll-interval", "20ms",
            "shardstore.shard.migration.range-deleter-wait-timeout", "3s");

    private static void createCatalogTopic(String bootstrapServers) {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers))) {
            admin.createTopics(List.of(new NewTopic(CatalogEvent.TOPIC, 1, (short) 1))).all().get();
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw new IllegalStateException("cannot create " + CatalogEvent.TOPIC, e);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Runs a command given as Extended JSON on {@code db} over HTTP and returns the reply (maybe an error reply). */
    protected BsonDocument run(String db, String json) {
        return run(db, ExtendedJson.parse(json));
    }

    /** Inserts documents given as Extended JSON into {@code db.collection}. */
    protected void insertInto(String db, String collection, String... documents) {
        BsonArray array = new BsonArray();
        for (String document : documents) {
            array.add(ExtendedJson.parse(document));
        }
        run(db, new BsonDocument("insert", new BsonString(collection)).append("documents", array));
    }

    /** Every document of {@code db.collection}, in {@code _id} order (one batch). */
    protected List<BsonDocument> documentsOf(String db, String collection) {
        return run(db, new BsonDocument("find", new BsonString(collection)).append("batchSize", new BsonInt32(1000)))
                .getDocument("cursor").getArray("firstBatch").stream().map(BsonValue::asDocument).toList();
    }

    /**
     * Runs a command document on {@code db} over HTTP; the reply without the cluster time every reply carries
     * ({@code $clusterTime}, {@code operationTime}: {@link #runWithClusterTime}), so tests compare what the command answers.
     */
    protected BsonDocument run(String db, BsonDocument command) {
        BsonDocument reply = runWithClusterTime(db, command);
        reply.remove(ClusterTimeGossip.CLUSTER_TIME);
        reply.remove(ClusterTimeGossip.OPERATION_TIME);
        return reply;
    }

    /** Runs a command document on {@code db} over HTTP; the whole reply. */
    protected BsonDocument runWithClusterTime(String db, BsonDocument command) {
        return client.run("shard", "http://127.0.0.1:" + port, db, command);
    }
}
