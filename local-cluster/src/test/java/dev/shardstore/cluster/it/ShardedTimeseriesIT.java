package dev.shardstore.cluster.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.shardstore.cluster.LocalCluster;
import dev.shardstore.cluster.RepoLayout;
import dev.shardstore.cluster.demo.WeatherCsv;
import dev.shardstore.cluster.router.RouterClient;
import dev.shardstore.contracts.bson.ExtendedJson;
import java.io.IOException;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.bson.BsonArray;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonType;
import org.bson.BsonValue;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Sharded time-series collections end to end (issue 13; mongo/src/mongo/db/s/README_timeseries.md) on a local cluster of separate
 * processes (the cluster {@link OnSharedCluster} classes share), loading the bundled Seattle/New York weather measurements
 * ({@code data/weather.csv}, see data/README.md for its source) through the router:
 * <ul>
 *   <li>a collection sharded on the meta field, split at {@code {meta: "Seattle"}} with that chunk moved so both
 *       shards own buckets: every measurement is returned exactly once by find, per-meta {@code $avg}/{@code $max}
 *       equal the file's, count (all, one meta) is right, a query on one meta value targets its owning shard only
 *       (explain, with the unpack stage),
 *       each shard holds only its meta's buckets, the buckets are far fewer than the measurements, and
 *       {@code $shardedDataDistribution} lists the buckets namespace on both shards;</li>
 *   <li>a collection sharded on the time field, split in time: every measurement once, a query on the first year
 *       targets only the shard owning the early buckets, and a delete of that year and an update of the last one
 *       change exactly their measurements;</li>
 *   <li>the same measurements as one document each in a plain sharded collection take more storage and a one-day
 *       query examines more documents ({@code $shardedDataDistribution}, explain executionStats);</li>
 *   <li>updates and deletes through the router on a collection sharded on the meta field with a chunk on each shard:
 *       targeted by the meta, broadcast when the filter does not name it (by time or another field), single-measurement
 *       ones without the meta changing exactly one measurement, a meta change moving a measurement to a new bucket,
 *       an upsert; afterwards every expected measurement is there exactly once, each shard holding only its metas;</li>
 *   <li>the shard key rules (time field last and ascending only; meta field, its subfields and the time field only)
 *       refused through the router naming the field, findAndModify refused (NotImplemented), and drop of the
 *       time-series namespace dropping the sharded buckets collection everywhere.</li>
 * </ul>
 */
@OnSharedCluster
class ShardedTimeseriesIT {
    private static final String DB = "tsit";
    private static LocalCluster cluster;
    @RegisterExtension
    static final ThreadDumpOnFailure THREAD_DUMPS = new ThreadDumpOnFailure(() -> cluster);
    private static RouterClient router;
    private static List<BsonDocument> measurements;

    @BeforeAll
    static void onSharedCluster(MigrationCluster shared) throws IOException {
        measurements = WeatherCsv.measurements(RepoLayout.detect().root().resolve("data/weather.csv"), "ts");
        cluster = shared.cluster;
        router = new RouterClient(cluster.routerUrl(1), Duration.ofSeconds(120));
    }

    @Test
    void aCollectionShardedOnTheMetaFieldSpreadsItsBucketsAndAnswersExactly() {
        BsonDocument entry = shardHourly("byMeta", "{\"location\": 1}");
        assertThat(entry.getDocument("key")).isEqualTo(BsonDocument.parse("{meta: 1}"));
        assertThat(entry.getDocument("timeseriesFields")).isEqualTo(BsonDocument.parse(
                "{timeField: 'ts', metaField: 'location', granularity: 'hours', bucketMaxSpanSeconds: 2592000}"));
        ok("admin", "{\"split\": \"tsit.system.buckets.byMeta\", \"middle\": {\"meta\": \"Seattle\"}}");
        String seattleOwner = ownerOf(entry, "Seattle");
        String otherShard = seattleOwner.equals("shard1") ? "shard2" : "shard1";
        ok("admin", "{\"moveChunk\": \"tsit.system.buckets.byMeta\", \"find\": {\"meta\": \"Seattle\"}, \"to\": \"" + otherShard + "\"}");
        assertThat(ownerOf(entry, "Seattle")).isEqualTo(otherShard);
        assertThat(ownerOf(entry, "New York")).isEqualTo(seattleOwner);

        insertAll("byMeta");

        assertEveryMeasurementOnce("byMeta");
        Map<String, double[]> expected = new TreeMap<>();
        for (BsonDocument m : measurements) {
            double[] f = expected.computeIfAbsent(m.getString("location").getValue(), k -> new double[] {0, 0, Double.NEGATIVE_INFINITY});
            f[0] += m.getDouble("temp_max").getValue();
            f[1]++;
            f[2] = Math.max(f[2], m.getDouble("wind").getValue());
        }
        List<BsonDocument> groups = aggregate("byMeta", "[{\"$group\": {\"_id\": \"$location\", \"avgMax\": {\"$avg\": \"$temp_max\"},"
                + " \"maxWind\": {\"$max\": \"$wind\"}, \"n\": {\"$sum\": 1}}}, {\"$sort\": {\"_id\": 1}}]");
        assertThat(groups).extracting(g -> g.getString("_id").getValue()).containsExactlyElementsOf(expected.keySet());
        for (BsonDocument g : groups) {
            double[] f = expected.get(g.getString("_id").getValue());
            assertThat(g.getNumber("n").longValue()).isEqualTo((long) f[1]);
            assertThat(g.getNumber("avgMax").doubleValue()).as(g.toJson()).isCloseTo(f[0] / f[1], within(1e-9));
            assertThat(g.getNumber("maxWind").doubleValue()).as(g.toJson()).isEqualTo(f[2]);
        }

        BsonDocument explain = ok(DB, "{\"explain\": {\"find\": \"byMeta\", \"filter\": {\"location\": \"Seattle\"}}}");
        assertThat(explain.getDocument("queryPlanner").getDocument("winningPlan").getString("stage").getValue()).isEqualTo("SINGLE_SHARD");
        BsonArray shards = explain.getDocument("queryPlanner").getDocument("winningPlan").getArray("shards");
        assertThat(shards).hasSize(1);
        assertThat(shards.get(0).asDocument().getString("shardName").getValue()).isEqualTo(otherShard);
        assertThat(explain.toJson()).contains("$_internalUnpackBucket");
        assertThat(find("byMeta", "{\"location\": \"Seattle\", \"ts\": {\"$gte\": {\"$date\": \"2013-01-01T00:00:00Z\"},"
                + " \"$lt\": {\"$date\": \"2014-01-01T00:00:00Z\"}}}")).hasSize(365);
        assertThat(ok(DB, "{\"count\": \"byMeta\"}").getNumber("n").intValue()).isEqualTo(measurements.size());
        assertThat(ok(DB, "{\"count\": \"byMeta\", \"query\": {\"location\": \"Seattle\"}}").getNumber("n").intValue())
                .isEqualTo((int) measurements.stream().filter(m -> m.getString("location").getValue().equals("Seattle")).count());
        BsonDocument broadcast = ok(DB, "{\"explain\": {\"find\": \"byMeta\", \"filter\": {\"wind\": {\"$gt\": 5}}}}");
        assertThat(broadcast.getDocument("queryPlanner").getDocument("winningPlan").getArray("shards")).hasSize(2);

        // each shard holds the buckets of its meta value only, and a bucket holds many measurements
        long buckets = 0;
        for (String shard : List.of("shard1", "shard2")) {
            List<BsonDocument> onShard = shardFind(shard, "system.buckets.byMeta");
            String meta = shard.equals(otherShard) ? "Seattle" : "New York";
            assertThat(onShard).as(shard).isNotEmpty().allSatisfy(b -> assertThat(b.getString("meta").getValue()).isEqualTo(meta));
            buckets += onShard.size();
        }
        assertThat(buckets).as("buckets for %d measurements", measurements.size()).isLessThan(measurements.size() / 10);
        BsonDocument distribution = ok("admin", "{\"aggregate\": 1, \"cursor\": {}, \"pipeline\": [{\"$shardedDataDistribution\": {}},"
                + " {\"$match\": {\"ns\": \"tsit.system.buckets.byMeta\"}}]}").getDocument("cursor").getArray("firstBatch").get(0).asDocument();
        assertThat(distribution.getArray("shards")).hasSize(2);
        assertThat(distribution.getArray("shards").stream().mapToLong(x -> x.asDocument().getNumber("numOwnedDocuments").longValue()).sum())
                .isEqualTo(buckets);
    }

    @Test
    void aCollectionShardedOnTheTimeFieldTargetsByBucketTime() {
        BsonDocument entry = shardHourly("byTime", "{\"ts\": 1}");
        assertThat(entry.getDocument("key")).isEqualTo(BsonDocument.parse("{'control.min.ts': 1}"));
        String split = "{\"control.min.ts\": {\"$date\": \"2014-01-01T00:00:00Z\"}}";
        ok("admin", "{\"split\": \"tsit.system.buckets.byTime\", \"middle\": " + split + "}");
        String early = chunks(entry).stream().filter(c -> c.getDocument("min").get("control.min.ts").getBsonType() == BsonType.MIN_KEY).findFirst().orElseThrow()
                .getString("shard").getValue();
        String late = early.equals("shard1") ? "shard2" : "shard1";
        ok("admin", "{\"moveChunk\": \"tsit.system.buckets.byTime\", \"find\": " + split + ", \"to\": \"" + late + "\"}");

        insertAll("byTime");

        assertEveryMeasurementOnce("byTime");
        BsonDocument explain = ok(DB, "{\"explain\": {\"find\": \"byTime\", \"filter\": {\"ts\": {\"$gte\": {\"$date\": \"2012-03-01T00:00:00Z\"},"
                + " \"$lt\": {\"$date\": \"2013-01-01T00:00:00Z\"}}}}}");
        BsonArray shards = explain.getDocument("queryPlanner").getDocument("winningPlan").getArray("shards");
        assertThat(shards).extracting(s -> s.asDocument().getString("shardName").getValue()).containsExactly(early);
        for (BsonDocument bucket : shardFind(late, "system.buckets.byTime")) {
            assertThat(bucket.getDocument("control").getDocument("min").getDateTime("ts").getValue())
                    .isGreaterThanOrEqualTo(LocalDate.of(2014, 1, 1).atStartOfDay().toInstant(ZoneOffset.UTC).toEpochMilli());
        }

        // writes by time: a delete of the first year (targeted to the early shard) and an update of the last (both)
        long year2013 = LocalDate.of(2013, 1, 1).atStartOfDay().toInstant(ZoneOffset.UTC).toEpochMilli();
        long year2015 = LocalDate.of(2015, 1, 1).atStartOfDay().toInstant(ZoneOffset.UTC).toEpochMilli();
        long early2012 = measurements.stream().filter(m -> m.getDateTime("ts").getValue() < year2013).count();
        long from2015 = measurements.stream().filter(m -> m.getDateTime("ts").getValue() >= year2015).count();
        assertThat(write("{\"delete\": \"byTime\", \"deletes\": [{\"q\": {\"ts\": {\"$lt\": {\"$date\": \"2013-01-01T00:00:00Z\"}}}, \"limit\": 0}]}"))
                .isEqualTo(early2012);
        assertThat(write("{\"update\": \"byTime\", \"updates\": [{\"q\": {\"ts\": {\"$gte\": {\"$date\": \"2015-01-01T00:00:00Z\"}}},"
                + " \"u\": {\"$set\": {\"late\": true}}, \"multi\": true}]}")).isEqualTo(from2015);
        assertThat(ok(DB, "{\"count\": \"byTime\"}").getNumber("n").longValue()).isEqualTo(measurements.size() - early2012);
        assertThat(ok(DB, "{\"count\": \"byTime\", \"query\": {\"late\": true}}").getNumber("n").longValue()).isEqualTo(from2015);
        assertThat(find("byTime", "{\"ts\": {\"$lt\": {\"$date\": \"2013-01-01T00:00:00Z\"}}}")).isEmpty();
    }

    /**
     * The same measurements as a time-series collection and as a plain collection of one document each, both sharded
     * on the location: the buckets take less storage, and a one-location, one-day query examines far fewer documents
     * (buckets). Figures are printed for docs/benchmarks.md; the machine is shared, so the wall times are indicative.
     */
    @Test
    void bucketsTakeLessStorageAndFewerExaminedDocumentsThanOneDocumentPerMeasurement() {
        shardHourly("compared", "{\"location\": 1}");
        ok("admin", "{\"shardCollection\": \"tsit.plain\", \"key\": {\"location\": 1}}");
        long tsNanos = insertAll("compared");
        long plainNanos = insertAll("plain");

        String oneDay = "{\"location\": \"Seattle\", \"ts\": {\"$gte\": {\"$date\": \"2014-06-01T00:00:00Z\"},"
                + " \"$lt\": {\"$date\": \"2014-06-02T00:00:00Z\"}}}";
        assertThat(find("compared", oneDay)).hasSize(1);
        assertThat(find("plain", oneDay)).hasSize(1);
        long tsExamined = examined("compared", oneDay);
        long plainExamined = examined("plain", oneDay);
        long tsBytes = ownedBytes("tsit.system.buckets.compared");
        long plainBytes = ownedBytes("tsit.plain");
        System.out.printf("ShardedTimeseriesIT comparison: %d measurements; storage %d bytes (buckets) vs %d (documents);"
                        + " one-day one-location query examined %d vs %d; insert %.0f vs %.0f measurements/s%n", measurements.size(),
                tsBytes, plainBytes, tsExamined, plainExamined, measurements.size() / (tsNanos / 1e9), measurements.size() / (plainNanos / 1e9));

        assertThat(tsBytes).isLessThan(plainBytes);
        assertThat(tsExamined).isLessThan(plainExamined);
    }

    private static long examined(String coll, String filter) {
        return ok(DB, "{\"explain\": {\"find\": \"" + coll + "\", \"filter\": " + filter + "}, \"verbosity\": \"executionStats\"}")
                .getDocument("executionStats").getNumber("totalDocsExamined").longValue();
    }

    private static long ownedBytes(String ns) {
        BsonArray entries = ok("admin", "{\"aggregate\": 1, \"cursor\": {}, \"pipeline\": [{\"$shardedDataDistribution\": {}},"
                + " {\"$match\": {\"ns\": \"" + ns + "\"}}]}").getDocument("cursor").getArray("firstBatch");
        assertThat(entries).as(ns + " in $shardedDataDistribution").hasSize(1);
        return entries.get(0).asDocument().getArray("shards").stream()
                .mapToLong(s -> s.asDocument().getNumber("ownedSizeBytes").longValue()).sum();
    }

    @Test
    void theShardKeyRulesAndFindAndModifyAreRefusedNamingTheField() {
        String options = ", \"timeseries\": {\"timeField\": \"ts\", \"metaField\": \"location\"}}";
        assertRefused("{\"shardCollection\": \"tsit.refused\", \"key\": {\"wind\": 1}" + options, "InvalidOptions", "key.wind");
        assertRefused("{\"shardCollection\": \"tsit.refused\", \"key\": {\"ts\": 1, \"location\": 1}" + options, "InvalidOptions", "key.ts");
        assertRefused("{\"shardCollection\": \"tsit.refused\", \"key\": {\"ts\": \"hashed\"}" + options, "InvalidOptions", "key.ts");
        assertRefused("{\"shardCollection\": \"tsit.refused\", \"key\": {\"ts\": -1}" + options, "BadValue", "'ts'");
        assertRefused("{\"shardCollection\": \"tsit.refused\", \"key\": {\"location\": 1}, \"unique\": true" + options, "InvalidOptions", "unique");

        ok("admin", "{\"shardCollection\": \"tsit.writes\", \"key\": {\"location\": 1}" + options);
        ok(DB, "{\"insert\": \"writes\", \"documents\": [{\"ts\": {\"$date\": \"2024-01-01T00:00:00Z\"}, \"location\": \"A\", \"v\": 1}]}");
        BsonDocument findAndModify = router.run(DB, ExtendedJson.parse("{\"findAndModify\": \"writes\", \"query\": {\"location\": \"A\"},"
                + " \"update\": {\"$set\": {\"v\": 2}}}"));
        assertThat(findAndModify.toJson()).contains("NotImplemented");
        assertThat(find("writes", "{}")).hasSize(1).allSatisfy(m -> assertThat(m.getNumber("v").intValue()).isEqualTo(1));

        // dropping the time-series namespace drops the sharded buckets collection: catalog entry and buckets gone
        ok(DB, "{\"drop\": \"writes\"}");
        assertThat(ok("config", "{\"find\": \"collections\", \"filter\": {\"_id\": \"tsit.system.buckets.writes\"}}")
                .getDocument("cursor").getArray("firstBatch")).isEmpty();
        assertThat(find("writes", "{}")).isEmpty();
        for (String shard : List.of("shard1", "shard2")) {
            assertThat(shardFind(shard, "system.buckets.writes")).as(shard).isEmpty();
        }
    }

    /**
     * Updates and deletes of measurements through the router, on metas A and B (one shard) and Z (the other), ten days
     * each with {@code d} the day: each write's {@code n} and the data afterwards against a model kept here.
     */
    @Test
    void updatesAndDeletesTargetOrBroadcastAndChangeExactlyTheMatchingMeasurements() {
        BsonDocument entry = shardHourly("crud", "{\"location\": 1}");
        ok("admin", "{\"split\": \"tsit.system.buckets.crud\", \"middle\": {\"meta\": \"M\"}}");
        String low = ownerOf(entry, "A");
        String high = low.equals("shard1") ? "shard2" : "shard1";
        ok("admin", "{\"moveChunk\": \"tsit.system.buckets.crud\", \"find\": {\"meta\": \"Z\"}, \"to\": \"" + high + "\"}");
        Map<String, BsonDocument> model = new TreeMap<>();
        BsonArray docs = new BsonArray();
        for (String location : List.of("A", "B", "Z")) {
            for (int d = 1; d <= 10; d++) {
                BsonDocument m = new BsonDocument("ts", new BsonDateTime(LocalDate.of(2024, 1, d).atStartOfDay().toInstant(ZoneOffset.UTC).toEpochMilli()))
                        .append("location", new BsonString(location)).append("d", new BsonInt32(d)).append("v", new BsonInt32(0));
                model.put(location + d, m);
                docs.add(m.clone());
            }
        }
        ok(DB, new BsonDocument("insert", new BsonString("crud")).append("documents", docs).toJson());

        // targeted by the meta: the A measurements only
        assertThat(write("{\"update\": \"crud\", \"updates\": [{\"q\": {\"location\": \"A\"}, \"u\": {\"$set\": {\"v\": 1}}, \"multi\": true}]}"))
                .isEqualTo(10);
        model.forEach((k, m) -> m.put("v", new BsonInt32(k.startsWith("A") ? 1 : 0)));
        // broadcast: no meta in the filter, so both shards update their matches
        assertThat(write("{\"update\": \"crud\", \"updates\": [{\"q\": {\"d\": {\"$gte\": 8}}, \"u\": {\"$inc\": {\"v\": 10}}, \"multi\": true}]}"))
                .isEqualTo(9);
        model.values().stream().filter(m -> m.getInt32("d").getValue() >= 8).forEach(m -> m.put("v", new BsonInt32(m.getInt32("v").getValue() + 10)));
        // a single-measurement update without the meta: exactly one of the three day-3 measurements
        assertThat(write("{\"update\": \"crud\", \"updates\": [{\"q\": {\"d\": 3}, \"u\": {\"$set\": {\"x\": 1}}}]}")).isEqualTo(1);
        List<BsonDocument> marked = find("crud", "{\"x\": 1}");
        assertThat(marked).hasSize(1);
        model.get(marked.get(0).getString("location").getValue() + 3).put("x", new BsonInt32(1));
        // a delete by time (broadcast with a meta shard key) and a single one without the meta
        assertThat(write("{\"delete\": \"crud\", \"deletes\": [{\"q\": {\"ts\": {\"$gte\": {\"$date\": \"2024-01-10T00:00:00Z\"}}}, \"limit\": 0}]}"))
                .isEqualTo(3);
        model.keySet().removeIf(k -> k.endsWith("10"));
        assertThat(write("{\"delete\": \"crud\", \"deletes\": [{\"q\": {\"d\": 1, \"v\": 0}, \"limit\": 1}]}")).isEqualTo(1);
        List<BsonDocument> dayOne = find("crud", "{\"d\": 1}");
        assertThat(dayOne).hasSize(2);
        model.keySet().removeIf(k -> k.endsWith("1") && dayOne.stream().noneMatch(m -> (m.getString("location").getValue() + 1).equals(k)));
        // a meta change within the shard moves the measurement into a bucket of its new meta
        assertThat(write("{\"update\": \"crud\", \"updates\": [{\"q\": {\"location\": \"A\", \"d\": 2}, \"u\": {\"$set\": {\"location\": \"C\"}}}]}"))
                .isEqualTo(1);
        model.put("C2", model.remove("A2").append("location", new BsonString("C")));
        // an upsert of a new measurement goes to the shard owning the bucket it opens
        BsonDocument upsert = ok(DB, "{\"update\": \"crud\", \"updates\": [{\"q\": {\"location\": \"Y\", \"d\": 5, \"ts\": {\"$date\": \"2024-01-05T00:00:00Z\"}},"
                + " \"u\": {\"$set\": {\"v\": 7}}, \"upsert\": true}]}");
        assertThat(upsert.getArray("upserted")).as(upsert.toJson()).hasSize(1);
        model.put("Y5", new BsonDocument("ts", new BsonDateTime(LocalDate.of(2024, 1, 5).atStartOfDay().toInstant(ZoneOffset.UTC).toEpochMilli()))
                .append("location", new BsonString("Y")).append("d", new BsonInt32(5)).append("v", new BsonInt32(7)));

        Map<String, BsonDocument> found = new TreeMap<>();
        for (BsonDocument m : find("crud", "{}")) {
            m.remove("_id");
            assertThat(found.put(m.getString("location").getValue() + m.getInt32("d").getValue(), m)).as("twice: %s", m.toJson()).isNull();
        }
        assertThat(found).isEqualTo(model);
        for (String shard : List.of(low, high)) {
            assertThat(shardFind(shard, "system.buckets.crud")).as(shard).isNotEmpty()
                    .allSatisfy(b -> assertThat(b.getString("meta").getValue().compareTo("M") < 0).isEqualTo(shard.equals(low)));
        }
    }

    /** Runs an update or delete through the router; its {@code n}, after checking it has no write errors. */
    private static long write(String json) {
        BsonDocument reply = ok(DB, json);
        assertThat(reply.containsKey("writeErrors")).as(reply.toJson()).isFalse();
        return reply.getNumber("n").longValue();
    }

    private static void assertRefused(String command, String codeName, String named) {
        BsonDocument reply = router.run("admin", ExtendedJson.parse(command));
        assertThat(RouterClient.isOk(reply)).as(command).isFalse();
        assertThat(reply.getString("codeName").getValue()).as(reply.toJson()).isEqualTo(codeName);
        assertThat(reply.getString("errmsg").getValue()).as(reply.toJson()).contains(named);
    }

    /** Every measurement of the file is returned exactly once, with its values. */
    private static void assertEveryMeasurementOnce(String coll) {
        Map<String, BsonDocument> byKey = new HashMap<>();
        for (BsonDocument m : find(coll, "{}")) {
            BsonDocument previous = byKey.put(key(m), m);
            assertThat(previous).as("returned twice: %s", m.toJson()).isNull();
        }
        assertThat(byKey).hasSize(measurements.size());
        for (BsonDocument expected : measurements) {
            BsonDocument found = byKey.get(key(expected));
            assertThat(found).as(expected.toJson()).isNotNull();
            for (String field : List.of("precipitation", "temp_max", "temp_min", "wind", "weather")) {
                assertThat(found.get(field)).as("%s of %s", field, expected.toJson()).isEqualTo(expected.get(field));
            }
        }
    }

    private static String key(BsonDocument m) {
        return m.getString("location").getValue() + "@" + m.getDateTime("ts").getValue();
    }

    /** Inserts the file's measurements in batches of 500; the nanoseconds it took. */
    private static long insertAll(String coll) {
        long start = System.nanoTime();
        for (int from = 0; from < measurements.size(); from += 500) {
            BsonArray batch = new BsonArray(measurements.subList(from, Math.min(measurements.size(), from + 500)).stream()
                    .map(BsonDocument::clone).map(BsonValue.class::cast).toList());
            BsonDocument reply = RouterClient.requireOk("insert into " + coll, router.run(DB,
                    new BsonDocument("insert", new BsonString(coll)).append("documents", batch)));
            assertThat(reply.getNumber("n").intValue()).as(reply.toJson()).isEqualTo(batch.size());
        }
        return System.nanoTime() - start;
    }

    private static List<BsonDocument> find(String coll, String filter) {
        return ItSupport.drain(router, DB, coll, ok(DB, "{\"find\": \"" + coll + "\", \"filter\": " + filter + ", \"batchSize\": 1000}"));
    }

    private static List<BsonDocument> aggregate(String coll, String pipeline) {
        return ItSupport.drain(router, DB, coll, ok(DB, "{\"aggregate\": \"" + coll + "\", \"pipeline\": " + pipeline + ", \"cursor\": {}}"));
    }

    /** Every document of {@code coll} on {@code shard} itself (unversioned: orphans included). */
    private static List<BsonDocument> shardFind(String shard, String coll) {
        return ItSupport.storedOn(cluster, shard, DB, coll);
    }

    /** shardCollection of {@code tsit.<coll>} on {@code key}, as a time-series collection of the file's measurements; its catalog entry. */
    private static BsonDocument shardHourly(String coll, String key) {
        ok("admin", "{\"shardCollection\": \"tsit." + coll + "\", \"key\": " + key
                + ", \"timeseries\": {\"timeField\": \"ts\", \"metaField\": \"location\", \"granularity\": \"hours\"}}");
        return catalogEntry("tsit.system.buckets." + coll);
    }

    private static BsonDocument catalogEntry(String ns) {
        return ok("config", "{\"find\": \"collections\", \"filter\": {\"_id\": \"" + ns + "\"}}")
                .getDocument("cursor").getArray("firstBatch").get(0).asDocument();
    }

    private static List<BsonDocument> chunks(BsonDocument entry) {
        return RouterClient.requireOk("config.chunks", router.run("config", new BsonDocument("find", new BsonString("chunks"))
                        .append("filter", new BsonDocument("uuid", entry.get("uuid")))))
                .getDocument("cursor").getArray("firstBatch").stream().map(BsonValue::asDocument).toList();
    }

    /** The shard owning the chunk holding the buckets of {@code meta} (chunks in key order: the last starting at or before it). */
    private static String ownerOf(BsonDocument entry, String meta) {
        String owner = null;
        for (BsonDocument chunk : chunks(entry)) {
            BsonValue min = chunk.getDocument("min").get("meta");
            if (min.getBsonType() == BsonType.MIN_KEY || min.isString() && min.asString().getValue().compareTo(meta) <= 0) {
                owner = chunk.getString("shard").getValue();
            }
        }
        return owner;
    }

    private static BsonDocument ok(String db, String json) {
        return RouterClient.requireOk(json.length() > 200 ? json.substring(0, 200) : json, router.run(db, ExtendedJson.parse(json)));
    }
}
