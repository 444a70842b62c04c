package dev.shardstore.cluster.it;

import static dev.shardstore.cluster.it.ItSupport.waitUntil;
import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.cluster.Component;
import dev.shardstore.cluster.LocalCluster;
import dev.shardstore.cluster.bench.MigrationTimeline;
import dev.shardstore.cluster.bench.MigrationTimeline.Migration;
import dev.shardstore.cluster.router.RouterClient;
import dev.shardstore.contracts.bson.ExtendedJson;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Growing a running cluster (3 shards, ports offset by 3300, a round every second, 1 MB chunks set through the router's
 * {@code update} of {@code config.settings}): two ranged collections in two databases with different primary shards are
 * loaded with the balancer stopped, so each sits on its primary. Balancing of the second is disabled ({@code noBalance}
 * through an {@code update} of {@code config.collections}, as {@code sh.disableBalancing} does); the balancer spreads the
 * first over the 3 shards until compliant. The balancer service is killed and restarted: {@code numBalancerRounds} goes on
 * from the persisted count. Then a 4th shard is started and added ({@link LocalCluster#addShard}, what
 * {@code ./cluster add-shard} does) and the second collection's balancing enabled again: the balancer moves chunks of both
 * onto the new shard until compliant, with two migrations at once on disjoint shard pairs (the first collection's donor to
 * the new shard, the second's primary to another shard); every document is there exactly once.
 *
 * <p>Why two collections: a shard takes part in one migration at a time, so a single collection balanced over 3 shards
 * fills a 4th with one migration per round (the only shard below the ideal load is the new one); parallel migrations need
 * two donors and two recipients. Overlap is read from {@code config.changelog} (each donor's {@code moveChunk.start} to
 * its {@code moveChunk.commit}/{@code error}) and {@code config.actionlog} ({@code chunksMoved} per round).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class AddShardIT {
    private static final List<String> NAMESPACES = List.of("adda.items", "addb.items");
    private static final int DOCUMENTS = 16_000;
    private static final String PAD = "x".repeat(1000);

    private static LocalCluster cluster;
    @RegisterExtension
    static final ThreadDumpOnFailure THREAD_DUMPS = new ThreadDumpOnFailure(() -> cluster);
    private static RouterClient router;
    private static Instant shardAdded;

    @BeforeAll
    static void startCluster() throws Exception {
        // chunks count as settled for the auto-merger after 15 s instead of MongoDB's 300 s
        cluster = ItSupport.startWithFastBalancer("addshard", 3, 3300, "-Dshardstore.balancer.snapshot-history-window=15s",
                "-Dshardstore.shard.autosplit.settings-refresh-interval=1s");
        router = new RouterClient(cluster.routerUrl(1), Duration.ofMinutes(5));
        // the balancer alone places chunks here: the cases count on the chunks they split themselves (the auto-merger's
        // needs a chunk of 1,600+ keys on the primary), which the shards' auto-split would cut during the loads
        ok("config", "{\"update\": \"settings\", \"updates\": [{\"q\": {\"_id\": \"autosplit\"},"
                + " \"u\": {\"$set\": {\"enabled\": false}}, \"upsert\": true}]}");
        // no wait: a shard caches the settings per collection, read at the collection's first write, and none exists yet
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.stopAndDeleteData();
        }
    }

    private static BsonDocument ok(String db, String json) {
        return RouterClient.requireOk(json, router.run(db, ExtendedJson.parse(json)));
    }

    private static List<BsonDocument> find(String collection, String filter) {
        return ok("config", "{\"find\": \"" + collection + "\", \"filter\": " + filter + "}").getDocument("cursor").getArray("firstBatch")
                .stream().map(BsonValue::asDocument).toList();
    }

    private static Map<String, Long> chunksPerShard(String ns) {
        BsonValue uuid = find("collections", "{\"_id\": \"" + ns + "\"}").getFirst().get("uuid");
        Map<String, Long> perShard = new TreeMap<>();
        router.run("config", new BsonDocument("find", new BsonString("chunks")).append("filter", new BsonDocument("uuid", uuid)))
                .getDocument("cursor").getArray("firstBatch")
                .forEach(c -> perShard.merge(c.asDocument().getString("shard").getValue(), 1L, Long::sum));
        return perShard;
    }

    private static boolean compliant(String ns) {
        return ok("admin", "{\"balancerCollectionStatus\": \"" + ns + "\"}").getBoolean("balancerCompliant").getValue();
    }

    private static String primary(String db) {
        return find("databases", "{\"_id\": \"" + db + "\"}").getFirst().getString("primary").getValue();
    }

    @Test
    @Order(1)
    void aCollectionSpreadsOverThreeShardsWhileTheOtherIsNotBalanced() throws Exception {
        ok("admin", "{\"balancerStop\": 1}");
        BsonDocument chunkSize = ok("config", "{\"update\": \"settings\", \"updates\": [{\"q\": {\"_id\": \"chunksize\"},"
                + " \"u\": {\"$set\": {\"value\": 1}}, \"upsert\": true}]}");
        assertThat(chunkSize.getNumber("n").intValue()).isEqualTo(1);
        ok("admin", "{\"shardCollection\": \"adda.items\", \"key\": {\"k\": 1}}");
        ok("addb", "{\"insert\": \"seed\", \"documents\": [{\"_id\": 1}]}");
        if (primary("addb").equals(primary("adda"))) {
            String other = primary("adda").equals("shard1") ? "shard2" : "shard1";
            ok("admin", "{\"movePrimary\": \"addb\", \"to\": \"" + other + "\"}");
        }
        ok("admin", "{\"shardCollection\": \"addb.items\", \"key\": {\"k\": 1}}");
        assertThat(primary("addb")).isNotEqualTo(primary("adda"));
        for (String ns : NAMESPACES) {
            load(ns);
            assertThat(chunksPerShard(ns)).hasSize(1);
        }

        setNoBalance("addb.items", true);
        assertThat(find("collections", "{\"_id\": \"addb.items\"}").getFirst().getBoolean("noBalance").getValue()).isTrue();

        ok("admin", "{\"balancerStart\": 1}");
        waitUntil(() -> compliant("adda.items"), Duration.ofMinutes(10), "adda.items compliant on 3 shards");
        assertThat(chunksPerShard("adda.items").keySet()).containsExactlyInAnyOrder("shard1", "shard2", "shard3");
        assertEveryDocumentOnce("adda.items", List.of("shard1", "shard2", "shard3"));
        assertThat(chunksPerShard("addb.items")).as("noBalance: left on its primary").containsOnlyKeys(primary("addb"));
        List<Migration> migrations = MigrationTimeline.read(router);
        System.out.printf("3 shards: %d migrations, at most %d at once%n", migrations.size(), MigrationTimeline.maxOverlap(migrations));
    }

    /** {@code sh.disableBalancing(ns)} / {@code sh.enableBalancing(ns)}: an update of {@code config.collections}. */
    private static void setNoBalance(String ns, boolean noBalance) {
        BsonDocument reply = ok("config", "{\"update\": \"collections\", \"updates\": [{\"q\": {\"_id\": \"" + ns + "\"},"
                + " \"u\": {\"$set\": {\"noBalance\": " + noBalance + "}}}]}");
        assertThat(reply.getNumber("n").intValue()).isEqualTo(1);
    }

    @Test
    @Order(2)
    void theRoundCountSurvivesARestartOfTheBalancer() throws Exception {
        long before = ok("admin", "{\"balancerStatus\": 1}").getNumber("numBalancerRounds").longValue();
        assertThat(before).isPositive();
        cluster.killService("balancer");
        cluster.startService("balancer");
        waitUntil(() -> ok("admin", "{\"balancerStatus\": 1}").getNumber("numBalancerRounds").longValue() > before, Duration.ofMinutes(2),
                "a round counted after " + before);
    }

    @Test
    @Order(3)
    void aFourthShardReceivesChunksUntilBalancedAgain() throws Exception {
        shardAdded = Instant.now();
        Component shard4 = cluster.addShard();
        assertThat(shard4.name()).isEqualTo("shard4");
        assertThat(ok("admin", "{\"listShards\": 1}").getArray("shards")).extracting(s -> s.asDocument().getString("_id").getValue())
                .containsExactlyInAnyOrder("shard1", "shard2", "shard3", "shard4");
        setNoBalance("addb.items", false);

        waitUntil(() -> NAMESPACES.stream().allMatch(ns -> chunksPerShard(ns).containsKey("shard4") && compliant(ns)),
                Duration.ofMinutes(10), "both collections compliant again, with chunks on shard4");
        List<String> all = List.of("shard1", "shard2", "shard3", "shard4");
        for (String ns : NAMESPACES) {
            assertThat(chunksPerShard(ns).keySet()).as(ns).containsExactlyInAnyOrderElementsOf(all);
            assertEveryDocumentOnce(ns, all);
        }
        List<Migration> afterAdd = MigrationTimeline.read(router).stream().filter(m -> m.start().isAfter(shardAdded)).toList();
        assertThat(afterAdd).anySatisfy(m -> assertThat(m.to()).isEqualTo("shard4"));
        System.out.printf("after adding shard4: %d migrations, at most %d at once, balanced in %d s%n", afterAdd.size(), MigrationTimeline.maxOverlap(afterAdd),
                Duration.between(shardAdded, Instant.now()).toSeconds());
        assertThat(MigrationTimeline.maxOverlap(afterAdd)).as("two migrations on disjoint shard pairs at once").isGreaterThanOrEqualTo(2);
        assertThat(find("actionlog", "{\"what\": \"balancer.round\"}"))
                .anySatisfy(e -> assertThat(e.getDocument("details").getNumber("chunksMoved").longValue()).isGreaterThanOrEqualTo(2));
    }

    @Test
    @Order(4)
    void configureCollectionBalancingSetsTheCollectionsChunkSize() {
        ok("admin", "{\"configureCollectionBalancing\": \"adda.items\", \"chunkSize\": 2, \"enableAutoMerger\": false}");
        assertThat(ok("admin", "{\"balancerCollectionStatus\": \"adda.items\"}").getNumber("chunkSize").doubleValue()).isEqualTo(2.0);
        assertThat(ok("admin", "{\"balancerCollectionStatus\": \"addb.items\"}").getNumber("chunkSize").doubleValue()).isEqualTo(1.0);
        BsonDocument entry = find("collections", "{\"_id\": \"adda.items\"}").getFirst();
        assertThat(entry.getNumber("maxChunkSizeBytes").longValue()).isEqualTo(2L * 1024 * 1024);
        assertThat(entry.getBoolean("enableAutoMerger").getValue()).isFalse();
        BsonDocument refused = router.run("admin", ExtendedJson.parse("{\"configureCollectionBalancing\": \"adda.items\", \"defragmentCollection\": true}"));
        assertThat(refused.getNumber("code").intValue()).isEqualTo(238);
        assertThat(refused.getString("errmsg").getValue()).contains("defragmentCollection");
    }

    @Test
    @Order(5)
    void theAutoMergerJoinsSmallSettledChunksOfOneShard() throws Exception {
        // cut a chunk of 1,600+ keys on the primary into 16 pieces of 0.1 MB or more: they keep its placement history
        // (settled long ago), so the auto-merger joins them again, as far as 1 MB chunks allow (only pieces between two
        // splitVector points merge, so pieces much smaller than a chunk are needed for a merge to be certain)
        String primary = primary("addb");
        BsonValue uuid = find("collections", "{\"_id\": \"addb.items\"}").getFirst().get("uuid");
        BsonDocument chunk = router.run("config", new BsonDocument("find", new BsonString("chunks")).append("filter", new BsonDocument("uuid", uuid)))
                .getDocument("cursor").getArray("firstBatch").stream().map(BsonValue::asDocument)
                .filter(c -> c.getString("shard").getValue().equals(primary) && c.getDocument("min").isNumber("k")
                        && (c.getDocument("max").isNumber("k") ? c.getDocument("max").getNumber("k").intValue() : DOCUMENTS)
                        - c.getDocument("min").getNumber("k").intValue() >= 1_600)
                .findFirst().orElseThrow(() -> new AssertionError("no chunk of 1,600+ keys on the primary " + primary));
        ok("admin", "{\"balancerStop\": 1}"); // no round merges a piece before the count below is taken
        int low = chunk.getDocument("min").getNumber("k").intValue();
        int high = chunk.getDocument("max").isNumber("k") ? chunk.getDocument("max").getNumber("k").intValue() : DOCUMENTS;
        for (int i = 1; i < 16; i++) {
            ok("admin", "{\"split\": \"addb.items\", \"middle\": {\"k\": " + (low + (high - low) * i / 16) + "}}");
        }
        long afterSplit = chunksPerShard("addb.items").get(primary);
        ok("admin", "{\"balancerStart\": 1}");
        waitUntil(() -> chunksPerShard("addb.items").get(primary) < afterSplit, Duration.ofMinutes(3), "merges on " + primary);
        // a round's report is kept when the round ends, which may be after its merges commit (its migrations run last)
        waitUntil(() -> ItSupport.get(cluster.url("balancer") + "/actuator/balancer").contains("mergeChunks"), Duration.ofMinutes(1),
                "the merging round's report on /actuator/balancer");
        assertEveryDocumentOnce("addb.items", List.of("shard1", "shard2", "shard3", "shard4"));
        assertThat(compliant("addb.items")).isTrue();
    }

    /** {@value #DOCUMENTS} documents of about 1 KB with {@code k} = 0..N-1, in batches of 500. */
    private static void load(String ns) {
        String db = ns.substring(0, ns.indexOf('.'));
        for (int from = 0; from < DOCUMENTS; from += 500) {
            BsonArray batch = new BsonArray();
            for (int k = from; k < from + 500; k++) {
                batch.add(new BsonDocument("_id", new BsonInt32(k)).append("k", new BsonInt32(k)).append("pad", new BsonString(PAD)));
            }
            BsonDocument reply = RouterClient.requireOk("insert " + ns, router.run(db, new BsonDocument("insert", new BsonString("items"))
                    .append("documents", batch)));
            assertThat(reply.getNumber("n").intValue()).isEqualTo(500);
        }
    }

    /** The count through the router, the owned documents summed over the shards and the distinct keys are all N. */
    private static void assertEveryDocumentOnce(String ns, List<String> shards) {
        String db = ns.substring(0, ns.indexOf('.'));
        assertThat(ok(db, "{\"count\": \"items\"}").getNumber("n").longValue()).as(ns + " count").isEqualTo(DOCUMENTS);
        long owned = ItSupport.ownedOnShards(cluster, shards, ns);
        assertThat(owned).as(ns + ": each document owned by exactly one shard").isEqualTo(DOCUMENTS);
        assertThat(ok(db, "{\"distinct\": \"items\", \"key\": \"k\"}").getArray("values")).as(ns + " distinct keys").hasSize(DOCUMENTS);
    }
}
