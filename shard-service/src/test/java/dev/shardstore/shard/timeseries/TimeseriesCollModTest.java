package dev.shardstore.shard.timeseries;

import dev.shardstore.shard.write.BucketCatalog;
import dev.shardstore.support.operation.OperationContext;
import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.contracts.sharding.ShardedCollection;
import dev.shardstore.contracts.timeseries.Granularity;
import dev.shardstore.contracts.timeseries.TimeseriesOptions;
import dev.shardstore.contracts.version.ChunkVersion;
import dev.shardstore.shard.ConfigServerStub;
import dev.shardstore.shard.ShardIntegrationTest;
import dev.shardstore.shard.TestRouting;
import dev.shardstore.shard.storage.CollectionCatalog;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.bson.BsonArray;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * collMod of time-series collections on one shard against its real PostgreSQL (MongoDB manual, "collMod";
 * mongo/src/mongo/db/s/README_timeseries.md "Sharding metadata"): a coarser granularity buckets later inserts by the new rounding while
 * measurements of older buckets stay found by range queries, count and distinct; the refused transitions and
 * options; {@code expireAfterSeconds}; distinct on measurements; and the bucket catalog forgetting open buckets.
 */
class TimeseriesCollModTest extends ShardIntegrationTest {
    private static final OperationContext TEST = OperationContext.internal("test");
    private static final String DB = "tscollmod";
    private static final long MINUTE = 60_000;
    private static final long DAY = 24 * 60 * MINUTE;

    @Autowired
    private BucketCatalog bucketCatalog;
    @Autowired
    private CollectionCatalog catalog;

    @Test
    void aCoarserGranularityBucketsLaterInsertsByItsRoundingAndOldMeasurementsStayFound() {
        assertOk(run(DB, "{create: 'g', timeseries: {timeField: 't', metaField: 'm'}}"));
        List<BsonDocument> before = new ArrayList<>();
        for (int i = 0; i < 90; i += 10) {
            before.add(measurement(DAY + i * MINUTE + 1_000, "a", i)); // seconds: spans of one hour, rounded to the minute
        }
        insert("g", before);
        assertThat(bucketMins("g")).containsExactlyInAnyOrder(DAY, DAY + 60 * MINUTE);

        assertOk(run(DB, "{collMod: 'g', timeseries: {granularity: 'hours'}}"));
        assertThat(run(DB, "{listCollections: 1, filter: {name: 'g'}}").getDocument("cursor").getArray("firstBatch").get(0).asDocument()
                .getDocument("options").getDocument("timeseries")).isEqualTo(ExtendedJson.parse(
                        "{timeField: 't', metaField: 'm', granularity: 'hours', bucketMaxSpanSeconds: 2592000}"));
        // a new meta two days later, 13:30: a new bucket rounded down to the day; a's old bucket, whose span the new
        // bucketMaxSpanSeconds covers, is reopened (as MongoDB reopens any stored bucket of the span)
        insert("g", List.of(measurement(3 * DAY + 810 * MINUTE, "b", 100), measurement(20 * DAY, "a", 101)));
        assertThat(bucketMins("g")).containsExactlyInAnyOrder(DAY, DAY + 60 * MINUTE, 3 * DAY);

        // every measurement exactly once; a range over old and new buckets, count and distinct are exact
        assertThat(documentsOf(DB, "g")).hasSize(11);
        BsonDocument range = new BsonDocument("t", new BsonDocument("$gte", new BsonDateTime(DAY + 30 * MINUTE))
                .append("$lt", new BsonDateTime(4 * DAY)));
        assertThat(values(run(DB, new BsonDocument("find", new BsonString("g")).append("filter", range)))).containsExactlyInAnyOrder(
                30, 40, 50, 60, 70, 80, 100);
        assertThat(run(DB, new BsonDocument("count", new BsonString("g")).append("query", range)).getNumber("n").intValue()).isEqualTo(7);
        BsonDocument late = new BsonDocument("t", new BsonDocument("$gte", new BsonDateTime(10 * DAY)));
        assertThat(run(DB, new BsonDocument("distinct", new BsonString("g")).append("key", new BsonString("v")).append("query", late))
                .getArray("values")).containsExactly(new BsonInt32(101));

        BsonDocument finer = run(DB, "{collMod: 'g', timeseries: {granularity: 'minutes'}}");
        assertThat(finer.getNumber("code").intValue()).as(finer.toJson()).isEqualTo(72);
        assertThat(finer.getString("errmsg").getValue()).contains("collMod.timeseries.granularity");
        assertOk(run(DB, "{collMod: 'g', timeseries: {granularity: 'hours'}}")); // the same again: a retried collMod
    }

    @Test
    void customBucketingMayOnlyGrowAndBothParametersAreGivenEqual() {
        assertOk(run(DB, "{create: 'c', timeseries: {timeField: 't', bucketMaxSpanSeconds: 600, bucketRoundingSeconds: 600}}"));
        assertThat(code(run(DB, "{collMod: 'c', timeseries: {bucketMaxSpanSeconds: 300, bucketRoundingSeconds: 300}}"))).isEqualTo(72);
        assertThat(code(run(DB, "{collMod: 'c', timeseries: {bucketMaxSpanSeconds: 1200}}"))).isEqualTo(72);
        assertThat(code(run(DB, "{collMod: 'c', timeseries: {bucketMaxSpanSeconds: 1200, bucketRoundingSeconds: 900}}"))).isEqualTo(72);
        assertThat(code(run(DB, "{collMod: 'c', timeseries: {timeField: 'u'}}"))).isEqualTo(40415);
        assertOk(run(DB, "{collMod: 'c', timeseries: {bucketMaxSpanSeconds: 1200, bucketRoundingSeconds: 1200}}"));
        assertOk(run(DB, "{collMod: 'c', timeseries: {granularity: 'minutes'}}"));
        assertThat(code(run(DB, "{collMod: 'c', timeseries: {granularity: 'seconds'}}"))).isEqualTo(72);
        assertThat(TimeseriesCollections.optionsOf(TEST, catalog.find(new Namespace(DB, "system.buckets.c")).orElseThrow()).orElseThrow()
                .bucketMaxSpanSeconds()).isEqualTo(86_400);
    }

    @Test
    void expireAfterSecondsIsSetAndTurnedOff() {
        assertOk(run(DB, "{create: 'ttl', timeseries: {timeField: 't'}}"));
        assertOk(run(DB, "{collMod: 'ttl', expireAfterSeconds: 3600}"));
        assertThat(bucketsOptions("ttl").getNumber("expireAfterSeconds").longValue()).isEqualTo(3600);
        assertThat(code(run(DB, "{collMod: 'ttl', expireAfterSeconds: -1}"))).isEqualTo(72);
        assertOk(run(DB, "{collMod: 'ttl', expireAfterSeconds: 'off'}"));
        assertThat(bucketsOptions("ttl").containsKey("expireAfterSeconds")).isFalse();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {collMod: 'plain', timeseries: {granularity: 'hours'}} | 72  | collMod.timeseries
            {collMod: 'plain', expireAfterSeconds: 10}             | 72  | collMod.expireAfterSeconds
            {collMod: 'plain', validator: {a: 1}}                  | 238 | collMod.validator
            {collMod: 'plain', index: {name: 'a_1', hidden: true}} | 238 | collMod.index
            {collMod: 'missing'}                                   | 26  | missing
            """)
    void otherCollectionsAndOptionsAreRefusedNamingThem(String command, int code, String named) {
        assertOk(run(DB, "{create: 'plain'}"));
        assertOk(run(DB, "{collMod: 'plain'}"));
        BsonDocument reply = run(DB, command);
        assertThat(code(reply)).isEqualTo(code);
        assertThat(reply.getString("errmsg").getValue()).contains(named);
    }

    @Test
    void aVersionedCommandBucketsByTheRoutingTablesTimeseriesFieldsBeforeTheLocalCollModArrives() {
        assertOk(run(DB, "{create: 'sharded', timeseries: {timeField: 't', metaField: 'm'}}"));
        ShardedCollection local = TestRouting.collection(DB + ".system.buckets.sharded", "{meta: 1}");
        ShardedCollection buckets = new ShardedCollection(local.namespace(), local.uuid(), local.epoch(), local.timestamp(), local.key(),
                false, false, TimeseriesOptions.of("t", "m", Granularity.HOURS));
        ConfigServerStub.instance().putRoutingTable(buckets, List.of(
                TestRouting.chunk(buckets, "{meta: {$minKey: 1}}", "{meta: {$maxKey: 1}}", SHARD_NAME, 1, 0)));
        ChunkVersion v = TestRouting.version(buckets, 1, 0);

        assertOk(run(DB, TestRouting.versioned("{insert: 'sharded', documents: [{t: {$date: '2024-01-01T10:37:00Z'}, m: 'a', v: 1}]}", v)));
        assertThat(bucketMins("sharded")).as("rounded to the day, as config.collections says").containsExactly(
                java.time.Instant.parse("2024-01-01T00:00:00Z").toEpochMilli());
        // unversioned (no routing table), the local options (seconds) still apply until the collMod reaches the shard
        insert("sharded", List.of(measurement(java.time.Instant.parse("2024-03-01T10:37:00Z").toEpochMilli(), "b", 2)));
        assertThat(bucketMins("sharded")).contains(java.time.Instant.parse("2024-03-01T10:37:00Z").toEpochMilli());
        assertThat(values(run(DB, TestRouting.versioned("{find: 'sharded', filter: {t: {$gte: {$date: '2024-01-01T10:00:00Z'}}}}", v))))
                .containsExactlyInAnyOrder(1, 2);
    }

    @Test
    void clearingByNamespaceForgetsTheOpenBucketsAfterAMigration() {
        assertOk(run(DB, "{create: 'open', timeseries: {timeField: 't', metaField: 'm'}}"));
        insert("open", List.of(measurement(0, "a", 1)));
        UUID uuid = catalog.find(new Namespace(DB, "system.buckets.open")).orElseThrow().uuid();
        assertThat(bucketCatalog.hasOpenBuckets(uuid)).isTrue();

        bucketCatalog.clear(new Namespace(DB, "system.buckets.open"));

        assertThat(bucketCatalog.hasOpenBuckets(uuid)).isFalse();
        insert("open", List.of(measurement(1_000, "a", 2))); // reopened from what is stored
        assertThat(documentsOf(DB, "system.buckets.open")).hasSize(1);
        assertThat(documentsOf(DB, "open")).hasSize(2);
    }

    private static BsonDocument measurement(long time, String sensor, int value) {
        return new BsonDocument("_id", new BsonString(sensor + "-" + value)).append("t", new BsonDateTime(time))
                .append("m", new BsonString(sensor)).append("v", new BsonInt32(value));
    }

    private void insert(String collection, List<BsonDocument> documents) {
        assertOk(run(DB, new BsonDocument("insert", new BsonString(collection)).append("documents", new BsonArray(documents))));
    }

    private List<Long> bucketMins(String collection) {
        return documentsOf(DB, "system.buckets." + collection).stream()
                .map(b -> b.getDocument("control").getDocument("min").getDateTime("t").getValue()).toList();
    }

    private BsonDocument bucketsOptions(String collection) {
        return catalog.find(new Namespace(DB, "system.buckets." + collection)).orElseThrow().options();
    }

    private static List<Integer> values(BsonDocument findReply) {
        assertOk(findReply);
        return findReply.getDocument("cursor").getArray("firstBatch").stream().map(BsonValue::asDocument)
                .map(d -> d.getInt32("v").getValue()).toList();
    }

    private static int code(BsonDocument reply) {
        return reply.getNumber("code").intValue();
    }

    private static void assertOk(BsonDocument reply) {
        assertThat(reply.getNumber("ok").intValue()).as(reply.toJson()).isEqualTo(1);
    }
}
