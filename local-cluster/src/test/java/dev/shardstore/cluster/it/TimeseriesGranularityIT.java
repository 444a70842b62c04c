package dev.shardstore.cluster.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.cluster.LocalCluster;
import dev.shardstore.cluster.router.RouterClient;
import dev.shardstore.contracts.bson.ExtendedJson;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * collMod of a sharded time-series collection's granularity end to end (issue 13; mongo/src/mongo/db/s/README_timeseries.md
 * "Sharding metadata", "Orphan buckets and the bucket catalog") on a local cluster of separate processes (the cluster
 * {@link OnSharedCluster} classes share), with small data:
 * <ul>
 *   <li>a collection sharded on the time field, split by day across both shards: measurements inserted with
 *       granularity seconds, then {@code collMod} to hours (config.collections' {@code timeseriesFields} changes),
 *       then more measurements: every one found exactly once, range queries on time return exactly theirs and count is
 *       exact, and a range the old one-hour span kept on one shard now targets both (buckets may span 30 days);</li>
 *   <li>a collection sharded on the meta field: the same, a meta equality still targets one shard, distinct is exact;
 *       after its chunk moved away, inserts of that meta land on the new owner and nothing is lost (the donor's bucket
 *       catalog was cleared);</li>
 *   <li>a finer granularity and decreasing custom bucketing are refused (InvalidOptions) and change nothing.</li>
 * </ul>
 */
@OnSharedCluster
class TimeseriesGranularityIT {
    private static final String DB = "tsgran";
    private static final long HOUR = 3_600_000;
    private static final long DAY1 = Instant.parse("2024-01-01T00:00:00Z").toEpochMilli();
    private static final long DAY = 24 * HOUR;
    private static LocalCluster cluster;
    @RegisterExtension
    static final ThreadDumpOnFailure THREAD_DUMPS = new ThreadDumpOnFailure(() -> cluster);
    private static RouterClient router;

    @BeforeAll
    static void onSharedCluster(MigrationCluster shared) {
        cluster = shared.cluster;
        router = new RouterClient(cluster.routerUrl(1), Duration.ofSeconds(120));
    }

    @Test
    void aTimeKeyedCollectionKeepsAnsweringExactlyAcrossAGranularityChange() {
        shard("byTime", "{t: 1}");
        String buckets = DB + ".system.buckets.byTime";
        ok("admin", "{split: '" + buckets + "', middle: {'control.min.t': {$date: '2024-01-02T00:00:00Z'}}}");
        String lower = lowestOwner(buckets);
        String upper = lower.equals("shard1") ? "shard2" : "shard1";
        ok("admin", "{moveChunk: '" + buckets + "', find: {'control.min.t': {$date: '2024-01-05T00:00:00Z'}}, to: '" + upper + "'}");

        List<BsonDocument> all = new ArrayList<>();
        all.addAll(insert("byTime", "a", DAY1 + 10 * HOUR, 20));        // day 1, 10:00-10:19
        all.addAll(insert("byTime", "a", DAY1 + DAY + 10 * HOUR, 20));  // day 2, 10:00-10:19
        String dayTwoNoon = "{t: {$gte: {$date: '2024-01-02T12:00:00Z'}}}";
        assertThat(targets("byTime", dayTwoNoon)).as("one-hour buckets: only the upper chunk's").containsExactly(upper);

        ok(DB, "{collMod: 'byTime', timeseries: {granularity: 'hours'}}");
        assertThat(catalogEntry(buckets).getDocument("timeseriesFields")).isEqualTo(BsonDocument.parse(
                "{timeField: 't', metaField: 'm', granularity: 'hours', bucketMaxSpanSeconds: 2592000}"));

        all.addAll(insert("byTime", "b", DAY1 + 23 * HOUR + 30 * 60_000, 20)); // day 1, 23:30-23:49: a bucket from day 1 00:00
        all.addAll(insert("byTime", "b", DAY1 + DAY + 12 * HOUR, 20));         // day 2, 12:00-12:19
        all.addAll(insert("byTime", "c", DAY1 + 2 * DAY + 22 * HOUR, 20));     // day 3, 22:00-22:19

        assertEveryMeasurementOnce("byTime", all);
        assertThat(targets("byTime", dayTwoNoon)).as("30-day buckets starting before the split may hold it").hasSize(2);
        assertRange("byTime", all, DAY1 + DAY, DAY1 + 2 * DAY);
        assertRange("byTime", all, DAY1 + 10 * HOUR + 5 * 60_000, DAY1 + 23 * HOUR + 40 * 60_000);
        assertRange("byTime", all, DAY1 + DAY + 12 * HOUR, DAY1 + 3 * DAY);
        assertThat(targets("byTime", "{t: {$lt: {$date: '2024-01-01T23:00:00Z'}}}")).containsExactly(lower);
        assertThat(shardBuckets(lower, "byTime")).allSatisfy(b -> assertThat(minTime(b)).isLessThan(DAY1 + DAY));
        assertThat(shardBuckets(upper, "byTime")).allSatisfy(b -> assertThat(minTime(b)).isGreaterThanOrEqualTo(DAY1 + DAY));

        // finer, or decreasing custom bucketing: refused naming the option, nothing changes
        assertRefused("{collMod: 'byTime', timeseries: {granularity: 'minutes'}}", "InvalidOptions", "collMod.timeseries.granularity");
        assertRefused("{collMod: 'byTime', timeseries: {bucketMaxSpanSeconds: 3600, bucketRoundingSeconds: 3600}}", "InvalidOptions",
                "bucketMaxSpanSeconds");
        assertRefused("{collMod: 'byTime', validator: {a: 1}}", "NotImplemented", "collMod.validator");
        assertThat(catalogEntry(buckets).getDocument("timeseriesFields").getString("granularity").getValue()).isEqualTo("hours");
        assertEveryMeasurementOnce("byTime", all);
    }

    @Test
    void aMetaKeyedCollectionKeepsAnsweringExactlyAcrossAGranularityChangeAndAMigration() {
        shard("byMeta", "{m: 1}");
        String buckets = DB + ".system.buckets.byMeta";
        ok("admin", "{split: '" + buckets + "', middle: {meta: 'm'}}");
        String lowShard = lowestOwner(buckets);
        String highShard = lowShard.equals("shard1") ? "shard2" : "shard1";
        ok("admin", "{moveChunk: '" + buckets + "', find: {meta: 'z'}, to: '" + highShard + "'}");

        List<BsonDocument> all = new ArrayList<>();
        all.addAll(insert("byMeta", "a", DAY1, 15));
        all.addAll(insert("byMeta", "z", DAY1, 15));
        ok(DB, "{collMod: 'byMeta', timeseries: {granularity: 'hours'}}");
        all.addAll(insert("byMeta", "a", DAY1 + 5 * HOUR, 15));
        all.addAll(insert("byMeta", "z", DAY1 + 2 * DAY, 15));

        assertEveryMeasurementOnce("byMeta", all);
        assertThat(targets("byMeta", "{m: 'z'}")).containsExactly(highShard);
        assertThat(count("byMeta", "{m: 'a'}")).isEqualTo(30);
        assertRange("byMeta", all, DAY1 + 2 * HOUR, DAY1 + 3 * DAY);
        BsonDocument distinct = ok(DB, "{distinct: 'byMeta', key: 'm', query: {t: {$gte: {$date: '2024-01-01T01:00:00Z'}}}}");
        assertThat(distinct.getArray("values")).containsExactly(new BsonString("a"), new BsonString("z"));

        // a's chunk moves away while the low shard has a's bucket open: the next inserts of a go to the new owner
        ok("admin", "{moveChunk: '" + buckets + "', find: {meta: 'a'}, to: '" + highShard + "', _waitForDelete: true}");
        all.addAll(insert("byMeta", "a", DAY1 + 5 * HOUR + 15 * 60_000, 15));
        assertEveryMeasurementOnce("byMeta", all);
        assertThat(count("byMeta", "{m: 'a'}")).isEqualTo(45);
        assertThat(shardBuckets(lowShard, "byMeta")).as("the donor kept no bucket and wrote none after the move").isEmpty();
    }

    private static void shard(String coll, String key) {
        ok("admin", "{shardCollection: '" + DB + "." + coll + "', key: " + key
                + ", timeseries: {timeField: 't', metaField: 'm', granularity: 'seconds'}}");
    }

    /** {@code n} measurements of {@code meta} one minute apart from {@code start}, inserted through the router. */
    private static List<BsonDocument> insert(String coll, String meta, long start, int n) {
        List<BsonDocument> docs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            docs.add(new BsonDocument("_id", new BsonString(meta + "-" + start + "-" + i)).append("t", new BsonDateTime(start + i * 60_000L))
                    .append("m", new BsonString(meta)).append("v", new BsonInt32(i)));
        }
        BsonDocument reply = RouterClient.requireOk("insert", router.run(DB, new BsonDocument("insert", new BsonString(coll))
                .append("documents", new BsonArray(docs))));
        assertThat(reply.getNumber("n").intValue()).as(reply.toJson()).isEqualTo(n);
        return docs;
    }

    private static void assertEveryMeasurementOnce(String coll, List<BsonDocument> expected) {
        List<String> ids = find(coll, new BsonDocument()).stream().map(d -> d.getString("_id").getValue()).toList();
        assertThat(ids).containsExactlyInAnyOrderElementsOf(expected.stream().map(d -> d.getString("_id").getValue()).toList());
        assertThat(count(coll, "{}")).isEqualTo(expected.size());
    }

    /** find and count of {@code [from, to)} on the time field return exactly the measurements in it. */
    private static void assertRange(String coll, List<BsonDocument> all, long from, long to) {
        BsonDocument filter = new BsonDocument("t", new BsonDocument("$gte", new BsonDateTime(from)).append("$lt", new BsonDateTime(to)));
        List<String> expected = all.stream().filter(d -> d.getDateTime("t").getValue() >= from && d.getDateTime("t").getValue() < to)
                .map(d -> d.getString("_id").getValue()).toList();
        assertThat(find(coll, filter)).extracting(d -> d.getString("_id").getValue()).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(RouterClient.requireOk("count", router.run(DB, new BsonDocument("count", new BsonString(coll)).append("query", filter)))
                .getNumber("n").intValue()).isEqualTo(expected.size());
    }

    private static List<BsonDocument> find(String coll, BsonDocument filter) {
        return ItSupport.drain(router, DB, coll, RouterClient.requireOk("find", router.run(DB, new BsonDocument("find", new BsonString(coll))
                .append("filter", filter).append("batchSize", new BsonInt32(1000)))));
    }

    private static int count(String coll, String query) {
        return ok(DB, "{count: '" + coll + "', query: " + query + "}").getNumber("n").intValue();
    }

    /** The shards an explain of find with {@code filter} reaches, sorted. */
    private static List<String> targets(String coll, String filter) {
        BsonDocument plan = ok(DB, "{explain: {find: '" + coll + "', filter: " + filter + "}}").getDocument("queryPlanner")
                .getDocument("winningPlan");
        return plan.getArray("shards").stream().map(s -> s.asDocument().getString("shardName").getValue()).sorted().toList();
    }

    /** The buckets of {@code coll} stored on {@code shard} (unversioned: orphans included). */
    private static List<BsonDocument> shardBuckets(String shard, String coll) {
        return ItSupport.storedOn(cluster, shard, DB, "system.buckets." + coll);
    }

    private static long minTime(BsonDocument bucket) {
        return bucket.getDocument("control").getDocument("min").getDateTime("t").getValue();
    }

    /** The shard owning the lowest chunk of {@code ns} (the one from MinKey, below the split point). */
    private static String lowestOwner(String ns) {
        return ItSupport.chunks(router, ns).stream()
                .filter(c -> c.getDocument("min").values().iterator().next().getBsonType() == BsonType.MIN_KEY)
                .map(c -> c.getString("shard").getValue()).findFirst().orElseThrow();
    }

    private static BsonDocument catalogEntry(String ns) {
        return ItSupport.firstBatch(router, "collections", new BsonDocument("_id", new BsonString(ns))).getFirst();
    }

    private static void assertRefused(String command, String codeName, String named) {
        BsonDocument reply = router.run(DB, ExtendedJson.parse(command));
        assertThat(reply.getNumber("ok").intValue()).as(reply.toJson()).isZero();
        assertThat(reply.getString("codeName").getValue()).isEqualTo(codeName);
        assertThat(reply.getString("errmsg").getValue()).contains(named);
    }

    private static BsonDocument ok(String db, String json) {
        return ItSupport.ok(router, db, json);
    }
}
