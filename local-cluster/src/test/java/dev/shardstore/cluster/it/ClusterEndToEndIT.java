package dev.shardstore.cluster.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.shardstore.cluster.LocalCluster;
import dev.shardstore.cluster.RepoLayout;
import dev.shardstore.cluster.load.BulkLoader;
import dev.shardstore.cluster.load.LoadListener;
import dev.shardstore.cluster.load.LoadReport;
import dev.shardstore.cluster.router.RouterClient;
import dev.shardstore.cluster.router.RouterException;
import dev.shardstore.contracts.bson.ExtendedJson;
import java.net.http.HttpTimeoutException;
import dev.shardstore.contracts.namespace.Namespace;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The foundation end to end, on the shared cluster of separate processes ({@link OnSharedCluster}: embedded
 * PostgreSQL, KRaft Kafka, config, 2 shards, 2 routers, balancer, resharding, sessions). Loads the whole cities sample
 * through a router and checks counts and a per-country aggregation against figures computed from the file, does a
 * CRUD round trip, reads the
 * catalog through mongos-style config collections, crosses two routers over a drop and re-create, kills the primary shard under a write load (the router must answer
 * with a clear error, not hang, and every acknowledged write must be readable after the restart), and
 * kills Kafka so that a stale router can only be corrected by the shard's version check.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@OnSharedCluster
// after the other sharing classes: killing Kafka loses catalog events, which no later class should have to live with
@Order(OnSharedCluster.ORDER + 1)
class ClusterEndToEndIT {
    private static final Path CITIES = RepoLayout.detect().root().resolve("data/cities.json.gz");
    private static final long CITIES_TOTAL = 171_075;

    private static LocalCluster cluster;
    private static RouterClient router1;
    private static RouterClient router2;

    @BeforeAll
    static void onSharedCluster(MigrationCluster shared) {
        cluster = shared.cluster;
        router1 = new RouterClient(cluster.routerUrl(1), Duration.ofSeconds(60));
        router2 = new RouterClient(cluster.routerUrl(2), Duration.ofSeconds(60));
    }

    private static BsonDocument cmd(String json) {
        return ExtendedJson.parse(json);
    }

    private static BsonDocument ok(RouterClient router, String db, String json) {
        return RouterClient.requireOk(json, router.run(db, cmd(json)));
    }

    private static long count(RouterClient router, String db, String json) {
        return ok(router, db, json).getNumber("n").longValue();
    }

    @Test
    @Order(1)
    void theWholeCitiesSampleLoadsThroughTheRouterAndCountsMatchTheFile() {
        LoadReport report = new BulkLoader(router1, 1000, 4).load(CITIES, Namespace.parse("geo.cities"), LoadListener.NONE);
        assertThat(report.failed()).isZero();
        assertThat(report.inserted()).isEqualTo(CITIES_TOTAL);

        Map<String, Long> expected = CitiesFile.countsByCountry(CITIES);
        assertThat(expected.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(CITIES_TOTAL);
        for (String country : List.of("US", "FR", "DE", "JP", "BR", "MC", "NZ")) {
            assertThat(count(router1, "geo", "{\"count\": \"cities\", \"query\": {\"country\": \"" + country + "\"}}"))
                    .as("cities in %s", country).isEqualTo(expected.get(country));
        }
        assertThat(count(router2, "geo", "{\"count\": \"cities\"}")).isEqualTo(CITIES_TOTAL);
    }

    @Test
    @Order(2)
    void anAggregationOfCitiesPerCountryMatchesTheFile() {
        List<Map.Entry<String, Long>> expected = CitiesFile.countsByCountry(CITIES).entrySet().stream()
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()))
                .limit(10).toList();
        BsonArray top10 = ok(router2, "geo", "{\"aggregate\": \"cities\", \"cursor\": {}, \"pipeline\": ["
                + "{\"$group\": {\"_id\": \"$country\", \"n\": {\"$sum\": 1}}},"
                + "{\"$sort\": {\"n\": -1, \"_id\": 1}}, {\"$limit\": 10}]}").getDocument("cursor").getArray("firstBatch");
        assertThat(top10).extracting(d -> Map.entry(d.asDocument().getString("_id").getValue(), d.asDocument().getNumber("n").longValue()))
                .containsExactlyElementsOf(expected);
    }

    @Test
    @Order(4)
    void findUpdateDeleteRoundTrip() {
        BsonDocument lyon = ok(router1, "geo", "{\"find\": \"cities\", \"filter\": {\"country\": \"FR\", \"name\": \"Lyon\"}}")
                .getDocument("cursor").getArray("firstBatch").get(0).asDocument();
        String id = ExtendedJson.toJson(new BsonDocument("_id", lyon.get("_id")));

        BsonDocument updated = ok(router1, "geo", "{\"update\": \"cities\", \"updates\": [{\"q\": " + id
                + ", \"u\": {\"$set\": {\"nickname\": \"Gones\"}, \"$inc\": {\"visits\": 2}}}]}");
        assertThat(updated.getNumber("nModified").intValue()).isEqualTo(1);
        BsonDocument reread = ok(router2, "geo", "{\"find\": \"cities\", \"filter\": " + id + "}")
                .getDocument("cursor").getArray("firstBatch").get(0).asDocument();
        assertThat(reread.getString("nickname").getValue()).isEqualTo("Gones");
        assertThat(reread.getNumber("visits").intValue()).isEqualTo(2);
        assertThat(reread.getString("lat")).isEqualTo(lyon.getString("lat"));

        // Ordered: a duplicate _id (the shard's error) before an oversized document (the router's error)
        // reports only the first failure, and nothing is written.
        String big = "x".repeat(17 * 1024 * 1024);
        BsonDocument ordered = ok(router1, "geo", "{\"insert\": \"cities\", \"documents\": [" + id + ", {\"big\": \"" + big + "\"}]}");
        assertThat(ordered.getNumber("n").intValue()).isZero();
        assertThat(ordered.getArray("writeErrors")).hasSize(1);
        assertThat(ordered.getArray("writeErrors").get(0).asDocument().getNumber("code").intValue()).isEqualTo(11000);
        assertThat(ordered.getArray("writeErrors").get(0).asDocument().getNumber("index").intValue()).isZero();

        assertThat(ok(router2, "geo", "{\"delete\": \"cities\", \"deletes\": [{\"q\": " + id + ", \"limit\": 1}]}")
                .getNumber("n").intValue()).isEqualTo(1);
        assertThat(count(router1, "geo", "{\"count\": \"cities\", \"query\": " + id + "}")).isZero();
        assertThat(count(router1, "geo", "{\"count\": \"cities\"}")).isEqualTo(CITIES_TOTAL - 1);
    }

    @Test
    @Order(2)
    void routerCursorsPageWithGetMoreAndCanBeKilled() {
        long fr = CitiesFile.countsByCountry(CITIES).get("FR");
        BsonDocument cursor = ok(router1, "geo", "{\"find\": \"cities\", \"filter\": {\"country\": \"FR\"}, \"batchSize\": 500}")
                .getDocument("cursor");
        long seen = cursor.getArray("firstBatch").size();
        long id = cursor.getNumber("id").longValue();
        assertThat(id).isNotZero();
        while (id != 0) {
            cursor = ok(router1, "geo", "{\"getMore\": " + id + ", \"collection\": \"cities\", \"batchSize\": 2000}").getDocument("cursor");
            seen += cursor.getArray("nextBatch").size();
            id = cursor.getNumber("id").longValue();
        }
        assertThat(seen).isEqualTo(fr);

        long open = ok(router1, "geo", "{\"find\": \"cities\", \"batchSize\": 10}").getDocument("cursor").getNumber("id").longValue();
        BsonDocument killed = ok(router1, "geo", "{\"killCursors\": \"cities\", \"cursors\": [" + open + "]}");
        assertThat(killed.getArray("cursorsKilled")).hasSize(1);
        BsonDocument gone = router1.run("geo", cmd("{\"getMore\": " + open + ", \"collection\": \"cities\"}"));
        assertThat(gone.getNumber("code").intValue()).isEqualTo(43);
    }

    @Test
    @Order(3)
    void indexesThroughTheRouterPlanTheQueries() {
        long fr = CitiesFile.countsByCountry(CITIES).get("FR");
        BsonDocument created = ok(router1, "geo",
                "{\"createIndexes\": \"cities\", \"indexes\": [{\"key\": {\"country\": 1, \"name\": -1}, \"name\": \"country_name\"}]}");
        assertThat(created.getNumber("numIndexesAfter").intValue()).isEqualTo(2);
        assertThat(ok(router2, "geo", "{\"listIndexes\": \"cities\"}").getDocument("cursor").getArray("firstBatch"))
                .extracting(i -> i.asDocument().getString("name").getValue()).containsExactly("_id_", "country_name");
        BsonDocument explain = ok(router1, "geo",
                "{\"explain\": {\"find\": \"cities\", \"filter\": {\"country\": \"FR\"}}, \"verbosity\": \"executionStats\"}");
        BsonDocument ixscan = explain.getDocument("queryPlanner").getDocument("winningPlan").getDocument("inputStage");
        assertThat(ixscan.getString("indexName").getValue()).isEqualTo("country_name");
        assertThat(explain.getDocument("executionStats").getNumber("nReturned").longValue()).isEqualTo(fr);
        assertThat(explain.getDocument("executionStats").getNumber("totalDocsExamined").longValue()).isEqualTo(fr);
        assertThat(ixscan.getString("stage").getValue()).isEqualTo("IXSCAN");
        assertThat(ixscan.getDocument("indexBounds").getArray("country").get(0).asString().getValue()).isEqualTo("[\"FR\", \"FR\"]");
        assertThat(count(router1, "geo", "{\"count\": \"cities\", \"query\": {\"country\": \"FR\"}, \"hint\": {\"$natural\": 1}}"))
                .isEqualTo(fr);
        BsonDocument unindexed = ok(router2, "geo", "{\"explain\": {\"find\": \"cities\", \"filter\": {\"admin1\": \"11\"}}}");
        assertThat(unindexed.getDocument("queryPlanner").getDocument("winningPlan").getString("stage").getValue()).isEqualTo("COLLSCAN");

        // City names repeat (ten places are called Paris): a unique index must fail and leave no index behind.
        BsonDocument unique = router1.run("geo", cmd("{\"createIndexes\": \"cities\", \"indexes\": [{\"key\": {\"name\": 1}, \"name\": \"name_unique\", \"unique\": true}]}"));
        assertThat(RouterClient.isOk(unique)).isFalse();
        assertThat(unique.getNumber("code").intValue()).isEqualTo(11000);
        assertThat(unique.getString("errmsg").getValue()).contains("name_unique");
        assertThat(ok(router1, "geo", "{\"listIndexes\": \"cities\"}").getDocument("cursor").getArray("firstBatch"))
                .extracting(i -> i.asDocument().getString("name").getValue()).containsExactly("_id_", "country_name");
        assertThat(ok(router2, "geo", "{\"dropIndexes\": \"cities\", \"index\": \"country_name\"}").getNumber("nIndexesWas").intValue())
                .isEqualTo(2);
    }

    @Test
    @Order(5)
    void theCatalogIsReadableThroughTheRouterLikeMongos() {
        BsonArray shards = ok(router1, "config", "{\"find\": \"shards\"}").getDocument("cursor").getArray("firstBatch");
        assertThat(shards).extracting(s -> s.asDocument().getString("_id").getValue()).containsExactly("shard1", "shard2");
        BsonDocument geo = ok(router1, "config", "{\"find\": \"databases\", \"filter\": {\"_id\": \"geo\"}}")
                .getDocument("cursor").getArray("firstBatch").get(0).asDocument();
        assertThat(geo.getString("primary").getValue()).startsWith("shard");
        assertThat(geo.getDocument("version").getNumber("lastMod").intValue()).isEqualTo(1);
    }

    /**
     * MongoDB manual, "Collation": a case-insensitive find, count, distinct, sort and aggregate ($match, $group, $sort:
     * the shards' partial groups merged on the router under the collation) through the router, on a collection sharded
     * by a hashed string key spread over several shards (the router must send a collated equality to every shard:
     * "Alpha" and "ALPHA" hash to different chunks) and on an unsharded one: both give the same answers.
     */
    @Test
    @Order(6)
    void caseInsensitiveQueriesThroughTheRouterOnShardedAndUnshardedCollections() {
        ok(router1, "admin", "{\"shardCollection\": \"words.sharded\", \"key\": {\"name\": \"hashed\"}, \"numInitialChunks\": 6}");
        String docs = "[{\"_id\": 1, \"name\": \"alpha\"}, {\"_id\": 2, \"name\": \"Alpha\"}, {\"_id\": 3, \"name\": \"ALPHA\"},"
                + " {\"_id\": 4, \"name\": \"beta\"}, {\"_id\": 5, \"name\": \"Gamma\"}, {\"_id\": 6, \"name\": \"alphä\"}]";
        String caseless = "{\"locale\": \"en\", \"strength\": 2}";
        List<BsonArray> grouped = new ArrayList<>();
        for (String coll : List.of("sharded", "plain")) {
            ok(router1, "words", "{\"insert\": \"" + coll + "\", \"documents\": " + docs + "}");
            BsonArray found = ok(router1, "words", "{\"find\": \"" + coll + "\", \"filter\": {\"name\": \"ALPHA\"}, \"sort\": {\"_id\": 1},"
                    + " \"collation\": " + caseless + "}").getDocument("cursor").getArray("firstBatch");
            assertThat(found).as(coll).extracting(d -> d.asDocument().getNumber("_id").intValue()).containsExactly(1, 2, 3);
            assertThat(count(router2, "words", "{\"count\": \"" + coll + "\", \"query\": {\"name\": \"alpha\"}, \"collation\": "
                    + "{\"locale\": \"en\", \"strength\": 1}}")).as(coll).isEqualTo(4);
            assertThat(count(router2, "words", "{\"count\": \"" + coll + "\", \"query\": {\"name\": \"alpha\"}}")).as(coll).isEqualTo(1);
            BsonArray distinct = ok(router1, "words", "{\"distinct\": \"" + coll + "\", \"key\": \"name\", \"collation\": " + caseless + "}")
                    .getArray("values");
            assertThat(distinct).as(coll).hasSize(4);
            BsonArray sorted = ok(router2, "words", "{\"find\": \"" + coll + "\", \"sort\": {\"name\": -1, \"_id\": 1}, \"collation\": "
                    + caseless + "}").getDocument("cursor").getArray("firstBatch");
            assertThat(sorted).as(coll).extracting(d -> d.asDocument().getNumber("_id").intValue()).containsExactly(5, 4, 6, 1, 2, 3);
            // a group's _id is the first spelling met, which depends on the shards' order: lower-cased to compare
            grouped.add(ok(router1, "words", "{\"aggregate\": \"" + coll + "\", \"pipeline\": [{\"$match\": {\"name\": {\"$in\":"
                    + " [\"ALPHA\", \"BETA\"]}}}, {\"$group\": {\"_id\": \"$name\", \"n\": {\"$sum\": 1}}},"
                    + " {\"$set\": {\"_id\": {\"$toLower\": \"$_id\"}}}, {\"$sort\": {\"_id\": -1}}], \"cursor\": {}, \"collation\": "
                    + caseless + "}").getDocument("cursor").getArray("firstBatch"));
            BsonArray aggregateSorted = ok(router2, "words", "{\"aggregate\": \"" + coll + "\", \"pipeline\": [{\"$sort\": {\"name\": -1,"
                    + " \"_id\": 1}}], \"cursor\": {}, \"collation\": " + caseless + "}").getDocument("cursor").getArray("firstBatch");
            assertThat(aggregateSorted).as(coll).extracting(d -> d.asDocument().getNumber("_id").intValue()).containsExactly(5, 4, 6, 1, 2, 3);
        }
        assertThat(grouped.get(0)).isEqualTo(grouped.get(1)).isEqualTo(BsonArray.parse("[{\"_id\": \"beta\", \"n\": 1}, {\"_id\": \"alpha\", \"n\": 3}]"));
        BsonArray spread = ok(router1, "admin", "{\"aggregate\": 1, \"pipeline\": [{\"$shardedDataDistribution\": {}},"
                + " {\"$match\": {\"ns\": \"words.sharded\"}}], \"cursor\": {}}").getDocument("cursor").getArray("firstBatch")
                .get(0).asDocument().getArray("shards");
        assertThat(spread.stream().filter(e -> e.asDocument().getNumber("numOwnedDocuments").longValue() > 0)).hasSizeGreaterThanOrEqualTo(2);
        BsonDocument refused = router1.run("admin", cmd("{\"shardCollection\": \"words.other\", \"key\": {\"name\": 1}, \"collation\": "
                + caseless + "}"));
        assertThat(refused.getNumber("code").intValue()).isEqualTo(2);
    }

    @Test
    @Order(6)
    void aDatabaseDroppedThroughOneRouterAndRecreatedThroughTheOtherIsSeenByBoth() {
        ok(router1, "scratch", "{\"insert\": \"c\", \"documents\": [{\"_id\": 1}, {\"_id\": 2}]}");
        assertThat(count(router2, "scratch", "{\"count\": \"c\"}")).isEqualTo(2);
        ok(router2, "scratch", "{\"dropDatabase\": 1}");
        ok(router2, "scratch", "{\"insert\": \"c\", \"documents\": [{\"_id\": 3}]}");
        // router1 cached the first incarnation's DatabaseVersion; the shard's check or the event corrects it.
        assertThat(ok(router1, "scratch", "{\"find\": \"c\"}").getDocument("cursor").getArray("firstBatch"))
                .extracting(d -> d.asDocument().getInt32("_id").getValue()).containsExactly(3);
    }

    @Test
    @Order(7)
    void killingThePrimaryShardIsAClearErrorAndNoAcknowledgedWriteIsLost() throws Exception {
        String primary = ok(router1, "config", "{\"find\": \"databases\", \"filter\": {\"_id\": \"geo\"}}")
                .getDocument("cursor").getArray("firstBatch").get(0).asDocument().getString("primary").getValue();
        Set<String> acknowledged = ConcurrentHashMap.newKeySet();
        AtomicInteger failedCalls = new AtomicInteger();
        AtomicInteger clientTimeouts = new AtomicInteger();
        AtomicBoolean writing = new AtomicBoolean(true);
        Thread writer = Thread.ofPlatform().start(() -> {
            for (int batch = 0; writing.get(); batch++) {
                List<String> ids = new ArrayList<>();
                StringBuilder docs = new StringBuilder();
                for (int i = 0; i < 50; i++) {
                    String id = "w" + batch + "-" + i;
                    ids.add(id);
                    docs.append(i == 0 ? "" : ",").append("{\"_id\": \"").append(id).append("\", \"batch\": ").append(batch).append('}');
                }
                try {
                    BsonDocument reply = router1.run("geo", cmd("{\"insert\": \"faults\", \"ordered\": false, \"documents\": [" + docs + "]}"));
                    if (RouterClient.isOk(reply)) {
                        Set<Integer> failed = new java.util.HashSet<>();
                        reply.getArray("writeErrors", new BsonArray()).forEach(e -> failed.add(e.asDocument().getInt32("index").getValue()));
                        for (int i = 0; i < ids.size(); i++) {
                            if (!failed.contains(i)) {
                                acknowledged.add(ids.get(i));
                            }
                        }
                        if (!failed.isEmpty()) { // the shard did not answer: its statements are write errors, as mongos reports them
                            failedCalls.incrementAndGet();
                        }
                    } else {
                        failedCalls.incrementAndGet();
                    }
                } catch (RouterException e) {
                    failedCalls.incrementAndGet();
                    if (e.getCause() instanceof HttpTimeoutException) {
                        clientTimeouts.incrementAndGet();
                    }
                }
            }
        });
        waitUntil(() -> acknowledged.size() >= 2_000, Duration.ofSeconds(60));

        cluster.killService(primary);
        // the router answers with the error (run throws a RouterException if it left the client waiting past its timeout)
        BsonDocument whileDown = router1.run("geo", cmd("{\"count\": \"cities\"}"));
        assertThat(RouterClient.isOk(whileDown)).isFalse();
        assertThat(whileDown.getString("codeName").getValue()).isIn("HostUnreachable", "NetworkTimeout");
        assertThat(whileDown.getString("errmsg").getValue()).contains(primary);

        cluster.startService(primary);
        waitUntil(() -> RouterClient.isOk(router1.run("geo", cmd("{\"count\": \"cities\"}"))), Duration.ofSeconds(60));
        writing.set(false);
        writer.join();

        assertThat(failedCalls).as("writes failed while the shard was down").hasPositiveValue();
        assertThat(clientTimeouts).as("every failed write was answered, none left the client waiting past its timeout").hasValue(0);
        BsonArray ids = new BsonArray(acknowledged.stream().<BsonValue>map(BsonString::new).toList());
        BsonDocument inAcknowledged = new BsonDocument("count", new BsonString("faults"))
                .append("query", new BsonDocument("_id", new BsonDocument("$in", ids)));
        assertThat(RouterClient.requireOk("count", router2.run("geo", inAcknowledged)).getNumber("n").longValue())
                .as("every acknowledged document is readable exactly once (the _id is unique)").isEqualTo(acknowledged.size());
        assertThat(count(router2, "geo", "{\"count\": \"cities\"}")).isEqualTo(CITIES_TOTAL - 1);
    }

    @Test
    @Order(8)
    void withKafkaDownAStaleRouterIsCorrectedByTheVersionCheckAlone() throws Exception {
        ok(router1, "stale", "{\"insert\": \"c\", \"documents\": [{\"_id\": 1}]}");
        // router1 hears no event from here on: stopping its consumer returns once the events it fetched (the database's
        // creation) are handled, so none can mark its cache stale behind the test's back
        ItSupport.setCatalogEvents(router1, "stopped");
        cluster.killService("kafka"); // catalog events are lost from here on
        // router1 caches the first incarnation's version now, and no event can tell it about what follows.
        assertThat(count(router1, "stale", "{\"count\": \"c\"}")).isEqualTo(1);
        double retriesBefore = staleRetries(cluster.routerUrl(1));

        ok(router2, "stale", "{\"dropDatabase\": 1}");
        ok(router2, "stale", "{\"insert\": \"c\", \"documents\": [{\"_id\": 2}]}");

        assertThat(ok(router1, "stale", "{\"find\": \"c\"}").getDocument("cursor").getArray("firstBatch"))
                .extracting(d -> d.asDocument().getInt32("_id").getValue()).containsExactly(2);
        assertThat(staleRetries(cluster.routerUrl(1))).as("router1 was corrected through StaleDbVersion").isGreaterThan(retriesBefore);
        cluster.startService("kafka");
        ItSupport.setCatalogEvents(router1, "running");
    }

    /** The router's {@code shardstore.router.stale.retries} counter, from its actuator metrics endpoint. */
    private static double staleRetries(String routerUrl) throws Exception {
        java.net.http.HttpResponse<String> response = java.net.http.HttpClient.newHttpClient().send(
                java.net.http.HttpRequest.newBuilder(java.net.URI.create(routerUrl + "/actuator/metrics/shardstore.router.stale.retries")).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        return ExtendedJson.parse(response.body()).getArray("measurements").get(0).asDocument().getNumber("value").doubleValue();
    }

    /** Polls {@code condition} every 250 ms until it holds; a RouterException or IllegalStateException counts as not yet. */
    private static void waitUntil(java.util.function.BooleanSupplier condition, Duration timeout) {
        await().atMost(timeout).pollInterval(Duration.ofMillis(250))
                .ignoreExceptionsMatching(e -> e instanceof RouterException || e instanceof IllegalStateException)
                .until(condition::getAsBoolean);
    }
}
