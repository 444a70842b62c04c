package dev.shardstore.shard.versioning;

import static dev.shardstore.shard.TestRouting.chunk;
import static dev.shardstore.shard.TestRouting.collection;
import static dev.shardstore.shard.TestRouting.version;
import static dev.shardstore.shard.TestRouting.versioned;
import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.contracts.sharding.ShardedCollection;
import dev.shardstore.contracts.sharding.StaleConfig;
import dev.shardstore.contracts.version.ChunkVersion;
import dev.shardstore.infra.EmbeddedInfra;
import dev.shardstore.shard.ConfigServerStub;
import dev.shardstore.shard.ShardIntegrationTest;
import dev.shardstore.shard.ShardServiceApplication;
import dev.shardstore.support.failpoint.FailPointAction;
import dev.shardstore.support.failpoint.FailPoints;
import dev.shardstore.transport.http.CommandClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Critical sections as one mechanism with the collection lock and the version check ({@link CollectionShardingRuntime}),
 * over real HTTP and real PostgreSQL: entering waits for the writes in flight; phase 1 blocks versioned writes, phase 2
 * versioned reads too; exit lets them re-check against the new metadata; sections survive a restart; unversioned
 * commands and getMores are never blocked; a section nobody exits expires only when it was entered with an expiry.
 * Waiting commands are observed as "not done" after a bounded wait; everything they must do afterwards is awaited.
 */
class CollectionShardingRuntimeTest extends ShardIntegrationTest {
    private static final ConfigServerStub CONFIG = ConfigServerStub.instance();
    private static final String AFTER_CHECK = CollectionShardingRuntime.AFTER_VERSION_CHECK;
    private static final Duration STILL_WAITING = Duration.ofMillis(500);

    @Autowired
    CollectionShardingRuntime runtime;
    @Autowired
    FailPoints failPoints;

    private static BsonDocument reason(String ns) {
        return new BsonDocument("command", new BsonString("dropCollection")).append("ns", new BsonString(ns));
    }

    private BsonDocument block(String db, String coll, String blockType) {
        return run(db, new BsonDocument("_shardsvrParticipantBlock", new BsonString(coll)).append("blockType", new BsonString(blockType))
                .append("reason", reason(db + "." + coll)));
    }

    private static BsonDocument insert(int id) {
        return versioned("{insert: 'c', documents: [{_id: " + id + ", x: " + id + "}]}", ChunkVersion.UNSHARDED);
    }

    private static BsonDocument find() {
        return versioned("{find: 'c'}", ChunkVersion.UNSHARDED);
    }

    private static void assertStillWaiting(Future<?> command, String what) throws Exception {
        try {
            command.get(STILL_WAITING.toMillis(), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.TimeoutException expected) {
            return;
        }
        throw new AssertionError(what + " should still be waiting, but finished with " + command.get());
    }

    @Test
    void enteringASectionWaitsForTheWriteInFlightAndCountsIt() throws Exception {
        long entered = failPoints.timesEntered(AFTER_CHECK);
        failPoints.configure(AFTER_CHECK, FailPointAction.pause(), 1);
        try (ExecutorService pool = Executors.newFixedThreadPool(2)) {
            Future<BsonDocument> write = pool.submit(() -> run("csr_drain", insert(1)));
            assertThat(failPoints.awaitEntered(AFTER_CHECK, entered + 1, Duration.ofSeconds(20))).isTrue();
            Future<BsonDocument> enter = pool.submit(() -> block("csr_drain", "c", "ReadsAndWrites"));
            assertStillWaiting(enter, "entering while a write is between its check and its effect");

            failPoints.configure(AFTER_CHECK, null, 0);
            assertThat(write.get(20, TimeUnit.SECONDS).getNumber("n").intValue()).isEqualTo(1);
            assertThat(enter.get(20, TimeUnit.SECONDS).getNumber("ok").intValue()).isEqualTo(1);
            assertThat(documentsOf("csr_drain", "c")).hasSize(1);
        } finally {
            failPoints.configure(AFTER_CHECK, null, 0);
            block("csr_drain", "c", "Unblock");
        }
    }

    @Test
    void phaseOneBlocksVersionedWritesAndPhaseTwoReadsTooUntilTheExitShowsTheNewMetadata() throws Exception {
        insertInto("csr_phases", "c", "{_id: 1, x: 1}");
        assertThat(run("csr_phases", find()).getNumber("ok").intValue()).isEqualTo(1); // caches "unsharded"
        try (ExecutorService pool = Executors.newFixedThreadPool(3)) {
            assertThat(block("csr_phases", "c", "Writes").getNumber("ok").intValue()).isEqualTo(1);
            Future<BsonDocument> write = pool.submit(() -> run("csr_phases", insert(2)));
            assertStillWaiting(write, "a versioned write in phase 1");
            assertThat(run("csr_phases", find()).getDocument("cursor").getArray("firstBatch")).as("phase 1 lets reads through").hasSize(1);

            assertThat(block("csr_phases", "c", "ReadsAndWrites").getNumber("ok").intValue()).isEqualTo(1);
            Future<BsonDocument> read = pool.submit(() -> run("csr_phases", find()));
            assertStillWaiting(read, "a versioned read in phase 2");
            assertStillWaiting(write, "the versioned write in phase 2");
            assertThat(block("csr_phases", "c", "Writes").getNumber("ok").intValue()).as("phase 1 again keeps phase 2").isEqualTo(1);
            assertThat(sections()).extracting(s -> s.asDocument().getString("blocks").getValue()).containsExactly("ReadsAndWrites");

            // the operation holding the section shards the collection: the waiters must see that, not the old metadata
            ShardedCollection coll = collection("csr_phases.c", "{x: 1}");
            CONFIG.putRoutingTable(coll, List.of(chunk(coll, "{x: {$minKey: 1}}", "{x: {$maxKey: 1}}", SHARD_NAME, 1, 0)));
            assertThat(block("csr_phases", "c", "Unblock").getBoolean("sharded").getValue()).isTrue();

            assertThat(StaleConfig.fromReply(write.get(20, TimeUnit.SECONDS)).wanted()).isEqualTo(version(coll, 1, 0));
            assertThat(StaleConfig.fromReply(read.get(20, TimeUnit.SECONDS)).wanted()).isEqualTo(version(coll, 1, 0));
            assertThat(sections()).isEmpty();
        }
        assertThat(documentsOf("csr_phases", "c")).as("the write that waited wrote nothing").hasSize(1);
    }

    @Test
    void unversionedCommandsAndGetMoresAreNotBlocked() throws Exception {
        for (int i = 1; i <= 5; i++) {
            insertInto("csr_free", "c", "{_id: " + i + "}");
        }
        BsonDocument first = run("csr_free", versioned("{find: 'c', batchSize: 2}", ChunkVersion.UNSHARDED));
        long cursor = first.getDocument("cursor").getNumber("id").longValue();
        block("csr_free", "c", "ReadsAndWrites");
        try {
            assertThat(run("csr_free", "{insert: 'c', documents: [{_id: 6}]}").getNumber("n").intValue()).isEqualTo(1);
            assertThat(run("csr_free", "{count: 'c'}").getNumber("n").intValue()).isEqualTo(6);
            BsonDocument more = run("csr_free", ExtendedJson.parse("{getMore: {$numberLong: '" + cursor + "'}, collection: 'c'}"));
            assertThat(more.getDocument("cursor").getArray("nextBatch")).as("the cursor keeps its snapshot").isNotEmpty();
        } finally {
            block("csr_free", "c", "Unblock");
        }
    }

    @Test
    void waitersAreHeldUntilExitAndOtherCollectionsAreNot() throws Exception {
        Namespace ns = new Namespace("csr_held", "c");
        runtime.enterCriticalSection(ns, CriticalSectionPhase.COMMIT, reason(ns.full()), Duration.ofMinutes(1));
        try (ExecutorService pool = Executors.newSingleThreadExecutor()) {
            Future<BsonDocument> write = pool.submit(() -> run("csr_held", insert(1)));
            assertStillWaiting(write, "a versioned write");
            assertThat(run("csr_held", versioned("{insert: 'other', documents: [{_id: 1}]}", ChunkVersion.UNSHARDED))
                    .getNumber("n").intValue()).as("other collections are not held").isEqualTo(1);
            int loads = CONFIG.routingRequests(ns.full()).size();

            assertThat(runtime.exitCriticalSection(ns, reason(ns.full()))).isTrue();
            assertThat(write.get(20, TimeUnit.SECONDS).getNumber("n").intValue()).isEqualTo(1);
            assertThat(runtime.criticalSections()).isEmpty();
            assertThat(CONFIG.routingRequests(ns.full())).as("the waiter refreshed before trusting the metadata").hasSize(loads + 1);
        }
    }

    @Test
    void aSectionWithAnExpiryThatNobodyExitsExpiresAndMarksTheMetadataStale() throws Exception {
        Namespace ns = new Namespace("csr_lost", "c");
        assertThat(run("csr_lost", insert(1)).getNumber("n").intValue()).isEqualTo(1);
        int loads = CONFIG.routingRequests(ns.full()).size();
        runtime.enterCriticalSection(ns, CriticalSectionPhase.COMMIT, reason(ns.full()), Duration.ofMillis(300)); // the config service died
        // answered once the section expired (a section that never expired would leave it to the client's timeout)
        assertThat(run("csr_lost", insert(2)).getNumber("n").intValue()).isEqualTo(1);
        assertThat(runtime.criticalSections()).isEmpty();
        assertThat(CONFIG.routingRequests(ns.full())).as("the waiter refreshed before trusting the metadata").hasSize(loads + 1);
    }

    @Test
    void enteringAgainKeepsTheFirstSectionAndAnotherReasonIsAConflict() throws Exception {
        Namespace ns = new Namespace("csr_twice", "c");
        runtime.enterCriticalSection(ns, CriticalSectionPhase.COMMIT, reason(ns.full()), Duration.ofMinutes(1));
        runtime.enterCriticalSection(ns, CriticalSectionPhase.COMMIT, reason(ns.full()), Duration.ofMillis(1));
        try (ExecutorService pool = Executors.newSingleThreadExecutor()) {
            Future<BsonDocument> write = pool.submit(() -> run("csr_twice", insert(1)));
            assertStillWaiting(write, "a versioned write");
            assertThat(runtime.criticalSections()).extracting(CriticalSection::namespace).containsExactly(ns.full());
            BsonDocument other = run("csr_twice", "{_shardsvrParticipantBlock: 'c', blockType: 'ReadsAndWrites', reason: {command: 'other'}}");
            assertThat(other.getInt32("code").getValue()).isEqualTo(117);
            BsonDocument wrongUnblock = run("csr_twice", "{_shardsvrParticipantBlock: 'c', blockType: 'Unblock', reason: {command: 'other'}}");
            assertThat(wrongUnblock.getInt32("code").getValue()).isEqualTo(117);
            assertThat(runtime.exitCriticalSection(ns, reason(ns.full()))).isTrue();
            assertThat(write.get(20, TimeUnit.SECONDS).getNumber("n").intValue()).isEqualTo(1);
        }
        assertThat(runtime.criticalSections()).isEmpty();
        assertThat(runtime.exitCriticalSection(ns, reason(ns.full()))).as("exiting twice is a no-op").isFalse();
    }

    @Test
    void aSectionSurvivesARestartOfTheShard() throws Exception {
        assertThat(block("csr_restart", "c", "ReadsAndWrites").getNumber("ok").intValue()).isEqualTo(1);
        assertThat(jdbc.sql("SELECT phase FROM critical_sections WHERE namespace = 'csr_restart.c'").query(String.class).single())
                .isEqualTo("COMMIT");
        try (ConfigurableApplicationContext restarted = startAnotherShardProcessOnTheSameDatabase()) {
            String url = "http://127.0.0.1:" + ((WebServerApplicationContext) restarted).getWebServer().getPort();
            CommandClient client = new CommandClient(Duration.ofSeconds(2), Duration.ofSeconds(60));
            BsonDocument shown = ExtendedJson.parse(HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create(url + "/actuator/shardingState")).build(), HttpResponse.BodyHandlers.ofString()).body());
            assertThat(shown.getArray("criticalSections")).extracting(s -> s.asDocument().getString("namespace").getValue())
                    .containsExactly("csr_restart.c");
            assertThat(shown.getArray("criticalSections").get(0).asDocument().getDocument("reason")).isEqualTo(reason("csr_restart.c"));

            BsonDocument blocked = client.run("shard", url, "csr_restart", insert(1));
            assertThat(StaleConfig.fromReply(blocked).wanted()).as("still blocked after the restart, until the wait timeout").isNull();

            BsonDocument unblocked = client.run("shard", url, "csr_restart", new BsonDocument("_shardsvrParticipantBlock", new BsonString("c"))
                    .append("blockType", new BsonString("Unblock")).append("reason", reason("csr_restart.c")));
            assertThat(unblocked.getNumber("ok").intValue()).isEqualTo(1);
            // a versioned read, which phase 2 blocked too: a write here would take oplog times from this second process's
            // clock, which the test process's clock may hand out again (a duplicate oplog key in a later test)
            assertThat(client.run("shard", url, "csr_restart", find()).getNumber("ok").intValue()).isEqualTo(1);
        } finally {
            block("csr_restart", "c", "Unblock"); // this process still holds it in memory
        }
        assertThat(jdbc.sql("SELECT count(*) FROM critical_sections WHERE namespace = 'csr_restart.c'").query(Long.class).single()).isZero();
    }

    /** A second shard process over this one's database (the "restarted" shard), waiting at most 1 s for a section. */
    private static ConfigurableApplicationContext startAnotherShardProcessOnTheSameDatabase() {
        Map<String, String> properties = new HashMap<>(EmbeddedInfra.shared().springProperties("shard_it"));
        properties.put("server.port", "0");
        properties.put("shardstore.config-url", CONFIG.url());
        properties.put("shardstore.shard.name", SHARD_NAME);
        properties.put("shardstore.shard.critical-section-timeout", "1s");
        // as arguments: they must win over application.yml, as a restarted process's command line does
        return new SpringApplicationBuilder(ShardServiceApplication.class)
                .run(properties.entrySet().stream().map(e -> "--" + e.getKey() + "=" + e.getValue()).toArray(String[]::new));
    }

    private org.bson.BsonArray sections() throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/shardingState")).build(),
                HttpResponse.BodyHandlers.ofString());
        return ExtendedJson.parse(response.body()).getArray("criticalSections");
    }
}
