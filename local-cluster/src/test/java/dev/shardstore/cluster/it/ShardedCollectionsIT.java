package dev.shardstore.cluster.it;

import static dev.shardstore.cluster.it.ItSupport.get;
import static dev.shardstore.cluster.it.ItSupport.waitUntil;
import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.cluster.ClusterOptions;
import dev.shardstore.cluster.LocalCluster;
import dev.shardstore.cluster.RepoLayout;
import dev.shardstore.cluster.load.BulkLoader;
import dev.shardstore.cluster.load.LoadListener;
import dev.shardstore.cluster.load.LoadReport;
import dev.shardstore.cluster.router.RouterClient;
import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.namespace.Namespace;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonType;
import org.bson.BsonValue;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Sharded collections end to end (issue 4) on a local cluster of separate processes (3 shards, 2 routers, ports
 * offset by 2000): the whole cities sample sharded three ways — hashed {@code _id} (pre-split over every shard),
 * ranged {@code {country: 1, name: 1}} with split points, and compound {@code {country: 1, _id: "hashed"}} — then
 * per-country counts, targeting seen through explain, scatter-gather finds and aggregations compared with the file,
 * split and merge through one router seen incrementally by the other, and a router whose event consumer is stopped
 * corrected by StaleConfig alone; then faults: a shard killed under a sharded write load (its documents are write
 * errors, every acknowledged one is readable after the restart) and the config service killed (routers keep serving
 * from their cached routing tables; catalog changes fail clearly until it is back); last, {@code $out} and {@code $merge}
 * (issue 15): {@code $out} replacing an unsharded target under a concurrent reader, every {@code $merge} mode into an
 * unsharded and a sharded target, and the refusals; then collation (issue 15): a collated index on a sharded
 * collection across a migration, and a collection's default collation through the router.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ShardedCollectionsIT {
    private static final Path CITIES = RepoLayout.detect().root().resolve("data/cities.json.gz");
    private static final long CITIES_TOTAL = 171_075;
    private static final List<String> COUNTRIES = List.of("US", "FR", "DE", "JP", "BR", "MC", "NZ");

    /** The three shardings, by collection name. */
    private static final Map<String, String> SHARD_KEYS = Map.of(
            "byId", "{\"_id\": \"hashed\"}",
            "byCountryName", "{\"country\": 1, \"name\": 1}",
            "byCountryHash", "{\"country\": 1, \"_id\": \"hashed\"}");

    private static LocalCluster cluster;
    private static RouterClient routerA;
    private static RouterClient routerB;
    private static List<CitiesFile.City> cities;

    @BeforeAll
    static void startCluster() throws Exception {
        Path home = Files.createTempDirectory("shardstore-sharded-it-");
        cluster = LocalCluster.start(ClusterOptions.defaults(RepoLayout.detect())
                .withHome(home).withPortOffset(2000).withRouters(2), line -> System.out.println("[cluster] " + line));
        routerA = new RouterClient(cluster.routerUrl(1), Duration.ofSeconds(120));
        routerB = new RouterClient(cluster.routerUrl(2), Duration.ofSeconds(120));
        cities = CitiesFile.read(CITIES);
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.stopAndDeleteData();
        }
    }

    @Test
    @Order(1)
    void anEmptyCollectionWithAHashedKeyStartsWithChunksOnEveryShard() {
        BsonDocument reply = ok(routerA, "admin", "{\"shardCollection\": \"geo.byId\", \"key\": " + SHARD_KEYS.get("byId") + "}");
        assertThat(reply.getString("collectionsharded").getValue()).isEqualTo("geo.byId");

        List<BsonDocument> chunks = chunksOf("geo.byId");
        assertThat(chunks).hasSize(6); // MongoDB's default: 2 per shard
        assertThat(chunks).extracting(c -> c.getString("shard").getValue()).containsOnly("shard1", "shard2", "shard3");
        assertThat(chunks.stream().map(c -> c.getString("shard").getValue()).distinct()).hasSize(3);
    }

    @Test
    @Order(2)
    void theCitiesShardedThreeWaysCountLikeTheFile() {
        ok(routerA, "admin", "{\"shardCollection\": \"geo.byCountryName\", \"key\": " + SHARD_KEYS.get("byCountryName") + "}");
        for (String middle : List.of("{\"country\": \"FR\", \"name\": {\"$minKey\": 1}}", "{\"country\": \"MX\", \"name\": \"\"}",
                "{\"country\": \"US\", \"name\": \"M\"}")) {
            ok(routerA, "admin", "{\"split\": \"geo.byCountryName\", \"middle\": " + middle + "}");
        }
        assertThat(chunksOf("geo.byCountryName")).hasSize(4);
        ok(routerA, "admin", "{\"shardCollection\": \"geo.byCountryHash\", \"key\": " + SHARD_KEYS.get("byCountryHash") + "}");

        Map<String, Long> expected = CitiesFile.countsByCountry(CITIES);
        for (String collection : SHARD_KEYS.keySet()) {
            LoadReport report = new BulkLoader(routerA, 1000, 4).load(CITIES, Namespace.parse("geo." + collection), LoadListener.NONE);
            assertThat(report.failed()).as(collection).isZero();
            assertThat(report.inserted()).as(collection).isEqualTo(CITIES_TOTAL);
            for (String country : COUNTRIES) {
                assertThat(count(routerB, collection, "{\"country\": \"" + country + "\"}")).as("%s in %s", country, collection)
                        .isEqualTo(expected.get(country));
            }
            assertThat(count(routerA, collection, "{}")).as(collection).isEqualTo(CITIES_TOTAL);
        }
    }

    @Test
    @Order(3)
    void explainNamesOneShardForShardKeyEqualityAndEveryOwningShardOtherwise() {
        BsonDocument paris = firstBatch(ok(routerA, "geo", "{\"find\": \"byId\", \"filter\": {\"name\": \"Paris\", \"country\": \"FR\"}}")).getFirst();
        String byId = ExtendedJson.toJson(new BsonDocument("_id", paris.get("_id")));
        String byCountryAndId = ExtendedJson.toJson(new BsonDocument("country", new BsonString("FR")).append("_id", paris.get("_id")));
        assertThat(explainedShards("byId", byId)).hasSize(1);
        assertThat(explainedShards("byId", "{\"country\": \"FR\"}")).containsExactlyInAnyOrder("shard1", "shard2", "shard3");

        assertThat(explainedShards("byCountryName", "{\"country\": \"FR\", \"name\": \"Paris\"}")).hasSize(1);
        assertThat(explainedShards("byCountryName", "{\"admin1\": \"11\"}")).containsExactlyInAnyOrderElementsOf(owningShards("geo.byCountryName"));
        assertThat(explainedShards("byCountryHash", byCountryAndId)).hasSize(1);
        assertThat(explainedShards("byCountryHash", "{\"name\": \"Paris\"}"))
                .containsExactlyInAnyOrderElementsOf(owningShards("geo.byCountryHash"));
    }

    @Test
    @Order(4)
    void sortedSkippedAndLimitedScatterGatherFindsEqualTheFile() {
        Comparator<CitiesFile.City> byNameLatLng = Comparator.comparing((CitiesFile.City c) -> utf8(c.name()), Arrays::compareUnsigned)
                .thenComparing(c -> utf8(c.lat()), Arrays::compareUnsigned).thenComparing(c -> utf8(c.lng()), Arrays::compareUnsigned);
        List<String> expected = cities.stream().filter(c -> Set.of("FR", "DE", "NZ").contains(c.country())).sorted(byNameLatLng)
                .skip(1000).limit(700).map(c -> c.name() + "|" + c.country() + "|" + c.lat()).toList();
        for (String collection : SHARD_KEYS.keySet()) {
            BsonDocument first = ok(routerB, "geo", "{\"find\": \"" + collection + "\", \"filter\": {\"country\": {\"$in\": [\"FR\", \"DE\", \"NZ\"]}},"
                    + " \"sort\": {\"name\": 1, \"lat\": 1, \"lng\": 1}, \"skip\": 1000, \"limit\": 700, \"batchSize\": 150,"
                    + " \"projection\": {\"_id\": 0, \"name\": 1, \"country\": 1, \"lat\": 1}}");
            List<BsonDocument> all = new ArrayList<>(firstBatch(first));
            long cursorId = first.getDocument("cursor").getNumber("id").longValue();
            while (cursorId != 0) {
                BsonDocument next = ok(routerB, "geo", "{\"getMore\": " + cursorId + ", \"collection\": \"" + collection + "\", \"batchSize\": 150}")
                        .getDocument("cursor");
                next.getArray("nextBatch").forEach(d -> all.add(d.asDocument()));
                cursorId = next.getNumber("id").longValue();
            }
            assertThat(all).extracting(d -> d.getString("name").getValue() + "|" + d.getString("country").getValue() + "|"
                    + d.getString("lat").getValue()).as(collection).containsExactlyElementsOf(expected);
        }
    }

    @Test
    @Order(5)
    void aggregationsAndDistinctOverEveryShardMatchTheFile() {
        Map<String, Long> counts = CitiesFile.countsByCountry(CITIES);
        List<Map.Entry<String, Long>> top10 = counts.entrySet().stream()
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey())).limit(10).toList();
        for (String collection : SHARD_KEYS.keySet()) {
            BsonArray batch = ok(routerA, "geo", "{\"aggregate\": \"" + collection + "\", \"cursor\": {}, \"pipeline\": ["
                    + "{\"$group\": {\"_id\": \"$country\", \"n\": {\"$sum\": 1}}}, {\"$sort\": {\"n\": -1, \"_id\": 1}}, {\"$limit\": 10}]}")
                    .getDocument("cursor").getArray("firstBatch");
            assertThat(batch).extracting(d -> Map.entry(d.asDocument().getString("_id").getValue(), d.asDocument().getNumber("n").longValue()))
                    .as(collection).containsExactlyElementsOf(top10);
            BsonArray countries = ok(routerB, "geo", "{\"distinct\": \"" + collection + "\", \"key\": \"country\"}").getArray("values");
            assertThat(countries).extracting(v -> v.asString().getValue()).as(collection).containsExactlyElementsOf(new TreeSet<>(counts.keySet()));
        }
        BsonArray distribution = ok(routerA, "admin", "{\"aggregate\": 1, \"cursor\": {}, \"pipeline\": [{\"$shardedDataDistribution\": {}},"
                + " {\"$match\": {\"ns\": \"geo.byId\"}}]}").getDocument("cursor").getArray("firstBatch");
        assertThat(distribution).hasSize(1);
        BsonArray perShard = distribution.get(0).asDocument().getArray("shards");
        assertThat(perShard).hasSize(3);
        assertThat(perShard.stream().mapToLong(s -> s.asDocument().getNumber("numOwnedDocuments").longValue()).sum()).isEqualTo(CITIES_TOTAL);
        assertThat(perShard.stream().mapToLong(s -> s.asDocument().getNumber("numOrphanedDocs").longValue()).sum()).isZero();
    }

    @Test
    @Order(6)
    void writesAreTargetedByShardKeyAndASingleWriteWithoutItChangesOneDocument() {
        BsonDocument updated = ok(routerA, "geo", "{\"update\": \"byCountryHash\", \"updates\": [{\"q\": {\"country\": \"MC\"},"
                + " \"u\": {\"$set\": {\"tiny\": true}}, \"multi\": true}]}");
        assertThat(updated.getNumber("nModified").longValue()).isEqualTo(CitiesFile.countsByCountry(CITIES).get("MC"));
        assertThat(count(routerB, "byCountryHash", "{\"tiny\": true}")).isEqualTo(CitiesFile.countsByCountry(CITIES).get("MC"));

        // MongoDB 7.1+: a single update without the shard key changes one matching document, an upsert inserts once
        BsonDocument single = ok(routerA, "geo", "{\"update\": \"byCountryName\", \"updates\": [{\"q\": {\"admin1\": \"11\"},"
                + " \"u\": {\"$set\": {\"x\": 1}}}]}");
        assertThat(single.getNumber("nModified").intValue()).as(single.toJson()).isEqualTo(1);
        BsonDocument upsert = ok(routerA, "geo", "{\"update\": \"byCountryName\", \"updates\": [{\"q\": {\"country\": \"ZZ\"},"
                + " \"u\": {\"$set\": {\"x\": 1}}, \"upsert\": true}]}");
        assertThat(upsert.getArray("upserted")).as(upsert.toJson()).hasSize(1);
        assertThat(count(routerA, "byCountryName", "{\"x\": 1}")).isEqualTo(2);
        ok(routerA, "geo", "{\"delete\": \"byCountryName\", \"deletes\": [{\"q\": {\"country\": \"ZZ\"}, \"limit\": 0}]}");
        assertThat(count(routerB, "byCountryName", "{\"x\": 1}")).isEqualTo(1);

        BsonDocument deleted = ok(routerB, "geo", "{\"delete\": \"byId\", \"deletes\": [{\"q\": {\"country\": \"MC\"}, \"limit\": 0}]}");
        assertThat(deleted.getNumber("n").longValue()).isEqualTo(CitiesFile.countsByCountry(CITIES).get("MC"));
        assertThat(count(routerA, "byId", "{\"country\": \"MC\"}")).isZero();
    }

    @Test
    @Order(7)
    void splitsAndMergesThroughRouterAAreSeenByRouterBWithOneIncrementalRefresh() throws Exception {
        String ns = "geo.byCountryName";
        long nzBefore = count(routerB, "byCountryName", "{\"country\": \"NZ\"}"); // B caches the table
        BsonDocument before = routingEntry(routerB, ns);

        ok(routerA, "admin", "{\"split\": \"" + ns + "\", \"middle\": {\"country\": \"JP\", \"name\": \"K\"}}");
        ok(routerA, "admin", "{\"split\": \"" + ns + "\", \"middle\": {\"country\": \"JP\", \"name\": \"T\"}}");
        ok(routerA, "admin", "{\"mergeChunks\": \"" + ns + "\", \"bounds\": [{\"country\": \"JP\", \"name\": \"K\"}, {\"country\": \"MX\", \"name\": \"\"}]}");
        assertThat(chunksOf(ns)).hasSize(5);

        waitUntil(() -> routingEntry(routerB, ns).getBoolean("stale", BsonBoolean.FALSE).getValue(), Duration.ofSeconds(20), "router B marks the collection stale");
        assertThat(count(routerB, "byCountryName", "{\"country\": \"NZ\"}")).isEqualTo(nzBefore);
        ok(routerB, "geo", "{\"insert\": \"byCountryName\", \"documents\": [{\"name\": \"Kyoto-test\", \"country\": \"JP\"}]}");
        assertThat(count(routerA, "byCountryName", "{\"name\": \"Kyoto-test\"}")).isEqualTo(1);

        BsonDocument after = routingEntry(routerB, ns);
        assertThat(after.getNumber("fullRefreshes").longValue()).isEqualTo(before.getNumber("fullRefreshes").longValue());
        assertThat(after.getNumber("incrementalRefreshes").longValue() - before.getNumber("incrementalRefreshes").longValue()).isEqualTo(1);
        assertThat(after.getNumber("chunks").intValue()).isEqualTo(5);
    }

    @Test
    @Order(8)
    void aRouterThatMissesTheEventsIsCorrectedByStaleConfig() throws Exception {
        String ns = "geo.byId";
        count(routerB, "byId", "{}"); // B caches the table
        ItSupport.setCatalogEvents(routerB, "stopped");
        try {
            long retriesBefore = routingEntry(routerB, ns).getNumber("staleConfigRetries").longValue();
            BsonDocument chunk = chunksOf(ns).getFirst();
            ok(routerA, "admin", "{\"split\": \"" + ns + "\", \"bounds\": [" + ExtendedJson.toJson(chunk.getDocument("min")) + ", "
                    + ExtendedJson.toJson(chunk.getDocument("max")) + "]}");
            assertThat(chunksOf(ns)).hasSize(7);

            assertThat(count(routerB, "byId", "{}")).isEqualTo(CITIES_TOTAL - CitiesFile.countsByCountry(CITIES).get("MC"));
            BsonDocument entry = routingEntry(routerB, ns);
            assertThat(entry.getNumber("staleConfigRetries").longValue()).isGreaterThan(retriesBefore);
            assertThat(entry.getNumber("chunks").intValue()).isEqualTo(7);
        } finally {
            ItSupport.setCatalogEvents(routerB, "running");
        }
    }

    @Test
    @Order(9)
    void killingAShardUnderAShardedWriteLoadLosesNoAcknowledgedWrite() throws Exception {
        ok(routerA, "admin", "{\"shardCollection\": \"geo.faults\", \"key\": {\"_id\": \"hashed\"}}");
        Set<String> acknowledged = ConcurrentHashMap.newKeySet();
        AtomicLong writeErrors = new AtomicLong();
        AtomicBoolean writing = new AtomicBoolean(true);
        Thread writer = Thread.ofPlatform().start(() -> {
            for (int batch = 0; writing.get(); batch++) {
                List<String> ids = new ArrayList<>();
                BsonArray docs = new BsonArray();
                for (int i = 0; i < 60; i++) {
                    ids.add("f" + batch + "-" + i);
                    docs.add(new BsonDocument("_id", new BsonString(ids.getLast())).append("batch", new BsonInt32(batch)));
                }
                BsonDocument reply = routerA.run("geo", new BsonDocument("insert", new BsonString("faults"))
                        .append("ordered", BsonBoolean.FALSE).append("documents", docs));
                if (!RouterClient.isOk(reply)) {
                    continue; // nothing acknowledged
                }
                Set<Integer> failed = new TreeSet<>();
                reply.getArray("writeErrors", new BsonArray()).forEach(e -> failed.add(e.asDocument().getInt32("index").getValue()));
                writeErrors.addAndGet(failed.size());
                for (int i = 0; i < ids.size(); i++) {
                    if (!failed.contains(i)) {
                        acknowledged.add(ids.get(i));
                    }
                }
            }
        });
        waitUntil(() -> acknowledged.size() >= 3_000, Duration.ofSeconds(60), "3,000 acknowledged writes");
        cluster.killService("shard2");
        long ackedAtKill = acknowledged.size();
        waitUntil(() -> writeErrors.get() > 0 && acknowledged.size() > ackedAtKill + 1_000, Duration.ofSeconds(60), "write errors while the shard is down, then writes again");
        cluster.startService("shard2");
        waitUntil(() -> RouterClient.isOk(routerB.run("geo", ExtendedJson.parse("{\"count\": \"faults\"}"))), Duration.ofSeconds(90), "router B counts again");
        writing.set(false);
        writer.join();

        BsonDocument inAcknowledged = new BsonDocument("count", new BsonString("faults")).append("query",
                new BsonDocument("_id", new BsonDocument("$in", new BsonArray(acknowledged.stream().<BsonValue>map(BsonString::new).toList()))));
        assertThat(RouterClient.requireOk("count", routerB.run("geo", inAcknowledged)).getNumber("n").longValue())
                .as("every acknowledged document is readable exactly once").isEqualTo(acknowledged.size());
        assertThat(writeErrors.get()).as("the dead shard's documents were reported as write errors, the others acknowledged").isPositive();
    }

    @Test
    @Order(10)
    void withTheConfigServiceDownRoutersServeFromTheirCachedRoutingTables() throws Exception {
        long before = count(routerA, "byId", "{}");
        count(routerB, "byId", "{}");
        cluster.killService("config");
        try {
            ok(routerB, "geo", "{\"insert\": \"byId\", \"documents\": [{\"name\": \"Offline-1\", \"country\": \"FR\"},"
                    + " {\"name\": \"Offline-2\", \"country\": \"DE\"}, {\"name\": \"Offline-3\", \"country\": \"JP\"}]}");
            assertThat(count(routerA, "byId", "{}")).isEqualTo(before + 3);
            BsonDocument split = routerA.run("admin", ExtendedJson.parse("{\"split\": \"geo.byId\", \"middle\": {\"_id\": 12345}}"));
            assertThat(describe(split)).containsAnyOf("HostUnreachable", "NetworkTimeout");
        } finally {
            cluster.startService("config");
        }
        waitUntil(() -> RouterClient.isOk(routerA.run("admin", ExtendedJson.parse("{\"split\": \"geo.byId\", \"middle\": {\"_id\": 12345}}"))),
                Duration.ofSeconds(60), "a split once the config service is back");
        assertThat(count(routerB, "byId", "{\"name\": {\"$regex\": \"^Offline-\"}}")).isEqualTo(3);
    }

    @Test
    @Order(11)
    void outReplacesAnUnshardedTargetWholeWhileAReaderSeesOldOrNewNeverAMix() throws Exception {
        ok(routerA, "agg", "{\"insert\": \"outSource\", \"documents\": " + numbered(0, 40, "src") + "}");
        ok(routerA, "agg", "{\"insert\": \"outTarget\", \"documents\": " + numbered(100, 25, "old") + "}");
        ok(routerA, "agg", "{\"createIndexes\": \"outTarget\", \"indexes\": [{\"key\": {\"v\": 1}, \"name\": \"v_1\"}]}");
        AtomicBoolean done = new AtomicBoolean();
        Set<Long> seen = ConcurrentHashMap.newKeySet();
        Thread reader = Thread.ofVirtual().start(() -> {
            while (!done.get()) {
                seen.add(ok(routerB, "agg", "{\"count\": \"outTarget\"}").getNumber("n").longValue());
            }
        });
        try {
            for (int round = 0; round < 4; round++) {
                String limit = round % 2 == 0 ? "" : "{\"$limit\": 25}, ";
                BsonDocument reply = ok(routerA, "agg", "{\"aggregate\": \"outSource\", \"pipeline\": [{\"$sort\": {\"_id\": 1}}, " + limit
                        + "{\"$out\": \"outTarget\"}], \"cursor\": {}}");
                assertThat(firstBatch(reply)).isEmpty();
                assertThat(reply.getDocument("cursor").getNumber("id").longValue()).isZero();
            }
        } finally {
            done.set(true);
            reader.join();
        }
        assertThat(seen).as("counts a reader saw during four replacements").isNotEmpty().isSubsetOf(25L, 40L);
        assertThat(firstBatch(ok(routerA, "agg", "{\"find\": \"outTarget\", \"sort\": {\"_id\": 1}, \"batchSize\": 100}")))
                .extracting(d -> d.getInt32("_id").getValue()).containsExactlyElementsOf(range(0, 25));
        assertThat(firstBatch(ok(routerA, "agg", "{\"listIndexes\": \"outTarget\"}"))).extracting(d -> d.getString("name").getValue())
                .containsExactlyInAnyOrder("_id_", "v_1");
        assertThat(firstBatch(ok(routerA, "agg", "{\"listCollections\": 1, \"nameOnly\": true}"))).extracting(d -> d.getString("name").getValue())
                .noneMatch(name -> name.startsWith("tmp.agg_out."));

        // from a sharded source (split on the shards, merged by the router) into another database's collection
        long zealand = firstBatch(ok(routerA, "geo", "{\"aggregate\": \"byId\", \"pipeline\": [{\"$match\": {\"country\": \"NZ\"}}],"
                + " \"cursor\": {\"batchSize\": 100000}}")).size();
        assertThat(zealand).as("the source's NZ documents").isEqualTo(CitiesFile.countsByCountry(CITIES).get("NZ"));
        ok(routerA, "geo", "{\"aggregate\": \"byId\", \"pipeline\": [{\"$match\": {\"country\": \"NZ\"}}, "
                + "{\"$out\": {\"db\": \"agg\", \"coll\": \"zealand\"}}], \"cursor\": {}}");
        assertThat(ok(routerA, "agg", "{\"count\": \"zealand\"}").getNumber("n").longValue()).isEqualTo(zealand);
    }

    @Test
    @Order(12)
    void mergeEveryModeIntoAnUnshardedAndAShardedTargetGivesMongoDbsResult() {
        ok(routerA, "admin", "{\"shardCollection\": \"agg.mergeSharded\", \"key\": {\"_id\": \"hashed\"}}");
        ok(routerA, "agg", "{\"insert\": \"mergeSource\", \"documents\": [{\"_id\": 2, \"b\": \"new\"}, {\"_id\": 3, \"b\": \"new\"},"
                + " {\"_id\": 4, \"b\": \"new\"}]}");
        String old1 = "{\"_id\": 1, \"a\": \"old\"}";
        String old2 = "{\"_id\": 2, \"a\": \"old\"}";
        String old3 = "{\"_id\": 3, \"a\": \"old\"}";
        String new2 = "{\"_id\": 2, \"b\": \"new\"}";
        String new3 = "{\"_id\": 3, \"b\": \"new\"}";
        String new4 = "{\"_id\": 4, \"b\": \"new\"}";
        Map<String, List<String>> expected = new java.util.LinkedHashMap<>();
        expected.put("\"replace\", \"whenNotMatched\": \"insert\"", List.of(old1, new2, new3, new4));
        expected.put("\"replace\", \"whenNotMatched\": \"discard\"", List.of(old1, new2, new3));
        expected.put("\"merge\", \"whenNotMatched\": \"insert\"", List.of(old1, "{\"_id\": 2, \"a\": \"old\", \"b\": \"new\"}",
                "{\"_id\": 3, \"a\": \"old\", \"b\": \"new\"}", new4));
        expected.put("\"merge\", \"whenNotMatched\": \"discard\"", List.of(old1, "{\"_id\": 2, \"a\": \"old\", \"b\": \"new\"}",
                "{\"_id\": 3, \"a\": \"old\", \"b\": \"new\"}"));
        expected.put("\"keepExisting\", \"whenNotMatched\": \"insert\"", List.of(old1, old2, old3, new4));
        expected.put("[{\"$set\": {\"c\": \"$$new.b\"}}], \"whenNotMatched\": \"insert\"", List.of(old1,
                "{\"_id\": 2, \"a\": \"old\", \"c\": \"new\"}", "{\"_id\": 3, \"a\": \"old\", \"c\": \"new\"}", new4));
        expected.put("[{\"$set\": {\"c\": \"$$x\"}}], \"let\": {\"x\": {\"$concat\": [\"$b\", \"!\"]}}, \"whenNotMatched\": \"discard\"",
                List.of(old1, "{\"_id\": 2, \"a\": \"old\", \"c\": \"new!\"}", "{\"_id\": 3, \"a\": \"old\", \"c\": \"new!\"}"));
        Map<String, Integer> failing = Map.of(
                "\"replace\", \"whenNotMatched\": \"fail\"", 13113,
                "\"merge\", \"whenNotMatched\": \"fail\"", 13113,
                "[{\"$set\": {\"c\": 1}}], \"whenNotMatched\": \"fail\"", 13113,
                "\"fail\", \"whenNotMatched\": \"insert\"", 11000);
        for (String target : List.of("mergeUnsharded", "mergeSharded")) {
            for (Map.Entry<String, List<String>> mode : expected.entrySet()) {
                resetMergeTarget(target);
                ok(routerA, "agg", mergeInto(target, mode.getKey()));
                assertThat(firstBatch(ok(routerB, "agg", "{\"find\": \"" + target + "\", \"sort\": {\"_id\": 1}}")))
                        .as("%s whenMatched %s", target, mode.getKey())
                        .containsExactlyElementsOf(mode.getValue().stream().map(ExtendedJson::parse).toList());
            }
            for (Map.Entry<String, Integer> mode : failing.entrySet()) {
                resetMergeTarget(target);
                BsonDocument reply = routerA.run("agg", ExtendedJson.parse(mergeInto(target, mode.getKey())));
                assertThat(describe(reply)).as("%s whenMatched %s", target, mode.getKey()).isNotEmpty();
                assertThat(reply.getNumber("code").intValue()).as("%s whenMatched %s", target, mode.getKey()).isEqualTo(mode.getValue());
            }
        }
        assertThat(routerA.run("agg", ExtendedJson.parse(
                "{\"aggregate\": \"mergeSource\", \"pipeline\": [{\"$merge\": {\"into\": \"mergeUnsharded\", \"on\": \"b\"}}], \"cursor\": {}}"))
                .getNumber("code").intValue()).as("on without a unique index").isEqualTo(51183);
    }

    @Test
    @Order(13)
    void mergeIntoARangeShardedTargetMatchesOnShardKeyAndIdAndOutIntoAShardedCollectionIsRefused() {
        ok(routerA, "admin", "{\"shardCollection\": \"agg.mergeRange\", \"key\": {\"k\": 1}}");
        ok(routerA, "admin", "{\"split\": \"agg.mergeRange\", \"middle\": {\"k\": 50}}");
        ok(routerA, "agg", "{\"insert\": \"mergeRange\", \"documents\": [{\"_id\": 1, \"k\": 10, \"v\": 0}, {\"_id\": 2, \"k\": 90, \"v\": 0}]}");
        ok(routerA, "agg", "{\"insert\": \"rangeSource\", \"documents\": [{\"_id\": 1, \"k\": 10, \"v\": 1}, {\"_id\": 2, \"k\": 90, \"v\": 1},"
                + " {\"_id\": 3, \"k\": 60, \"v\": 1}]}");
        ok(routerA, "agg", "{\"aggregate\": \"rangeSource\", \"pipeline\": [{\"$merge\": {\"into\": \"mergeRange\", \"whenMatched\": \"replace\"}}],"
                + " \"cursor\": {}}");
        assertThat(firstBatch(ok(routerB, "agg", "{\"find\": \"mergeRange\", \"sort\": {\"_id\": 1}}"))).containsExactly(
                ExtendedJson.parse("{\"_id\": 1, \"k\": 10, \"v\": 1}"), ExtendedJson.parse("{\"_id\": 2, \"k\": 90, \"v\": 1}"),
                ExtendedJson.parse("{\"_id\": 3, \"k\": 60, \"v\": 1}"));

        assertThat(routerA.run("agg", ExtendedJson.parse(
                "{\"aggregate\": \"rangeSource\", \"pipeline\": [{\"$out\": \"mergeRange\"}], \"cursor\": {}}")).getNumber("code").intValue())
                .isEqualTo(28769);
        assertThat(routerA.run("agg", ExtendedJson.parse(
                "{\"aggregate\": \"rangeSource\", \"pipeline\": [{\"$out\": \"x\"}, {\"$match\": {}}], \"cursor\": {}}")).getNumber("code").intValue())
                .isEqualTo(40601);
        assertThat(routerA.run("agg", ExtendedJson.parse(
                "{\"aggregate\": \"rangeSource\", \"pipeline\": [{\"$facet\": {\"f\": [{\"$merge\": \"x\"}]}}], \"cursor\": {}}"))
                .getNumber("code").intValue()).isEqualTo(40600);
        assertThat(firstBatch(ok(routerA, "agg", "{\"find\": \"mergeRange\", \"sort\": {\"_id\": 1}}"))).hasSize(3);

        // explain shows the writing stage last in the router's part, for an unsharded and a sharded source
        assertThat(lastMergerStage(ok(routerA, "agg", "{\"explain\": {\"aggregate\": \"rangeSource\", \"pipeline\": [{\"$match\": {}},"
                + " {\"$merge\": {\"into\": \"mergeRange\"}}], \"cursor\": {}}}"))).isEqualTo("$merge");
        assertThat(lastMergerStage(ok(routerA, "geo", "{\"explain\": {\"aggregate\": \"byId\", \"pipeline\": [{\"$match\": {\"country\": \"MC\"}},"
                + " {\"$out\": {\"db\": \"agg\", \"coll\": \"x\"}}], \"cursor\": {}}}"))).isEqualTo("$out");
    }

    /**
     * Issue 15, collation: an index with a collation on a sharded collection serves a query under that collation on
     * every owning shard, and a chunk migration's recipient builds it with its collation from the donor's spec; a
     * collection with a default collation answers reads without one under it through the router, and sharding it is
     * refused by name.
     */
    @Test
    @Order(14)
    void aCollatedIndexServesEveryShardAndSurvivesAMigrationAndADefaultCollationAppliesThroughTheRouter() {
        String ns = "collation.words";
        ok(routerA, "admin", "{\"shardCollection\": \"" + ns + "\", \"key\": {\"n\": 1}}");
        ok(routerA, "admin", "{\"split\": \"" + ns + "\", \"middle\": {\"n\": 50}}");
        String low = chunksOf(ns).stream().filter(c -> c.getDocument("min").get("n").getBsonType() == BsonType.MIN_KEY).findFirst().orElseThrow()
                .getString("shard").getValue();
        List<String> others = new ArrayList<>(List.of("shard1", "shard2", "shard3"));
        others.remove(low);
        ok(routerA, "admin", "{\"moveChunk\": \"" + ns + "\", \"find\": {\"n\": 50}, \"to\": \"" + others.get(0) + "\"}");
        List<String> docs = new ArrayList<>();
        for (int n = 0; n < 100; n++) {
            docs.add("{\"n\": " + n + ", \"w\": \"" + (n % 3 == 0 ? "apple" : n % 3 == 1 ? "APPLE" : "pear") + "\"}");
        }
        ok(routerA, "collation", "{\"insert\": \"words\", \"documents\": [" + String.join(", ", docs) + "]}");
        String caseless = "{\"locale\": \"en\", \"strength\": 2}";
        ok(routerA, "collation", "{\"createIndexes\": \"words\", \"indexes\": [{\"key\": {\"w\": 1}, \"name\": \"w_ci\","
                + " \"collation\": " + caseless + "}]}");

        String query = "{\"find\": \"words\", \"filter\": {\"w\": \"Apple\"}, \"collation\": " + caseless + ", \"batchSize\": 1000}";
        assertThat(firstBatch(ok(routerB, "collation", query))).hasSize(67);
        assertEveryShardScans("w_ci", query, 2);

        // the low chunk moves to the shard that had nothing: it builds w_ci with the collation from the donor's spec
        ok(routerA, "admin", "{\"moveChunk\": \"" + ns + "\", \"find\": {\"n\": 0}, \"to\": \"" + others.get(1) + "\"}");
        assertThat(owningShards(ns)).containsExactlyInAnyOrderElementsOf(others);
        assertThat(firstBatch(ok(routerA, "collation", query))).hasSize(67);
        assertEveryShardScans("w_ci", query, 2);
        assertThat(firstBatch(ok(routerA, "collation", "{\"find\": \"words\", \"filter\": {\"w\": \"Apple\"}}"))).isEmpty();

        // a default collation: reads without one use it on the primary shard; sharding such a collection is refused
        ok(routerA, "collation", "{\"create\": \"caseless\", \"collation\": " + caseless + "}");
        ok(routerA, "collation", "{\"insert\": \"caseless\", \"documents\": [{\"_id\": 1, \"w\": \"apple\"},"
                + " {\"_id\": 2, \"w\": \"APPLE\"}, {\"_id\": 3, \"w\": \"pear\"}]}");
        assertThat(firstBatch(ok(routerB, "collation", "{\"find\": \"caseless\", \"filter\": {\"w\": \"Apple\"}}"))).hasSize(2);
        assertThat(ok(routerB, "collation", "{\"count\": \"caseless\", \"query\": {\"w\": \"aPPLE\"}}").getNumber("n").intValue())
                .isEqualTo(2);
        // $out replacing it keeps its default collation
        ok(routerA, "collation", "{\"aggregate\": \"words\", \"pipeline\": [{\"$match\": {\"n\": {\"$lt\": 6}}},"
                + " {\"$project\": {\"w\": 1}}, {\"$out\": \"caseless\"}], \"cursor\": {}}");
        assertThat(firstBatch(ok(routerB, "collation", "{\"find\": \"caseless\", \"filter\": {\"w\": \"Apple\"}}"))).hasSize(4);
        BsonDocument refused = routerA.run("admin", ExtendedJson.parse("{\"shardCollection\": \"collation.caseless\", \"key\": {\"_id\": 1},"
                + " \"collation\": {\"locale\": \"simple\"}}"));
        assertThat(describe(refused)).contains("collation");
        assertThat(refused.getNumber("code").intValue()).isEqualTo(238);
    }

    /** Every shard of a find's mongos explain ({@code count} of them) scans {@code index}. */
    private static void assertEveryShardScans(String index, String find, int count) {
        BsonDocument explain = ok(routerA, "collation", "{\"explain\": " + find + "}");
        BsonArray shards = explain.getDocument("queryPlanner").getDocument("winningPlan").getArray("shards");
        assertThat(shards).hasSize(count);
        shards.forEach(shard -> assertThat(shard.asDocument().toJson()).as(explain.toJson()).contains("IXSCAN").contains(index));
    }

    private static String lastMergerStage(BsonDocument explain) {
        BsonArray merger = explain.getDocument("splitPipeline").getArray("mergerPart");
        return merger.get(merger.size() - 1).asDocument().getFirstKey();
    }

    /** Empties {@code agg.<target>} (keeping its sharding) and puts {@code _id} 1, 2, 3 with {@code a: "old"} in it. */
    private static void resetMergeTarget(String target) {
        ok(routerA, "agg", "{\"delete\": \"" + target + "\", \"deletes\": [{\"q\": {}, \"limit\": 0}]}");
        ok(routerA, "agg", "{\"insert\": \"" + target + "\", \"documents\": [{\"_id\": 1, \"a\": \"old\"}, {\"_id\": 2, \"a\": \"old\"},"
                + " {\"_id\": 3, \"a\": \"old\"}]}");
    }

    private static String mergeInto(String target, String whenMatchedAndRest) {
        return "{\"aggregate\": \"mergeSource\", \"pipeline\": [{\"$merge\": {\"into\": \"" + target + "\", \"whenMatched\": "
                + whenMatchedAndRest + "}}], \"cursor\": {}}";
    }

    /** {@code count} documents {@code {_id: from + i, v: i, tag}} as a JSON array. */
    private static String numbered(int from, int count, String tag) {
        List<String> docs = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            docs.add("{\"_id\": " + (from + i) + ", \"v\": " + i + ", \"tag\": \"" + tag + "\"}");
        }
        return "[" + String.join(", ", docs) + "]";
    }

    private static List<Integer> range(int from, int count) {
        List<Integer> ids = new ArrayList<>();
        for (int i = from; i < from + count; i++) {
            ids.add(i);
        }
        return ids;
    }

    // --- helpers ---------------------------------------------------------------------------------------------

    private static BsonDocument ok(RouterClient router, String db, String json) {
        return RouterClient.requireOk(json, router.run(db, ExtendedJson.parse(json)));
    }

    private static long count(RouterClient router, String collection, String query) {
        return ok(router, "geo", "{\"count\": \"" + collection + "\", \"query\": " + query + "}").getNumber("n").longValue();
    }

    private static List<BsonDocument> firstBatch(BsonDocument findReply) {
        return findReply.getDocument("cursor").getArray("firstBatch").stream().map(BsonValue::asDocument).toList();
    }

    private static String describe(BsonDocument reply) {
        assertThat(RouterClient.isOk(reply)).as("expected an error, got %s", reply.toJson()).isFalse();
        return RouterClient.describeError(reply);
    }

    /** The collection's chunks from config.chunks, read through a router like mongos users do. */
    private static List<BsonDocument> chunksOf(String ns) {
        BsonDocument collection = firstBatch(ok(routerA, "config", "{\"find\": \"collections\", \"filter\": {\"_id\": \"" + ns + "\"}}")).getFirst();
        BsonDocument filter = new BsonDocument("uuid", collection.get("uuid"));
        return firstBatch(ok(routerA, "config", "{\"find\": \"chunks\", \"filter\": " + ExtendedJson.toJson(filter) + ", \"batchSize\": 100000}"));
    }

    private static Set<String> owningShards(String ns) {
        Set<String> shards = new TreeSet<>();
        chunksOf(ns).forEach(c -> shards.add(c.getString("shard").getValue()));
        return shards;
    }

    /** The shard names of a find's mongos explain ({@code queryPlanner.winningPlan.shards[].shardName}). */
    private static List<String> explainedShards(String collection, String filter) {
        BsonDocument explain = ok(routerA, "geo", "{\"explain\": {\"find\": \"" + collection + "\", \"filter\": " + filter + "}}");
        return explain.getDocument("queryPlanner").getDocument("winningPlan").getArray("shards").stream()
                .map(s -> s.asDocument().getString("shardName").getValue()).toList();
    }

    /** The router's routing table cache entry for {@code ns} from its actuator endpoint. */
    private static BsonDocument routingEntry(RouterClient router, String ns) {
        BsonDocument body = ExtendedJson.parse(get(router.url() + "/actuator/routingTable"));
        return body.getDocument("collections").getDocument(ns);
    }


    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
