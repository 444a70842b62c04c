package dev.shardstore.shard.moveprimary;

import static dev.shardstore.shard.TestRouting.chunk;
import static dev.shardstore.shard.TestRouting.collection;
import static dev.shardstore.shard.TestRouting.version;
import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.http.InternalApi;
import dev.shardstore.contracts.sharding.ShardedCollection;
import dev.shardstore.contracts.version.ChunkVersion;
import dev.shardstore.contracts.version.DatabaseVersion;
import dev.shardstore.infra.EmbeddedInfra;
import dev.shardstore.shard.ConfigServerStub;
import dev.shardstore.shard.ShardIntegrationTest;
import dev.shardstore.shard.ShardServiceApplication;
import dev.shardstore.shard.versioning.CollectionShardingRuntime;
import dev.shardstore.support.failpoint.FailPointAction;
import dev.shardstore.support.failpoint.FailPoints;
import dev.shardstore.transport.http.CommandClient;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * movePrimary's database critical section on the old primary, as one mechanism with the database lock and the database
 * version check ({@link CollectionShardingRuntime}), over real HTTP and real PostgreSQL: entering drains the versioned
 * writes in flight; phase 1 blocks the versioned writes the database version places and phase 2 their reads too, while
 * sharded collections are not blocked; once the primary moved, exiting sends the waiters StaleDbVersion; the section
 * survives a restart. Waiting commands are observed as "not done" after a bounded wait; everything they must do
 * afterwards is awaited.
 */
class DatabaseCriticalSectionTest extends ShardIntegrationTest {
    private static final ConfigServerStub CONFIG = ConfigServerStub.instance();
    private static final String AFTER_CHECK = CollectionShardingRuntime.AFTER_VERSION_CHECK;
    private static final Duration STILL_WAITING = Duration.ofMillis(500);
    private static final BsonDocument REASON = ExtendedJson.parse("{command: 'movePrimary', db: 'x', to: 'other'}");

    @Autowired
    FailPoints failPoints;

    private static DatabaseVersion dbVersion(UUID uuid, int lastMod) {
        return new DatabaseVersion(uuid, lastMod, new BsonTimestamp(100, lastMod));
    }

    /** {@code json} as a router sends it for an unsharded collection: UNSHARDED and the database version. */
    private static BsonDocument unsharded(String json, DatabaseVersion version) {
        return ExtendedJson.parse(json).append(InternalApi.SHARD_VERSION_FIELD, ChunkVersion.UNSHARDED.toBson())
                .append(InternalApi.DATABASE_VERSION_FIELD, version.toBson());
    }

    private BsonDocument enter(String db, String blockType) {
        return run(db, new BsonDocument("_shardsvrMovePrimaryEnterCriticalSection", new BsonInt32(1))
                .append("blockType", new BsonString(blockType)).append("reason", REASON));
    }

    private BsonDocument exit(String db) {
        return run(db, new BsonDocument("_shardsvrMovePrimaryExitCriticalSection", new BsonInt32(1)).append("reason", REASON));
    }

    private static void assertStillWaiting(Future<?> command, String what) throws Exception {
        try {
            command.get(STILL_WAITING.toMillis(), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.TimeoutException expected) {
            return;
        }
        throw new AssertionError(what + " should still be waiting, but finished with " + command.get());
    }

    private static int code(BsonDocument reply) {
        return reply.getNumber("code").intValue();
    }

    @Test
    void thePhasesBlockWhatTheDatabaseVersionPlacesAndAfterTheMoveTheWaitersGetStaleDbVersion() throws Exception {
        String db = "dcs_moved";
        UUID uuid = UUID.randomUUID();
        DatabaseVersion v1 = dbVersion(uuid, 1);
        CONFIG.put(db, SHARD_NAME, v1);
        assertThat(run(db, unsharded("{insert: 'c', documents: [{_id: 1}]}", v1)).getNumber("n").intValue()).isEqualTo(1);
        ShardedCollection sharded = collection(db + ".sh", "{x: 1}");
        CONFIG.putRoutingTable(sharded, List.of(chunk(sharded, "{x: {$minKey: 1}}", "{x: {$maxKey: 1}}", SHARD_NAME, 1, 0)));
        BsonDocument shardedInsert = ExtendedJson.parse("{insert: 'sh', documents: [{_id: 1, x: 1}]}")
                .append(InternalApi.SHARD_VERSION_FIELD, version(sharded, 1, 0).toBson()).append(InternalApi.DATABASE_VERSION_FIELD, v1.toBson());
        try (ExecutorService pool = Executors.newFixedThreadPool(3)) {
            assertThat(enter(db, "Writes").getNumber("ok").intValue()).isEqualTo(1);
            Future<BsonDocument> write = pool.submit(() -> run(db, unsharded("{insert: 'c', documents: [{_id: 2}]}", v1)));
            assertStillWaiting(write, "a versioned write to an unsharded collection in phase 1");
            Future<BsonDocument> create = pool.submit(() -> run(db, unsharded("{insert: 'new', documents: [{_id: 1}]}", v1)));
            assertStillWaiting(create, "a versioned write creating a collection in phase 1");
            assertThat(run(db, unsharded("{find: 'c'}", v1)).getDocument("cursor").getArray("firstBatch"))
                    .as("phase 1 lets reads through").hasSize(1);
            assertThat(run(db, shardedInsert).getNumber("n").intValue()).as("a sharded collection is not blocked").isEqualTo(1);

            assertThat(enter(db, "ReadsAndWrites").getNumber("ok").intValue()).isEqualTo(1);
            Future<BsonDocument> read = pool.submit(() -> run(db, unsharded("{find: 'c'}", v1)));
            assertStillWaiting(read, "a versioned read in phase 2");
            assertThat(runtimeSections()).containsExactly(db);

            CONFIG.put(db, "other", dbVersion(uuid, 2)); // the commit
            assertThat(exit(db).getBoolean("primary").getValue()).isFalse();

            for (Future<BsonDocument> waiter : List.of(write, create, read)) {
                BsonDocument reply = waiter.get(20, TimeUnit.SECONDS);
                assertThat(code(reply)).as(reply.toJson()).isEqualTo(249);
                assertThat(reply.getDocument("vReceived")).isEqualTo(v1.toBson());
            }
        }
        assertThat(runtimeSections()).isEmpty();
        assertThat(jdbc.sql("SELECT count(*) FROM critical_sections WHERE namespace = ?").param(db).query(Long.class).single()).isZero();
        assertThat(documentsOf(db, "c")).as("the writes that waited wrote nothing").hasSize(1);
        assertThat(documentsOf(db, "new")).isEmpty();
        assertThat(exit(db).getNumber("ok").intValue()).as("exiting again is a no-op, not an error").isEqualTo(1);
    }

    @Test
    void enteringWaitsForTheWriteInFlightAndAnotherReasonIsAConflict() throws Exception {
        String db = "dcs_drain";
        DatabaseVersion v1 = dbVersion(UUID.randomUUID(), 1);
        CONFIG.put(db, SHARD_NAME, v1);
        long entered = failPoints.timesEntered(AFTER_CHECK);
        failPoints.configure(AFTER_CHECK, FailPointAction.pause(), 1);
        try (ExecutorService pool = Executors.newFixedThreadPool(2)) {
            Future<BsonDocument> write = pool.submit(() -> run(db, unsharded("{insert: 'c', documents: [{_id: 1}]}", v1)));
            assertThat(failPoints.awaitEntered(AFTER_CHECK, entered + 1, Duration.ofSeconds(20))).isTrue();
            Future<BsonDocument> enter = pool.submit(() -> enter(db, "Writes"));
            assertStillWaiting(enter, "entering while a write is between its check and its effect");

            failPoints.configure(AFTER_CHECK, null, 0);
            assertThat(write.get(20, TimeUnit.SECONDS).getNumber("n").intValue()).isEqualTo(1);
            assertThat(enter.get(20, TimeUnit.SECONDS).getNumber("ok").intValue()).isEqualTo(1);
            assertThat(documentsOf(db, "c")).as("the write that was in flight is in what gets cloned").hasSize(1);

            BsonDocument other = run(db, ExtendedJson.parse("{_shardsvrMovePrimaryEnterCriticalSection: 1, blockType: 'Writes', reason: {command: 'other'}}"));
            assertThat(code(other)).isEqualTo(117);
            BsonDocument wrongExit = run(db, ExtendedJson.parse("{_shardsvrMovePrimaryExitCriticalSection: 1, reason: {command: 'other'}}"));
            assertThat(code(wrongExit)).isEqualTo(117);
        } finally {
            failPoints.configure(AFTER_CHECK, null, 0);
            exit(db);
        }
    }

    @Test
    void theSectionSurvivesARestartOfTheShard() throws Exception {
        String db = "dcs_restart";
        DatabaseVersion v1 = dbVersion(UUID.randomUUID(), 1);
        CONFIG.put(db, SHARD_NAME, v1);
        assertThat(enter(db, "ReadsAndWrites").getNumber("ok").intValue()).isEqualTo(1);
        assertThat(jdbc.sql("SELECT phase FROM critical_sections WHERE namespace = ?").param(db).query(String.class).single()).isEqualTo("COMMIT");
        try (ConfigurableApplicationContext restarted = startAnotherShardProcessOnTheSameDatabase()) {
            String url = "http://127.0.0.1:" + ((WebServerApplicationContext) restarted).getWebServer().getPort();
            CommandClient client = new CommandClient(Duration.ofSeconds(2), Duration.ofSeconds(60));
            BsonDocument blocked = client.run("shard", url, db, unsharded("{insert: 'c', documents: [{_id: 1}]}", v1));
            assertThat(code(blocked)).as("still blocked after the restart, until the wait timeout: " + blocked.toJson()).isEqualTo(249);
            assertThat(blocked.containsKey("vWanted")).isFalse();

            BsonDocument exited = client.run("shard", url, db, new BsonDocument("_shardsvrMovePrimaryExitCriticalSection", new BsonInt32(1))
                    .append("reason", REASON));
            assertThat(exited.getBoolean("primary").getValue()).isTrue();
            // a read, which phase 2 blocked too (no write from this second process: its oplog clock is not the test process's)
            assertThat(client.run("shard", url, db, unsharded("{find: 'c'}", v1)).getNumber("ok").intValue()).isEqualTo(1);
        } finally {
            exit(db); // this process still holds it in memory
        }
        assertThat(jdbc.sql("SELECT count(*) FROM critical_sections WHERE namespace = ?").param(db).query(Long.class).single()).isZero();
    }

    /** The namespaces of the sections this shard holds, from its {@code shardingState} endpoint. */
    private List<String> runtimeSections() throws Exception {
        java.net.http.HttpResponse<String> response = java.net.http.HttpClient.newHttpClient().send(
                java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + port + "/actuator/shardingState")).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
        return ExtendedJson.parse(response.body()).getArray("criticalSections").stream()
                .map(s -> s.asDocument().getString("namespace").getValue()).filter(ns -> ns.startsWith("dcs_")).toList();
    }

    /** A second shard process over this one's database (the "restarted" shard), waiting at most 1 s for a section. */
    private static ConfigurableApplicationContext startAnotherShardProcessOnTheSameDatabase() {
        Map<String, String> properties = new HashMap<>(EmbeddedInfra.shared().springProperties("shard_it"));
        properties.put("server.port", "0");
        properties.put("shardstore.config-url", CONFIG.url());
        properties.put("shardstore.shard.name", SHARD_NAME);
        properties.put("shardstore.shard.critical-section-timeout", "1s");
        return new SpringApplicationBuilder(ShardServiceApplication.class)
                .run(properties.entrySet().stream().map(e -> "--" + e.getKey() + "=" + e.getValue()).toArray(String[]::new));
    }
}
