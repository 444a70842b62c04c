package dev.shardstore.cluster.it;

import static dev.shardstore.cluster.it.ItSupport.get;
import static dev.shardstore.cluster.it.ItSupport.waitUntil;
import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.cluster.LocalCluster;
import dev.shardstore.cluster.router.RouterClient;
import dev.shardstore.contracts.bson.ExtendedJson;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Dropping a sharded collection end to end (docs/sharding-protocol.md, "Dropping a sharded collection") on the
 * shared cluster ({@link OnSharedCluster}: separate processes, 2 shards): the config service's
 * dropCollection coordinator is paused or crashed (kill -9 through a crash fail point) at each phase boundary.
 * <ul>
 *   <li>an insert through the router while the drop is paused is acknowledged once and readable exactly once after
 *       the drop (before the critical section it was acknowledged by a shard that re-created the dropped collection,
 *       and invisible);</li>
 *   <li>a config service killed at any boundary finishes the drop by itself after its restart: gone from the catalog
 *       and from every shard, no section left held, new inserts work;</li>
 *   <li>a shard killed while it holds the drop's section still holds it after its restart, until the coordinator
 *       releases it.</li>
 * </ul>
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@OnSharedCluster
class DropCollectionIT {
    private static final String DB = "dropit";
    private static final List<String> SHARDS = List.of("shard1", "shard2");
    private static final int DURING_COUNT = 8;
    private static final String DURING = String.join(", ", java.util.stream.IntStream.range(0, DURING_COUNT)
            .mapToObj(i -> "{\"_id\": \"during-" + i + "\"}").toList());

    private static LocalCluster cluster;
    @RegisterExtension
    static final ThreadDumpOnFailure THREAD_DUMPS = new ThreadDumpOnFailure(() -> cluster);
    private static FailPointClient failPoints;
    private static RouterClient router;
    private static MigrationCluster shared;

    @BeforeAll
    static void onSharedCluster(MigrationCluster sharedCluster) {
        shared = sharedCluster;
        cluster = shared.cluster;
        failPoints = shared.failPoints;
        router = new RouterClient(cluster.routerUrl(1), Duration.ofSeconds(120));
    }

    @Test
    @Order(1)
    void anInsertDuringThePausedDropIsReadableExactlyOnceAfterIt() throws Exception {
        for (String boundary : List.of("afterBlock", "afterCatalogCommit", "afterDataDrop", "afterRelease")) {
            String coll = "paused_" + boundary;
            shardWithDocuments(coll);
            String failPoint = "dropCollection." + boundary;
            long entered = failPoints.configure("config", failPoint, "pause");

            CompletableFuture<BsonDocument> drop = CompletableFuture.supplyAsync(
                    () -> router.run(DB, new BsonDocument("drop", new BsonString(coll))), Thread.ofVirtual()::start);
            CompletableFuture<BsonDocument> insert;
            try {
                failPoints.waitFor("config", failPoint, entered + 1);
                // several documents, so that some belong to chunks of each shard (the primary alone would see its own)
                insert = CompletableFuture.supplyAsync(() -> router.run(DB, ExtendedJson.parse(
                        "{\"insert\": \"" + coll + "\", \"ordered\": false, \"documents\": [" + DURING + "]}")), Thread.ofVirtual()::start);
                if (!boundary.equals("afterRelease")) {
                    try {
                        BsonDocument early = insert.get(1, TimeUnit.SECONDS);
                        throw new AssertionError(boundary + ": the insert should wait for the drop's critical section, got " + early.toJson());
                    } catch (java.util.concurrent.TimeoutException expected) {
                        // it waits on its shards
                    }
                }
            } finally {
                failPoints.disable("config", failPoint); // the cluster is shared: no fail point stays on
            }

            RouterClient.requireOk("drop " + coll, drop.get(60, TimeUnit.SECONDS));
            BsonDocument inserted = RouterClient.requireOk("insert during the drop " + boundary, insert.get(120, TimeUnit.SECONDS));
            assertThat(inserted.getNumber("n").intValue()).as("%s: %s", boundary, inserted.toJson()).isEqualTo(DURING_COUNT);
            for (int i = 0; i < DURING_COUNT; i++) {
                assertThat(count(coll, "{\"_id\": \"during-" + i + "\"}")).as("%s: acknowledged during-%d is readable exactly once", boundary, i)
                        .isEqualTo(1);
            }
            assertThat(count(coll, "{}")).as("%s: the documents before the drop are gone", boundary).isEqualTo(DURING_COUNT);
            assertThat(catalogEntry(coll)).as(boundary).isEmpty();
            assertNoSectionHeld(coll);
        }
    }

    @Test
    @Order(2)
    void aConfigServiceKilledAtAnyPhaseBoundaryFinishesTheDropAfterItsRestart() throws Exception {
        for (String boundary : List.of("afterStart", "afterBlock", "afterCatalogCommit", "afterDataDrop", "afterRelease")) {
            String coll = "crashed_" + boundary;
            shardWithDocuments(coll);
            failPoints.configure("config", "dropCollection." + boundary, "crash");

            BsonDocument reply = router.run(DB, new BsonDocument("drop", new BsonString(coll)));
            assertThat(RouterClient.isOk(reply)).as("%s: the config service died under the drop: %s", boundary, reply.toJson()).isFalse();
            // the router sees the connection drop while the halted JVM may still be exiting
            waitUntil(() -> !shared.running("config"), Duration.ofSeconds(30), boundary + ": the config service is gone");
            cluster.startService("config");

            waitUntil(() -> catalogEntry(coll).isEmpty() && SHARDS.stream().allMatch(s -> !shardHas(s, coll) && sectionsOf(s, coll).isEmpty()),
                    Duration.ofSeconds(90), boundary + ": the drop finishes by itself");
            assertThat(count(coll, "{}")).as(boundary).isZero();
            RouterClient.requireOk("insert after the drop", router.run(DB,
                    ExtendedJson.parse("{\"insert\": \"" + coll + "\", \"documents\": [{\"_id\": \"after\"}]}")));
            assertThat(count(coll, "{\"_id\": \"after\"}")).as(boundary).isEqualTo(1);
        }
    }

    @Test
    @Order(3)
    void aShardKilledInsideTheDropsSectionStillHoldsItAfterItsRestartUntilTheCoordinatorReleasesIt() throws Exception {
        String coll = "shardkilled";
        shardWithDocuments(coll);
        String failPoint = "dropCollection.afterBlock";
        long entered = failPoints.configure("config", failPoint, "pause");
        CompletableFuture<BsonDocument> drop = CompletableFuture.supplyAsync(() -> router.run(DB, new BsonDocument("drop", new BsonString(coll))), Thread.ofVirtual()::start);
        try {
            failPoints.waitFor("config", failPoint, entered + 1);
            assertThat(sectionsOf("shard2", coll)).hasSize(1);

            cluster.killService("shard2");
            cluster.startService("shard2");

            List<BsonDocument> restored = sectionsOf("shard2", coll);
            assertThat(restored).as("the section is restored before the shard serves").hasSize(1);
            assertThat(restored.getFirst().getString("blocks").getValue()).isEqualTo("ReadsAndWrites");
            assertThat(restored.getFirst().getDocument("reason").getString("command").getValue()).isEqualTo("dropCollection");
            assertThat(drop).as("the coordinator is still paused").isNotDone();
            assertThat(sectionsOf("shard2", coll)).as("still held: only the coordinator releases it").hasSize(1);
        } finally {
            failPoints.disable("config", failPoint);
        }
        RouterClient.requireOk("drop " + coll, drop.get(90, TimeUnit.SECONDS));
        for (String shard : SHARDS) {
            assertThat(sectionsOf(shard, coll)).as(shard).isEmpty();
            assertThat(shardHas(shard, coll)).as(shard).isFalse();
        }
        RouterClient.requireOk("insert after the drop", router.run(DB,
                ExtendedJson.parse("{\"insert\": \"" + coll + "\", \"documents\": [{\"_id\": \"after\"}]}")));
        assertThat(count(coll, "{}")).isEqualTo(1);
    }

    // --- helpers ---------------------------------------------------------------------------------------------

    /** Shards {@code DB.coll} on a hashed {@code _id} (chunks on both shards) and inserts 40 documents. */
    private static void shardWithDocuments(String coll) {
        ok("admin", "{\"shardCollection\": \"" + DB + "." + coll + "\", \"key\": {\"_id\": \"hashed\"}}");
        BsonArray documents = new BsonArray();
        for (int i = 0; i < 40; i++) {
            documents.add(new BsonDocument("_id", new BsonInt32(i)));
        }
        BsonDocument inserted = RouterClient.requireOk("insert", router.run(DB, new BsonDocument("insert", new BsonString(coll))
                .append("documents", documents)));
        assertThat(inserted.getNumber("n").intValue()).isEqualTo(40);
        for (String shard : SHARDS) {
            assertThat(shardHas(shard, coll)).as("%s has chunks of %s", shard, coll).isTrue();
        }
    }

    private static BsonDocument ok(String db, String json) {
        return RouterClient.requireOk(json, router.run(db, ExtendedJson.parse(json)));
    }

    private static long count(String coll, String query) {
        return ok(DB, "{\"count\": \"" + coll + "\", \"query\": " + query + "}").getNumber("n").longValue();
    }

    /** {@code config.collections} entry of {@code DB.coll}, read through the router. */
    private static List<BsonValue> catalogEntry(String coll) {
        return ok("config", "{\"find\": \"collections\", \"filter\": {\"_id\": \"" + DB + "." + coll + "\"}}")
                .getDocument("cursor").getArray("firstBatch");
    }

    /** Whether the shard has the collection (an unversioned listCollections on the shard itself). */
    private static boolean shardHas(String shard, String coll) {
        return !ItSupport.onService(cluster, shard, DB, ExtendedJson.parse("{\"listCollections\": 1, \"filter\": {\"name\": \""
                + coll + "\"}}")).getDocument("cursor").getArray("firstBatch").isEmpty();
    }

    /** The critical sections {@code shard} holds for {@code DB.coll}, from its {@code /actuator/shardingState}. */
    private static List<BsonDocument> sectionsOf(String shard, String coll) {
        BsonDocument state = ExtendedJson.parse(get(cluster.url(shard) + "/actuator/shardingState"));
        return state.getArray("criticalSections").stream().map(BsonValue::asDocument)
                .filter(s -> s.getString("namespace").getValue().equals(DB + "." + coll)).toList();
    }

    private static void assertNoSectionHeld(String coll) {
        for (String shard : SHARDS) {
            assertThat(sectionsOf(shard, coll)).as("%s holds no section of %s", shard, coll).isEmpty();
        }
    }



}
