package dev.shardstore.shard.timeseries;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.shard.ShardIntegrationTest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.bson.BsonArray;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Unsharded time-series collections on one shard against its real PostgreSQL: create and its errors,
 * listCollections, inserts through the bucket catalog (open, reopened and new buckets, exact control fields, write
 * errors), find and aggregate rewritten onto the buckets, explain, drop, and refusal of what is not served.
 */
class TimeseriesCollectionTest extends ShardIntegrationTest {
    private static final String DB = "tsdb";
    private static final long MINUTE = 60_000;

    @Autowired
    private TimeseriesTtlMonitor ttlMonitor;

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            timeseries: 5 | 14 | create.timeseries
            timeseries: {} | 40414 | create.timeseries.timeField
            timeseries: {timeField: 1} | 14 | create.timeseries.timeField
            timeseries: {timeField: 'a.b'} | 72 | create.timeseries.timeField
            timeseries: {timeField: '_id'} | 72 | create.timeseries.timeField
            timeseries: {timeField: 't', metaField: 't'} | 72 | create.timeseries.metaField
            timeseries: {timeField: 't', bogus: 1} | 40415 | create.timeseries.bogus
            timeseries: {timeField: 't', granularity: 'days'} | 2 | create.timeseries.granularity
            timeseries: {timeField: 't', granularity: 'hours', bucketRoundingSeconds: 60} | 72 | create.timeseries.granularity
            timeseries: {timeField: 't', granularity: 'hours', bucketMaxSpanSeconds: 60} | 72 | create.timeseries.bucketMaxSpanSeconds
            timeseries: {timeField: 't', bucketMaxSpanSeconds: 60} | 72 | create.timeseries.bucketRoundingSeconds
            timeseries: {timeField: 't', bucketMaxSpanSeconds: 60, bucketRoundingSeconds: 30} | 72 | create.timeseries.bucketMaxSpanSeconds
            timeseries: {timeField: 't', bucketMaxSpanSeconds: 0, bucketRoundingSeconds: 0} | 72 | create.timeseries.bucketMaxSpanSeconds
            timeseries: {timeField: 't'}, expireAfterSeconds: -1 | 72 | create.expireAfterSeconds
            timeseries: {timeField: 't'}, expireAfterSeconds: 'soon' | 72 | create.expireAfterSeconds
            expireAfterSeconds: 100 | 72 | create.expireAfterSeconds
            """)
    void createRefusesBadOptionsNamingTheField(String options, int code, String field) {
        BsonDocument reply = run(DB, "{create: 'bad', " + options + "}");
        assertThat(reply.getNumber("code").intValue()).as(reply.toJson()).isEqualTo(code);
        assertThat(reply.getString("errmsg").getValue()).contains(field);
        assertThat(names()).doesNotContain("bad", "system.buckets.bad");
    }

    @Test
    void createListsTheCollectionAsTimeseriesBesideItsBuckets() {
        assertOk(run(DB, "{create: 'weather', timeseries: {timeField: 'ts', metaField: 'station', granularity: 'minutes'},"
                + " expireAfterSeconds: 86400}"));
        assertOk(run(DB, "{create: 'weather', timeseries: {timeField: 'ts', metaField: 'station', granularity: 'minutes'},"
                + " expireAfterSeconds: 86400}"));
        assertOk(run(DB, "{create: 'custom', timeseries: {timeField: 't', bucketMaxSpanSeconds: 600, bucketRoundingSeconds: 600}}"));

        assertThat(run(DB, "{create: 'weather', timeseries: {timeField: 'ts'}}").getNumber("code").intValue()).isEqualTo(48);
        assertThat(run(DB, "{create: 'weather'}").getNumber("code").intValue()).isEqualTo(48);
        assertOk(run(DB, "{create: 'plain'}"));
        assertThat(run(DB, "{create: 'plain', timeseries: {timeField: 't'}}").getNumber("code").intValue()).isEqualTo(48);

        Map<String, BsonDocument> entries = entries();
        assertThat(entries.get("weather")).isEqualTo(ExtendedJson.parse("""
                {name: 'weather', type: 'timeseries', options: {timeseries: {timeField: 'ts', metaField: 'station',
                 granularity: 'minutes', bucketMaxSpanSeconds: 86400}, expireAfterSeconds: {$numberLong: '86400'}},
                 info: {readOnly: false}}"""));
        assertThat(entries.get("custom").getDocument("options").getDocument("timeseries")).isEqualTo(ExtendedJson.parse(
                "{timeField: 't', bucketMaxSpanSeconds: 600, bucketRoundingSeconds: 600}"));
        assertThat(entries.get("system.buckets.weather").getString("type").getValue()).isEqualTo("collection");
    }

    @Test
    void insertsGoIntoBucketsPerMetaAndSpanWithExactControlFields() {
        assertOk(run(DB, "{create: 'sensors', timeseries: {timeField: 't', metaField: 'm'}}"));
        // two sensors, 150 minutes each: granularity seconds buckets span one hour, rounded to the minute
        List<BsonDocument> measurements = new ArrayList<>();
        for (int minute = 0; minute < 150; minute++) {
            for (String sensor : List.of("a", "b")) {
                measurements.add(measurement(minute * MINUTE + 1_000, sensor, minute));
            }
        }
        assertThat(insert("sensors", measurements).getInt32("n").getValue()).isEqualTo(300);

        List<BsonDocument> buckets = documentsOf(DB, "system.buckets.sensors");
        assertThat(buckets).hasSize(6); // per sensor: [0:00:00, 1:00:00), [1:00:01 rounded to 1:00, 2:00), [2:00, 2:29]
        BsonDocument first = buckets.stream().filter(b -> b.getDocument("meta").getString("id").getValue().equals("a"))
                .filter(b -> b.getDocument("control").getDocument("min").getDateTime("t").getValue() == 0).findFirst().orElseThrow();
        assertThat(first.getDocument("control")).isEqualTo(ExtendedJson.parse("""
                {version: 1, min: {t: {$date: 0}, _id: 'a-0', v: 0}, max: {_id: 'a-9', t: {$date: 3541000}, v: 59}}"""));
        assertThat(first.getDocument("data").getDocument("v")).hasSize(60);
        assertThat(documentsOf(DB, "sensors")).hasSize(300).containsAll(measurements);
    }

    @Test
    void aLateMeasurementReopensTheStoredBucketOfItsSpan() {
        assertOk(run(DB, "{create: 'late', timeseries: {timeField: 't', metaField: 'm'}}"));
        insert("late", List.of(measurement(10 * MINUTE, "a", 1), measurement(70 * MINUTE, "a", 2)));
        assertThat(documentsOf(DB, "system.buckets.late")).hasSize(2);

        // the open bucket of sensor a now starts at 1:10; 0:20 belongs to the stored bucket starting at 0:10
        insert("late", List.of(measurement(20 * MINUTE, "a", 3)));
        // a measurement before any bucket of its meta opens a new one
        insert("late", List.of(measurement(5 * MINUTE, "a", 4)));

        List<BsonDocument> buckets = documentsOf(DB, "system.buckets.late");
        assertThat(buckets).hasSize(3);
        assertThat(buckets).anySatisfy(b -> assertThat(b.getDocument("data").getDocument("v").values())
                .containsExactly(new BsonInt32(1), new BsonInt32(3)));
        assertThat(documentsOf(DB, "late")).hasSize(4);
    }

    @Test
    void badMeasurementsAreWriteErrorsAtTheirIndex() {
        assertOk(run(DB, "{create: 'errs', timeseries: {timeField: 't'}}"));
        BsonDocument unordered = run(DB, """
                {insert: 'errs', ordered: false, documents: [{t: {$date: 0}, v: 1}, {v: 2}, {t: 'noon', v: 3}, {t: {$date: 1000}, v: 4}]}""");
        assertThat(unordered.getInt32("n").getValue()).isEqualTo(2);
        assertThat(unordered.getArray("writeErrors")).extracting(e -> e.asDocument().getInt32("index").getValue()).containsExactly(1, 2);
        assertThat(unordered.getArray("writeErrors").get(0).asDocument().getString("errmsg").getValue())
                .contains("'t' must be present and contain a valid BSON UTC datetime value");
        assertThat(unordered.getArray("writeErrors").get(0).asDocument().getInt32("code").getValue()).isEqualTo(2);

        BsonDocument ordered = run(DB, "{insert: 'errs', documents: [{t: {$date: 2000}, v: 5}, {v: 6}, {t: {$date: 3000}, v: 7}]}");
        assertThat(ordered.getInt32("n").getValue()).isEqualTo(1);
        assertThat(ordered.getArray("writeErrors")).hasSize(1);
        assertThat(documentsOf(DB, "errs")).extracting(d -> d.getInt32("v").getValue()).containsExactlyInAnyOrder(1, 4, 5);
    }

    @Test
    void findAndAggregateReadTheMeasurementsThroughTheBuckets() {
        assertOk(run(DB, "{create: 'reads', timeseries: {timeField: 't', metaField: 'm', granularity: 'minutes'}}"));
        List<BsonDocument> measurements = new ArrayList<>();
        for (int i = 0; i < 3 * 24 * 12; i++) { // three days, every five minutes, three sensors
            measurements.add(measurement(i * 5 * MINUTE, "s" + (i % 3), i % 50));
        }
        insert("reads", measurements);

        BsonDocument find = run(DB, """
                {find: 'reads', filter: {'m.id': 's1', t: {$gte: {$date: '1970-01-02T00:00:00Z'}, $lt: {$date: '1970-01-02T01:00:00Z'}}},
                 sort: {t: -1}, projection: {_id: 0, v: 1}, batchSize: 2}""");
        assertThat(find.getDocument("cursor").getString("ns").getValue()).isEqualTo("tsdb.reads");
        List<BsonDocument> expected = measurements.stream()
                .filter(m -> m.getDocument("m").getString("id").getValue().equals("s1"))
                .filter(m -> m.getDateTime("t").getValue() >= 86_400_000 && m.getDateTime("t").getValue() < 86_400_000 + 3_600_000)
                .sorted((a, b) -> Long.compare(b.getDateTime("t").getValue(), a.getDateTime("t").getValue()))
                .map(m -> new BsonDocument("v", m.get("v"))).toList();
        assertThat(drain("reads", find)).isEqualTo(expected);

        BsonDocument aggregate = run(DB, """
                {aggregate: 'reads', cursor: {}, pipeline: [{$match: {'m.id': {$in: ['s0', 's2']}}},
                 {$group: {_id: '$m.id', avg: {$avg: '$v'}, max: {$max: '$v'}, n: {$sum: 1}}}, {$sort: {_id: 1}}]}""");
        List<BsonDocument> groups = aggregate.getDocument("cursor").getArray("firstBatch").stream().map(BsonValue::asDocument).toList();
        assertThat(groups).hasSize(2);
        for (BsonDocument group : groups) {
            List<Integer> values = measurements.stream()
                    .filter(m -> m.getDocument("m").getString("id").equals(group.getString("_id")))
                    .map(m -> m.getInt32("v").getValue()).toList();
            assertThat(group.getInt32("n").getValue()).isEqualTo(values.size());
            assertThat(group.getInt32("max").getValue()).isEqualTo(values.stream().mapToInt(Integer::intValue).max().orElseThrow());
            assertThat(group.getDouble("avg").getValue()).isEqualTo(values.stream().mapToInt(Integer::intValue).average().orElseThrow());
        }
    }

    @Test
    void explainShowsTheUnpackStageAndExaminesOnlyTheMatchingBuckets() {
        assertOk(run(DB, "{create: 'explained', timeseries: {timeField: 't', metaField: 'm'}}"));
        List<BsonDocument> measurements = new ArrayList<>();
        for (int i = 0; i < 600; i++) {
            measurements.add(measurement(i * MINUTE, "s" + (i % 2), i));
        }
        insert("explained", measurements);
        int buckets = documentsOf(DB, "system.buckets.explained").size();

        BsonDocument explain = run(DB, """
                {explain: {find: 'explained', filter: {'m.id': 's0', t: {$gte: {$date: '1970-01-01T02:00:00Z'},
                 $lt: {$date: '1970-01-01T03:00:00Z'}}}, projection: {v: 1}}, verbosity: 'executionStats'}""");
        assertOk(explain);
        assertThat(explain.getDocument("queryPlanner").getString("namespace").getValue()).isEqualTo("tsdb.system.buckets.explained");
        BsonArray stages = explain.getArray("stages");
        assertThat(stages.get(0).asDocument().getFirstKey()).isEqualTo("$match");
        assertThat(stages.get(1).asDocument().getDocument("$_internalUnpackBucket").getArray("include"))
                .containsExactly(new BsonString("_id"), new BsonString("m"), new BsonString("t"), new BsonString("v"));
        // 20 buckets (10 hours of two sensors) stand for 600 measurements; one holds the sensor's hour asked for
        assertThat(buckets).isEqualTo(20);
        BsonDocument stats = explain.getDocument("executionStats");
        assertThat(stats.getNumber("totalDocsExamined").longValue()).isLessThanOrEqualTo(buckets);
        assertThat(stats.getNumber("nReturned").longValue()).isEqualTo(1);
    }

    @Test
    void concurrentInsertersOfOneMetaLoseNothingAndKeepBucketsWithinTheirLimit() throws Exception {
        assertOk(run(DB, "{create: 'concurrent', timeseries: {timeField: 't', metaField: 'm'}}"));
        int threads = 4;
        int perThread = 600;
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<Integer>> inserted = new ArrayList<>();
            for (int w = 0; w < threads; w++) {
                int writer = w;
                inserted.add(pool.submit(() -> {
                    start.await();
                    int n = 0;
                    for (int batch = 0; batch < perThread / 50; batch++) {
                        List<BsonDocument> docs = new ArrayList<>();
                        for (int i = 0; i < 50; i++) {
                            docs.add(measurement(1_000L * (batch * 50 + i), "same", writer * perThread + batch * 50 + i));
                        }
                        n += insert("concurrent", docs).getInt32("n").getValue();
                    }
                    return n;
                }));
            }
            start.countDown();
            for (Future<Integer> f : inserted) {
                assertThat(f.get()).isEqualTo(perThread);
            }
        } finally {
            pool.shutdownNow();
        }
        List<BsonDocument> all = new ArrayList<>();
        BsonDocument reply = run(DB, "{find: 'concurrent', batchSize: 10000}");
        reply.getDocument("cursor").getArray("firstBatch").forEach(d -> all.add(d.asDocument()));
        assertThat(all).extracting(d -> d.getInt32("v").getValue()).doesNotHaveDuplicates().hasSize(threads * perThread);
        List<BsonDocument> buckets = documentsOf(DB, "system.buckets.concurrent");
        assertThat(buckets).allSatisfy(b -> assertThat(b.getDocument("data").getDocument("v").size()).isLessThanOrEqualTo(1000));
        // 3 full buckets at least; how many more depends on the interleaving: a writer whose batch is older than the
        // open bucket's start opens another (out-of-order times, as in MongoDB). Batches must still share buckets
        // rather than get one each (48).
        assertThat(buckets).hasSizeGreaterThanOrEqualTo(3).hasSizeLessThanOrEqualTo(12);
    }

    @Test
    void commandsThatDoNotServeTimeseriesAreRefusedAndDropRemovesTheBuckets() {
        assertOk(run(DB, "{create: 'gone', timeseries: {timeField: 't'}}"));
        insert("gone", List.of(measurement(0, "a", 1)));
        BsonDocument refused = run(DB, "{createIndexes: 'gone', indexes: [{key: {v: 1}, name: 'v_1'}]}");
        assertThat(refused.getNumber("code").intValue()).isEqualTo(238);
        assertThat(refused.getString("errmsg").getValue()).contains("time-series");

        assertOk(run(DB, "{drop: 'gone'}"));
        assertThat(names()).doesNotContain("gone", "system.buckets.gone");
        assertOk(run(DB, "{create: 'gone'}"));
    }

    @Test
    void countCountsTheMatchingMeasurementsWithSkipAndLimit() {
        assertOk(run(DB, "{create: 'counted', timeseries: {timeField: 't', metaField: 'm'}}"));
        List<BsonDocument> measurements = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            measurements.add(measurement(i * MINUTE, "s" + (i % 3), i));
        }
        insert("counted", measurements);

        assertThat(run(DB, "{count: 'counted'}").getNumber("n").intValue()).isEqualTo(30);
        assertThat(run(DB, "{count: 'counted', query: {v: {$gte: 10}}}").getNumber("n").intValue()).isEqualTo(20);
        assertThat(run(DB, "{count: 'counted', query: {m: {id: 's1'}}, skip: 2, limit: 5}").getNumber("n").intValue()).isEqualTo(5);
        assertThat(run(DB, "{count: 'counted', query: {v: {$gt: 100}}}").getNumber("n").intValue()).isZero();
    }

    @Test
    void aWholeMetaEqualityAndATimeRangeScanOnlyTheMatchingBucketsThroughTheBucketIndex() {
        assertOk(run(DB, "{create: 'indexed', timeseries: {timeField: 't', metaField: 'm'}}"));
        List<BsonDocument> measurements = new ArrayList<>();
        for (int i = 0; i < 600; i++) {
            measurements.add(measurement(i * MINUTE, "s" + (i % 2), i));
        }
        insert("indexed", measurements);

        BsonDocument explain = run(DB, """
                {explain: {find: 'indexed', filter: {m: {id: 's0'}, t: {$gte: {$date: '1970-01-01T02:00:00Z'},
                 $lt: {$date: '1970-01-01T03:00:00Z'}}}}, verbosity: 'executionStats'}""");
        BsonDocument stats = explain.getDocument("executionStats");
        assertThat(stats.getNumber("nReturned").longValue()).isEqualTo(1);
        assertThat(stats.getNumber("totalDocsExamined").longValue()).as(explain.toJson()).isLessThanOrEqualTo(10); // the index bounds the meta value (the planner does not bound its second field yet)
    }

    @Test
    void theTtlMonitorDeletesBucketsWhoseNewestMeasurementIsPastExpireAfterSeconds() {
        assertOk(run(DB, "{create: 'ttl', timeseries: {timeField: 't', metaField: 'm'}, expireAfterSeconds: 3600}"));
        long now = System.currentTimeMillis();
        insert("ttl", List.of(measurement(now - 3 * 3_600_000, "old", 1), measurement(now - 2 * 3_600_000, "old", 2),
                measurement(now - 3 * 3_600_000, "mixed", 3), measurement(now - 60_000, "mixed", 4), measurement(now, "new", 5)));

        assertThat(ttlMonitor.expire()).isEqualTo(3);

        assertThat(documentsOf(DB, "ttl")).extracting(d -> d.getInt32("v").getValue()).containsExactlyInAnyOrder(4, 5);
        assertThat(ttlMonitor.expire()).isZero();
        // the open bucket of "old" was deleted under the bucket catalog: the insert places the measurement again
        insert("ttl", List.of(measurement(now - 2 * 3_600_000 + 1000, "old", 6)));
        assertThat(documentsOf(DB, "ttl")).extracting(d -> d.getInt32("v").getValue()).containsExactlyInAnyOrder(4, 5, 6);
    }

    private static BsonDocument measurement(long time, String sensor, int value) {
        return new BsonDocument("_id", new BsonString(sensor + "-" + value)).append("t", new BsonDateTime(time))
                .append("m", new BsonDocument("id", new BsonString(sensor))).append("v", new BsonInt32(value));
    }

    private BsonDocument insert(String collection, List<BsonDocument> documents) {
        BsonDocument reply = run(DB, new BsonDocument("insert", new BsonString(collection)).append("documents", new BsonArray(documents)));
        assertOk(reply);
        return reply;
    }

    private List<BsonDocument> drain(String collection, BsonDocument reply) {
        List<BsonDocument> out = new ArrayList<>();
        BsonDocument cursor = reply.getDocument("cursor");
        cursor.getArray("firstBatch").forEach(d -> out.add(d.asDocument()));
        long id = cursor.getInt64("id").getValue();
        while (id != 0) {
            BsonDocument next = run(DB, "{getMore: {$numberLong: '" + id + "'}, collection: '" + collection + "'}").getDocument("cursor");
            next.getArray("nextBatch").forEach(d -> out.add(d.asDocument()));
            id = next.getInt64("id").getValue();
        }
        return out;
    }

    private Map<String, BsonDocument> entries() {
        Map<String, BsonDocument> byName = new HashMap<>();
        run(DB, "{listCollections: 1}").getDocument("cursor").getArray("firstBatch")
                .forEach(e -> byName.put(e.asDocument().getString("name").getValue(), e.asDocument()));
        return byName;
    }

    private List<String> names() {
        return List.copyOf(entries().keySet());
    }

    private static void assertOk(BsonDocument reply) {
        assertThat(reply.getNumber("ok").intValue()).as(reply.toJson()).isEqualTo(1);
    }
}
