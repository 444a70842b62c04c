package dev.shardstore.cluster.it;

import static dev.shardstore.cluster.it.ItSupport.get;
import static dev.shardstore.cluster.it.ItSupport.waitUntil;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.shardstore.cluster.LocalCluster;
import dev.shardstore.cluster.router.RouterClient;
import dev.shardstore.contracts.bson.ExtendedJson;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * movePrimary end to end (docs/sharding-protocol.md, "Moving a database's primary shard") on the shared cluster
 * ({@link OnSharedCluster}: 2 shards, 2 routers). In every case a writer inserts into an
 * unsharded collection through router 1 while the primary moves, and afterwards every acknowledged insert is readable
 * exactly once through both routers, the data is on the new primary only, and the database version's {@code lastMod}
 * went up by one:
 * <ul>
 *   <li>an undisturbed move, with router 2's catalog events stopped so that its cache still names the old primary: it is
 *       corrected by StaleDbVersion alone; a sharded collection of the database stays where its chunks are;</li>
 *   <li>the config service killed (crash fail point, as kill -9) after the clone and after the commit: the restarted
 *       config service finishes the move by itself;</li>
 *   <li>the old primary killed inside its database critical section: restarted, it still blocks (the section is
 *       restored before it serves) until the coordinator goes on.</li>
 * </ul>
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@OnSharedCluster
class MovePrimaryIT {
    private static final List<String> SHARDS = List.of("shard1", "shard2");
    private static final String COLL = "events";
    private static final int PRELOADED = 1500;

    private static LocalCluster cluster;
    @RegisterExtension
    static final ThreadDumpOnFailure THREAD_DUMPS = new ThreadDumpOnFailure(() -> cluster);
    private static FailPointClient failPoints;
    private static RouterClient router1;
    private static RouterClient router2;
    private static MigrationCluster shared;

    @BeforeAll
    static void onSharedCluster(MigrationCluster sharedCluster) {
        shared = sharedCluster;
        cluster = shared.cluster;
        failPoints = shared.failPoints;
        router1 = new RouterClient(cluster.routerUrl(1), Duration.ofSeconds(120));
        router2 = new RouterClient(cluster.routerUrl(2), Duration.ofSeconds(120));
    }

    @Test
    @Order(1)
    void aMoveUnderAConcurrentWriterLosesNothingAndAStaleRouterIsCorrectedByStaleDbVersion() throws Exception {
        String db = "mp_writer";
        preload(db);
        ok(router1, db, "{\"create\": \"withopts\", \"storageEngine\": {\"wiredTiger\": {}}}");
        ok(router1, "admin", "{\"shardCollection\": \"" + db + ".sharded\", \"key\": {\"_id\": \"hashed\"}}");
        ok(router1, db, "{\"insert\": \"sharded\", \"documents\": [" + String.join(", ", java.util.stream.IntStream.range(0, 40)
                .mapToObj(i -> "{\"_id\": " + i + "}").toList()) + "]}");
        Map<String, Long> shardedBefore = shardCounts(db, "sharded");
        String from = primaryOf(db);
        String to = other(from);
        BsonDocument before = databaseEntry(db);

        count(router2, db, "{}"); // router 2 caches the placement, then hears no more about it
        ItSupport.setCatalogEvents(router2, "stopped");
        try {
            double router2Retries = staleDbRetries(router2);
            try (Writer writer = Writer.start(router1, db)) {
                writer.awaitAcknowledged(20);
                long entered = failPoints.configure("config", "movePrimary.afterBlockWrites", "pause");
                CompletableFuture<BsonDocument> move = movePrimaryAsync(db, to);
                long acknowledged;
                try {
                    failPoints.waitFor("config", "movePrimary.afterBlockWrites", entered + 1);
                    // the reply of a write that committed before the section may still be on its way: the count stands still
                    // over one 500 ms poll once it has arrived
                    AtomicLong last = new AtomicLong(-1);
                    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500)).until(() -> {
                        long now = writer.acknowledged();
                        return last.getAndSet(now) == now;
                    });
                    acknowledged = last.get();
                    await("writes wait while the old primary blocks them").during(Duration.ofMillis(1500)).atMost(Duration.ofSeconds(10))
                            .until(() -> writer.acknowledged() == acknowledged);
                } finally {
                    failPoints.disable("config", "movePrimary.afterBlockWrites");
                }
                RouterClient.requireOk("movePrimary", move.get(120, TimeUnit.SECONDS));
                writer.awaitAcknowledged(acknowledged + 20); // the writer goes on, on the new primary
            }
            assertMoved(db, from, to, before);
            assertThat(shardCounts(db, "sharded")).as("a sharded collection stays where its chunks are").isEqualTo(shardedBefore);
            assertThat(listIndexNames(to, db)).contains("x_1");
            assertThat(collectionEntry(to, db, "withopts").getDocument("options"))
                    .isEqualTo(ExtendedJson.parse("{\"storageEngine\": {\"wiredTiger\": {}}}"));
            assertThat(staleDbRetries(router2)).as("router 2 was corrected through StaleDbVersion").isGreaterThan(router2Retries);
        } finally {
            ItSupport.setCatalogEvents(router2, "running"); // the cluster is shared: router 2 hears the catalog again
        }
    }

    @Test
    @Order(2)
    void aConfigServiceKilledAfterTheCloneOrAfterTheCommitFinishesTheMoveAfterItsRestart() throws Exception {
        for (String boundary : List.of("afterClone", "afterCommit")) {
            String db = "mp_config_" + boundary.toLowerCase();
            preload(db);
            String from = primaryOf(db);
            String to = other(from);
            BsonDocument before = databaseEntry(db);
            try (Writer writer = Writer.start(router1, db)) {
                writer.awaitAcknowledged(10);
                failPoints.configure("config", "movePrimary." + boundary, "crash");
                BsonDocument reply = router1.run("admin", movePrimaryCommand(db, to));
                assertThat(RouterClient.isOk(reply)).as("%s: the config service died under the move: %s", boundary, reply.toJson()).isFalse();
                waitUntil(() -> !shared.running("config"), Duration.ofSeconds(30), boundary + ": the config service is gone");
                cluster.startService("config");
                waitUntil(() -> primaryOf(db).equals(to) && !shardHas(from, db, COLL) && sectionsOf(from, db).isEmpty(),
                        Duration.ofSeconds(90), boundary + ": the move finishes by itself");
                long acknowledged = writer.acknowledged();
                writer.awaitAcknowledged(acknowledged + 10);
            }
            assertMoved(db, from, to, before);
        }
    }

    @Test
    @Order(3)
    void theOldPrimaryKilledInsideItsSectionStillBlocksAfterItsRestartAndTheMoveCompletes() throws Exception {
        String db = "mp_donor_killed";
        preload(db);
        String from = primaryOf(db);
        String to = other(from);
        BsonDocument before = databaseEntry(db);
        try (Writer writer = Writer.start(router1, db)) {
            writer.awaitAcknowledged(10);
            long entered = failPoints.configure("config", "movePrimary.afterClone", "pause");
            CompletableFuture<BsonDocument> move = movePrimaryAsync(db, to);
            try {
                failPoints.waitFor("config", "movePrimary.afterClone", entered + 1);
                cluster.killService(from);
                cluster.startService(from);
                List<BsonDocument> restored = sectionsOf(from, db);
                assertThat(restored).as("the database's section is restored before the shard serves").hasSize(1);
                assertThat(restored.getFirst().getString("blocks").getValue()).isEqualTo("Writes");
                assertThat(restored.getFirst().getDocument("reason").getString("command").getValue()).isEqualTo("movePrimary");
            } finally {
                failPoints.disable("config", "movePrimary.afterClone");
            }
            move.get(150, TimeUnit.SECONDS); // its reply may be a timeout: the coordinator goes on either way
            waitUntil(() -> primaryOf(db).equals(to) && !shardHas(from, db, COLL) && sectionsOf(from, db).isEmpty(),
                    Duration.ofSeconds(90), "the move finishes");
            long acknowledged = writer.acknowledged();
            writer.awaitAcknowledged(acknowledged + 10);
        }
        assertMoved(db, from, to, before);
    }

    // --- the checks ---------------------------------------------------------------------------------------------

    /**
     * The move is committed ({@code to} primary, same uuid, {@code lastMod + 1}) and complete: the preloaded documents
     * and every insert the writer had acknowledged are readable exactly once through both routers, and {@code to} holds
     * the collection while {@code from} no longer does.
     */
    private static void assertMoved(String db, String from, String to, BsonDocument before) {
        BsonDocument after = databaseEntry(db);
        assertThat(after.getString("primary").getValue()).isEqualTo(to);
        assertThat(after.getDocument("version").get("uuid")).isEqualTo(before.getDocument("version").get("uuid"));
        assertThat(after.getDocument("version").getNumber("lastMod").intValue())
                .isEqualTo(before.getDocument("version").getNumber("lastMod").intValue() + 1);
        Set<String> acknowledged = Writer.ACKNOWLEDGED.getOrDefault(db, Set.of());
        for (RouterClient router : List.of(router1, router2)) {
            Map<String, Integer> seen = new HashMap<>();
            for (BsonValue d : findAll(router, db)) {
                seen.merge(d.asDocument().get("_id").toString(), 1, Integer::sum);
            }
            assertThat(seen.values()).as("%s: no document twice", router.url()).allMatch(n -> n == 1);
            for (int i = 0; i < PRELOADED; i++) {
                assertThat(seen).as("%s: preloaded %d", router.url(), i).containsKey(new BsonInt32(i).toString());
            }
            for (String id : acknowledged) {
                assertThat(seen).as("%s: acknowledged %s is readable", router.url(), id).containsKey(new BsonString(id).toString());
            }
        }
        assertThat(shardHas(to, db, COLL)).as("the new primary holds the collection").isTrue();
        assertThat(shardHas(from, db, COLL)).as("the old primary's copy is dropped").isFalse();
        assertThat(sectionsOf(from, db)).as("no section left on the old primary").isEmpty();
    }

    /** Creates {@code db} (its primary is the emptier shard) with {@value #PRELOADED} documents and an index on x. */
    private static void preload(String db) {
        for (int start = 0; start < PRELOADED; start += 500) {
            BsonArray documents = new BsonArray();
            for (int i = start; i < start + 500; i++) {
                documents.add(new BsonDocument("_id", new BsonInt32(i)).append("x", new BsonInt32(i % 7)));
            }
            RouterClient.requireOk("preload", router1.run(db, new BsonDocument("insert", new BsonString(COLL)).append("documents", documents)));
        }
        ok(router1, db, "{\"createIndexes\": \"" + COLL + "\", \"indexes\": [{\"key\": {\"x\": 1}, \"name\": \"x_1\"}]}");
    }

    /** Inserts {@code {_id: "<db>-<n>"}} one at a time through a router until closed, recording what was acknowledged. */
    private static final class Writer implements AutoCloseable {
        static final Map<String, Set<String>> ACKNOWLEDGED = new ConcurrentHashMap<>();
        private static final int MAX_INSERTS = 20_000;

        private final Set<String> acknowledged = ConcurrentHashMap.newKeySet();
        private final AtomicBoolean stop = new AtomicBoolean();
        private final CompletableFuture<Void> done;

        private Writer(RouterClient router, String db) {
            ACKNOWLEDGED.put(db, acknowledged);
            done = CompletableFuture.runAsync(() -> {
                for (int n = 0; n < MAX_INSERTS && !stop.get(); n++) {
                    String id = db + "-" + n;
                    try {
                        BsonDocument reply = router.run(db, new BsonDocument("insert", new BsonString(COLL))
                                .append("documents", new BsonArray(List.of(new BsonDocument("_id", new BsonString(id))))));
                        if (RouterClient.isOk(reply) && reply.getNumber("n").intValue() == 1) {
                            acknowledged.add(id);
                        }
                    } catch (RuntimeException e) { // the router is unreachable for a moment: not acknowledged
                        awaitReachable(router);
                    }
                }
            }, Thread.ofVirtual()::start);
        }

        static Writer start(RouterClient router, String db) {
            return new Writer(router, db);
        }

        long acknowledged() {
            return acknowledged.size();
        }

        void awaitAcknowledged(long n) throws InterruptedException {
            waitUntil(() -> acknowledged.size() >= n, Duration.ofSeconds(90), "the writer has " + n + " acknowledged inserts");
        }

        @Override
        public void close() throws Exception {
            stop.set(true);
            done.get(180, TimeUnit.SECONDS);
        }

        /** Until {@code router} answers a ping again, or the writer is closed meanwhile. */
        private void awaitReachable(RouterClient router) {
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(100)).ignoreExceptionsInstanceOf(RuntimeException.class)
                    .until(() -> stop.get() || RouterClient.isOk(router.run("admin", new BsonDocument("ping", new BsonInt32(1)))));
        }
    }

    // --- helpers ------------------------------------------------------------------------------------------------

    private static BsonDocument movePrimaryCommand(String db, String to) {
        return new BsonDocument("movePrimary", new BsonString(db)).append("to", new BsonString(to));
    }

    private static CompletableFuture<BsonDocument> movePrimaryAsync(String db, String to) {
        return CompletableFuture.supplyAsync(() -> router1.run("admin", movePrimaryCommand(db, to)), Thread.ofVirtual()::start);
    }

    private static BsonDocument ok(RouterClient router, String db, String json) {
        return RouterClient.requireOk(json, router.run(db, ExtendedJson.parse(json)));
    }

    private static long count(RouterClient router, String db, String query) {
        return ok(router, db, "{\"count\": \"" + COLL + "\", \"query\": " + query + "}").getNumber("n").longValue();
    }

    /** Every document of {@code db.events} through {@code router} (find and getMores). */
    private static List<BsonValue> findAll(RouterClient router, String db) {
        BsonDocument cursor = ok(router, db, "{\"find\": \"" + COLL + "\", \"batchSize\": 5000}").getDocument("cursor");
        List<BsonValue> all = new ArrayList<>(cursor.getArray("firstBatch"));
        while (cursor.getNumber("id").longValue() != 0) {
            cursor = RouterClient.requireOk("getMore", router.run(db, new BsonDocument("getMore", new BsonInt64(cursor.getNumber("id").longValue()))
                    .append("collection", new BsonString(COLL)).append("batchSize", new BsonInt32(5000)))).getDocument("cursor");
            all.addAll(cursor.getArray("nextBatch"));
        }
        return all;
    }

    /** {@code config.databases} entry of {@code db}, read through router 1. */
    private static BsonDocument databaseEntry(String db) {
        return ok(router1, "config", "{\"find\": \"databases\", \"filter\": {\"_id\": \"" + db + "\"}}")
                .getDocument("cursor").getArray("firstBatch").get(0).asDocument();
    }

    private static String primaryOf(String db) {
        return databaseEntry(db).getString("primary").getValue();
    }

    private static String other(String shard) {
        return SHARDS.stream().filter(s -> !s.equals(shard)).findFirst().orElseThrow();
    }

    /** Documents of {@code db.coll} on each shard (unversioned counts on the shards themselves). */
    private static Map<String, Long> shardCounts(String db, String coll) {
        Map<String, Long> counts = new HashMap<>();
        for (String shard : SHARDS) {
            counts.put(shard, ItSupport.onService(cluster, shard, db,
                    new BsonDocument("count", new BsonString(coll))).getNumber("n").longValue());
        }
        return counts;
    }

    /** The shard's listCollections entry of {@code coll} (unversioned). */
    private static BsonDocument collectionEntry(String shard, String db, String coll) {
        BsonArray found = ItSupport.onService(cluster, shard, db,
                ExtendedJson.parse("{\"listCollections\": 1, \"filter\": {\"name\": \"" + coll + "\"}}")).getDocument("cursor").getArray("firstBatch");
        return found.isEmpty() ? new BsonDocument() : found.get(0).asDocument();
    }

    private static boolean shardHas(String shard, String db, String coll) {
        return !collectionEntry(shard, db, coll).isEmpty();
    }

    private static List<String> listIndexNames(String shard, String db) {
        return ItSupport.onService(cluster, shard, db,
                new BsonDocument("listIndexes", new BsonString(COLL))).getDocument("cursor").getArray("firstBatch").stream()
                .map(i -> i.asDocument().getString("name").getValue()).toList();
    }

    /** The database critical section {@code shard} holds for {@code db}, from its {@code /actuator/shardingState}. */
    private static List<BsonDocument> sectionsOf(String shard, String db) {
        BsonDocument state = ExtendedJson.parse(get(cluster.url(shard) + "/actuator/shardingState"));
        return state.getArray("criticalSections").stream().map(BsonValue::asDocument)
                .filter(s -> s.getString("namespace").getValue().equals(db)).toList();
    }

    /** The router's {@code shardstore.router.stale.retries{kind=database}} counter. */
    private static double staleDbRetries(RouterClient router) {
        BsonDocument metric = ExtendedJson.parse(get(router.url() + "/actuator/metrics/shardstore.router.stale.retries?tag=kind:database"));
        return metric.getArray("measurements").get(0).asDocument().getNumber("value").doubleValue();
    }




}
