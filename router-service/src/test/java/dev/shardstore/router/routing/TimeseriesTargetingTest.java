package dev.shardstore.router.routing;

import dev.shardstore.support.catalog.DatabaseEntry;
import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.sharding.Chunk;
import dev.shardstore.contracts.sharding.ChunkRange;
import dev.shardstore.contracts.sharding.RoutingTable;
import dev.shardstore.contracts.sharding.ShardKeyPattern;
import dev.shardstore.contracts.sharding.ShardedCollection;
import dev.shardstore.contracts.timeseries.Granularity;
import dev.shardstore.contracts.timeseries.TimeseriesOptions;
import dev.shardstore.contracts.version.ChunkVersion;
import dev.shardstore.contracts.version.DatabaseVersion;
import dev.shardstore.engine.timeseries.Bucket;
import java.util.List;
import java.util.UUID;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;

/**
 * Targeting on a sharded time-series collection (mongo/src/mongo/db/s/README_timeseries.md "CRUD operations"): a measurement filter
 * targets through its bucket-level predicate, and an insert through the bucket it would open.
 */
public class TimeseriesTargetingTest {
    private static final ObjectId EPOCH = new ObjectId();
    private static final BsonTimestamp TS = new BsonTimestamp(1, 1);
    /** The collection's options: time field {@code ts}, meta field {@code loc}, granularity hours. */
    public static final TimeseriesOptions HOURS = TimeseriesOptions.of("ts", "loc", Granularity.HOURS);

    /**
     * Buckets of {@code key} split at {@code split}: the lower chunk on s0, the upper on s1 (also the routing of the
     * command package's time-series write targeting tests).
     */
    public static CollectionRouting routing(String key, String split) {
        return routing(key, split, HOURS);
    }

    private static CollectionRouting routing(String key, String split, TimeseriesOptions options) {
        ShardKeyPattern pattern = ShardKeyPattern.of(ExtendedJson.parse(key));
        ShardedCollection buckets = new ShardedCollection("db.system.buckets.w", UUID.randomUUID(), EPOCH, TS, pattern, false, false, options);
        BsonDocument middle = ExtendedJson.parse(split);
        RoutingTable table = RoutingTable.of(buckets, List.of(
                new Chunk(new ChunkRange(pattern.globalMin(), middle), "s0", new ChunkVersion(1, 0, EPOCH, TS)),
                new Chunk(new ChunkRange(middle, pattern.globalMax()), "s1", new ChunkVersion(1, 1, EPOCH, TS))));
        return new CollectionRouting("db.w", new DatabaseEntry("db", "s0", new DatabaseVersion(UUID.randomUUID(), 1, TS)), table);
    }

    private static List<String> targets(CollectionRouting routing, String filter) {
        return ShardKeyTargeter.shards(routing, ExtendedJson.parse(filter));
    }

    @Test
    void aMetaKeyTargetsByTheMetaCondition() {
        CollectionRouting byMeta = routing("{meta: 1}", "{meta: 'Seattle'}");

        assertThat(targets(byMeta, "{loc: 'Seattle'}")).containsExactly("s1");
        assertThat(targets(byMeta, "{loc: 'New York', wind: {$gt: 3}}")).containsExactly("s0");
        assertThat(targets(byMeta, "{wind: {$gt: 3}}")).as("nothing on meta: broadcast").containsExactly("s0", "s1");
        assertThat(targets(byMeta, "{$or: [{loc: 'Seattle'}, {loc: 'Boston'}]}")).containsExactly("s0", "s1");
    }

    @Test
    void aTimeKeyTargetsByTheBucketsThatCanHoldTheTimeRange() {
        CollectionRouting byTime = routing("{'control.min.ts': 1}", "{'control.min.ts': {$date: '2014-01-01T00:00:00Z'}}");

        assertThat(targets(byTime, "{ts: {$gte: {$date: '2012-03-01T00:00:00Z'}, $lt: {$date: '2013-01-01T00:00:00Z'}}}"))
                .containsExactly("s0");
        assertThat(targets(byTime, "{ts: {$gte: {$date: '2015-03-01T00:00:00Z'}}}")).containsExactly("s1");
        // a bucket opened up to bucketMaxSpanSeconds (30 days) before may hold it
        assertThat(targets(byTime, "{ts: {$gte: {$date: '2014-01-10T00:00:00Z'}}}")).containsExactly("s0", "s1");
        assertThat(targets(byTime, "{ts: {$date: '2013-06-01T00:00:00Z'}}")).containsExactly("s0");
    }

    @Test
    void afterAGranularityChangeInsertsAndTimePredicatesRouteByTheCurrentBucketing() {
        TimeseriesOptions seconds = TimeseriesOptions.of("ts", "loc", Granularity.SECONDS);
        String key = "{'control.min.ts': 1}";
        String split = "{'control.min.ts': {$date: '2014-01-01T06:00:00Z'}}";
        CollectionRouting before = routing(key, split, seconds);
        CollectionRouting after = routing(key, split, seconds.modifiedBy(ExtendedJson.parse("{granularity: 'hours'}"), "collMod.timeseries"));
        BsonDocument measurement = ExtendedJson.parse("{ts: {$date: '2014-01-01T10:37:00Z'}, loc: 'Seattle'}");

        // rounded to the minute the bucket starts at 10:37 (upper chunk); rounded to the day at 00:00 (lower chunk)
        assertThat(before.table().chunkFor(Bucket.routingDocument(before.table().collection().timeseriesFields(), measurement)).shard())
                .isEqualTo("s1");
        assertThat(after.table().chunkFor(Bucket.routingDocument(after.table().collection().timeseriesFields(), measurement)).shard())
                .isEqualTo("s0");
        // an hour-long bucket holding 10:00 starts after 09:00; a 30-day one may start before the split
        String fromTen = "{ts: {$gte: {$date: '2014-01-01T10:00:00Z'}}}";
        assertThat(targets(before, fromTen)).containsExactly("s1");
        assertThat(targets(after, fromTen)).containsExactly("s0", "s1");
    }

    @Test
    void anInsertGoesWhereTheBucketItWouldOpenBelongs() {
        RoutingTable byTime = routing("{'control.min.ts': 1}", "{'control.min.ts': {$date: '2014-01-01T00:00:00Z'}}").table();
        RoutingTable byMeta = routing("{meta: 1}", "{meta: 'Seattle'}").table();

        // 2013-12-31T23:00 rounds down to the day (hours: 86400 s rounding): the lower chunk; 2014-01-01T05:00 the upper
        assertThat(byTime.chunkFor(Bucket.routingDocument(HOURS, ExtendedJson.parse("{ts: {$date: '2013-12-31T23:00:00Z'}}"))).shard())
                .isEqualTo("s0");
        assertThat(byTime.chunkFor(Bucket.routingDocument(HOURS, ExtendedJson.parse("{ts: {$date: '2014-01-01T05:00:00Z'}}"))).shard())
                .isEqualTo("s1");
        assertThat(byMeta.chunkFor(Bucket.routingDocument(HOURS, ExtendedJson.parse("{ts: {$date: '2014-01-01T05:00:00Z'}, loc: 'Seattle'}")))
                .shard()).isEqualTo("s1");
        assertThat(byMeta.chunkFor(Bucket.routingDocument(HOURS, ExtendedJson.parse("{ts: {$date: '2014-01-01T05:00:00Z'}}"))).shard())
                .as("no meta value: the null meta").isEqualTo("s0");
    }
}
