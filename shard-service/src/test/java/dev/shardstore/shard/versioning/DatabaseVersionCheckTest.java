package dev.shardstore.shard.versioning;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.event.CatalogEvent;
import dev.shardstore.contracts.version.DatabaseVersion;
import dev.shardstore.infra.EmbeddedInfra;
import dev.shardstore.shard.ConfigServerStub;
import dev.shardstore.shard.ShardIntegrationTest;
import dev.shardstore.shard.ShardMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.test.utils.ContainerTestUtils;

class DatabaseVersionCheckTest extends ShardIntegrationTest {
    private static final ConfigServerStub CONFIG = ConfigServerStub.instance();

    @Autowired
    DatabaseShardingState state;
    @Autowired
    MeterRegistry meters;
    @Autowired
    KafkaListenerEndpointRegistry listeners;

    @Test
    void commandsWithoutADatabaseVersionAreNotChecked() {
        assertThat(ok(run("unversioned", "{insert: 'c', documents: [{_id: 1}]}"))).isTrue();
        assertThat(CONFIG.lookups("unversioned")).isZero();
    }

    @Test
    void equalVersionIsServedAfterOneLazyLoad() {
        DatabaseVersion v1 = version(1);
        CONFIG.put("equal", SHARD_NAME, v1);

        assertThat(ok(run("equal", versioned("{insert: 'c', documents: [{_id: 1}]}", v1)))).isTrue();
        assertThat(ok(run("equal", versioned("{find: 'c'}", v1)))).isTrue();

        assertThat(CONFIG.lookups("equal")).isEqualTo(1);
        assertThat(state.cached("equal")).contains(new DatabaseFilteringInfo(v1, true));
    }

    @Test
    void olderVersionIsStaleWithTheShardsVersionAndNoRefresh() {
        DatabaseVersion v2 = version(2);
        CONFIG.put("older", SHARD_NAME, v2);
        run("older", versioned("{ping: 1}", v2));
        run("older", versioned("{count: 'c'}", v2));
        double staleBefore = meters.counter(ShardMetrics.STALE_DB_VERSION).count();

        DatabaseVersion v1 = new DatabaseVersion(v2.uuid(), 1, v2.timestamp());
        BsonDocument reply = run("older", versioned("{insert: 'c', documents: [{_id: 1}]}", v1));

        assertThat(reply.getInt32("code").getValue()).isEqualTo(249);
        assertThat(reply.getString("codeName").getValue()).isEqualTo("StaleDbVersion");
        assertThat(reply.getString("db").getValue()).isEqualTo("older");
        assertThat(DatabaseVersion.fromBson(reply.getDocument("vReceived"))).isEqualTo(v1);
        assertThat(DatabaseVersion.fromBson(reply.getDocument("vWanted"))).isEqualTo(v2);
        assertThat(CONFIG.lookups("older")).isEqualTo(1);
        assertThat(run("older", "{count: 'c'}").getNumber("n").intValue()).isZero();
        assertThat(meters.counter(ShardMetrics.STALE_DB_VERSION).count()).isEqualTo(staleBefore + 1);
        assertThat(meters.find(ShardMetrics.COMMAND_TIMER).tags("command", "insert", "outcome", "StaleDbVersion").timer())
                .isNotNull();
    }

    @Test
    void newerVersionRefreshesOnceAndIsServed() {
        DatabaseVersion v1 = version(1);
        CONFIG.put("newer", SHARD_NAME, v1);
        run("newer", versioned("{count: 'c'}", v1));
        double refreshesBefore = meters.counter(ShardMetrics.DB_VERSION_REFRESHES).count();

        DatabaseVersion v2 = new DatabaseVersion(v1.uuid(), 2, new BsonTimestamp(200, 1));
        CONFIG.put("newer", SHARD_NAME, v2);

        assertThat(ok(run("newer", versioned("{count: 'c'}", v2)))).isTrue();
        assertThat(CONFIG.lookups("newer")).isEqualTo(2);
        assertThat(meters.counter(ShardMetrics.DB_VERSION_REFRESHES).count()).isEqualTo(refreshesBefore + 1);
    }

    @Test
    void recreatedDatabaseWithANewUuidRefreshes() {
        DatabaseVersion before = version(1);
        CONFIG.put("recreated", SHARD_NAME, before);
        run("recreated", versioned("{count: 'c'}", before));

        DatabaseVersion after = version(1);
        CONFIG.put("recreated", SHARD_NAME, after);

        assertThat(ok(run("recreated", versioned("{count: 'c'}", after)))).isTrue();
        assertThat(CONFIG.lookups("recreated")).isEqualTo(2);
    }

    @Test
    void notPrimaryOrUnknownDatabaseIsStaleWithoutWantedVersion() {
        DatabaseVersion v1 = version(1);
        CONFIG.put("elsewhere", "another-shard", v1);

        BsonDocument notPrimary = run("elsewhere", versioned("{find: 'c'}", v1));
        BsonDocument unknown = run("neverCreated", versioned("{find: 'c'}", v1));

        assertThat(notPrimary.getInt32("code").getValue()).isEqualTo(249);
        assertThat(notPrimary.containsKey("vWanted")).isFalse();
        assertThat(notPrimary.getString("errmsg").getValue()).contains("not its primary");
        assertThat(unknown.getInt32("code").getValue()).isEqualTo(249);
        assertThat(unknown.containsKey("vWanted")).isFalse();
        // The cache knew this version already: a second stale request does not ask the config service again.
        run("elsewhere", versioned("{find: 'c'}", v1));
        assertThat(CONFIG.lookups("elsewhere")).isEqualTo(1);
    }

    @Test
    void concurrentRefreshesOfOneDatabaseCoalesce() throws Exception {
        DatabaseVersion v1 = version(1);
        CONFIG.put("coalesced", SHARD_NAME, v1);
        CONFIG.delay(Duration.ofMillis(400));
        ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor();
        try {
            List<Future<BsonDocument>> replies = pool.invokeAll(Collections.nCopies(8,
                    () -> run("coalesced", versioned("{count: 'c'}", v1))));
            for (Future<BsonDocument> reply : replies) {
                assertThat(ok(reply.get())).isTrue();
            }
        } finally {
            CONFIG.delay(Duration.ZERO);
            pool.shutdown();
        }
        assertThat(CONFIG.lookups("coalesced")).isEqualTo(1);
    }

    @Test
    void catalogEventInvalidatesTheCachedEntry() {
        ContainerTestUtils.waitForAssignment(listeners.getListenerContainer("shard-catalog-events"), 1);
        DatabaseVersion v1 = version(1);
        CONFIG.put("evented", SHARD_NAME, v1);
        run("evented", versioned("{count: 'c'}", v1));
        assertThat(state.cached("evented")).isPresent();

        publish(new CatalogEvent(CatalogEvent.Type.DATABASE_VERSION_CHANGED, "evented", null, 1));

        await().atMost(Duration.ofSeconds(10)).until(() -> state.cached("evented").isEmpty());
        assertThat(ok(run("evented", versioned("{count: 'c'}", v1)))).isTrue();
        assertThat(CONFIG.lookups("evented")).isEqualTo(2);
    }

    @Test
    void dropDatabaseForgetsTheVersion() {
        DatabaseVersion v1 = version(1);
        CONFIG.put("dropped", SHARD_NAME, v1);
        run("dropped", versioned("{insert: 'c', documents: [{}]}", v1));

        assertThat(ok(run("dropped", "{dropDatabase: 1}"))).isTrue();

        assertThat(state.cached("dropped")).isEmpty();
    }

    @Test
    void aDroppedVersionIsRefusedWhileTheConfigServiceStillListsItAndNothingIsWrittenBack() {
        DatabaseVersion v1 = version(1);
        CONFIG.put("dropping", SHARD_NAME, v1);
        run("dropping", versioned("{insert: 'c', documents: [{_id: 1}]}", v1));

        // The config service drops data first and its catalog entry after: in between it still lists v1.
        assertThat(ok(run("dropping", versioned("{dropDatabase: 1}", v1)))).isTrue();
        BsonDocument staleWrite = run("dropping", versioned("{insert: 'c', documents: [{_id: 2}]}", v1));

        assertThat(staleWrite.getInt32("code").getValue()).isEqualTo(249);
        assertThat(staleWrite).doesNotContainKey("vWanted");
        assertThat(run("dropping", "{listCollections: 1}").getDocument("cursor").getArray("firstBatch")).isEmpty();
        assertThat(ok(run("dropping", versioned("{dropDatabase: 1}", v1)))).as("a retried drop succeeds").isTrue();

        DatabaseVersion recreated = version(1);
        CONFIG.put("dropping", SHARD_NAME, recreated);
        assertThat(ok(run("dropping", versioned("{insert: 'c', documents: [{_id: 3}]}", recreated)))).isTrue();
        assertThat(run("dropping", "{find: 'c'}").getDocument("cursor").getArray("firstBatch"))
                .extracting(d -> d.asDocument().getInt32("_id").getValue()).containsExactly(3);
    }

    @Test
    void malformedDatabaseVersionIsRejected() {
        assertThat(run("badversion", "{find: 'c', databaseVersion: 5}").getInt32("code").getValue()).isEqualTo(14);
        assertThat(run("badversion", "{find: 'c', databaseVersion: {lastMod: 1}}").getInt32("code").getValue()).isEqualTo(2);
    }

    @Test
    void shardingStateAndPrometheusEndpointsShowTheShardsState() throws Exception {
        DatabaseVersion v1 = version(1);
        CONFIG.put("shown", SHARD_NAME, v1);
        run("shown", versioned("{count: 'c'}", v1));

        HttpResponse<String> response = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/shardingState")).build(),
                HttpResponse.BodyHandlers.ofString());
        BsonDocument body = ExtendedJson.parse(response.body());

        assertThat(body.getString("shard").getValue()).isEqualTo(SHARD_NAME);
        assertThat(body.getDocument("databases").getDocument("shown").getBoolean("primary").getValue()).isTrue();
        assertThat(body.getDocument("databases").getDocument("shown").getDocument("version").getString("uuid").getValue())
                .isEqualTo(v1.uuid().toString());
        assertThat(body.isNumber("openCursors")).isTrue();

        String prometheus = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/prometheus")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        assertThat(prometheus).contains("shardstore_shard_command_seconds_count{command=\"count\",outcome=\"ok\"}")
                .contains("shardstore_shard_db_version_refreshes_total").contains("shardstore_shard_stale_db_version_total");
    }

    private static DatabaseVersion version(int lastMod) {
        return new DatabaseVersion(UUID.randomUUID(), lastMod, new BsonTimestamp(100, lastMod));
    }

    private static BsonDocument versioned(String json, DatabaseVersion version) {
        return ExtendedJson.parse(json).append("databaseVersion", version.toBson());
    }

    private static boolean ok(BsonDocument reply) {
        return reply.getNumber("ok").doubleValue() == 1.0;
    }

    private static void publish(CatalogEvent event) {
        String json = "{\"type\":\"" + event.type() + "\",\"database\":\"" + event.database()
                + "\",\"namespace\":null,\"sequence\":" + event.sequence() + "}";
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, EmbeddedInfra.shared().bootstrapServers(),
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class))) {
            producer.send(new ProducerRecord<>(CatalogEvent.TOPIC, event.database(), json)).get();
        } catch (Exception e) {
            throw new IllegalStateException("cannot publish " + json, e);
        }
    }
}
