package dev.shardstore.engine.timeseries;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.timeseries.Granularity;
import dev.shardstore.contracts.timeseries.TimeseriesOptions;
import dev.shardstore.engine.aggregate.Pipeline;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.bson.BsonArray;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The bucket format, $_internalUnpackBucket and the time-series rewrites: every rewritten pipeline over the buckets
 * answers what the original answers over the measurements, and the bucket-level $match skips buckets.
 */
class TimeseriesRewriteTest {
    private static final TimeseriesOptions OPTIONS = TimeseriesOptions.of("t", "m", Granularity.SECONDS);
    private static final long HOUR = 3_600_000;

    /** 3 sensors × 10 hours, one measurement every 10 minutes, bucketed per sensor and hour. */
    private final List<BsonDocument> measurements = new ArrayList<>();
    private final List<BsonDocument> buckets = new ArrayList<>();

    TimeseriesRewriteTest() {
        Map<String, Bucket> open = new LinkedHashMap<>();
        int id = 0;
        for (int minute = 0; minute < 600; minute += 10) {
            for (String sensor : List.of("a", "b", "c")) {
                BsonDocument m = new BsonDocument("_id", new BsonInt32(id++))
                        .append("t", new BsonDateTime(minute * 60_000L))
                        .append("m", new BsonDocument("sensor", new BsonString(sensor)))
                        .append("v", new BsonInt32(minute % 70));
                if (minute % 20 == 0) {
                    m.append("extra", new BsonString("x" + minute));
                }
                measurements.add(m);
                long t = Bucket.timeOf(OPTIONS, m);
                int size = BsonBytes.encode(m).length;
                Bucket bucket = open.get(sensor);
                if (bucket == null || !bucket.fits(t, size)) {
                    if (bucket != null) {
                        buckets.add(bucket.toDocument());
                    }
                    bucket = Bucket.open(OPTIONS, m.get("m"), t);
                    open.put(sensor, bucket);
                }
                bucket.add(m, size);
            }
        }
        open.values().forEach(b -> buckets.add(b.toDocument()));
    }

    @Test
    void bucketsHoldOneSensorHourWithExactControl() {
        assertThat(buckets).hasSize(30);
        BsonDocument first = buckets.getFirst();
        assertThat(first.getDocument("meta")).isEqualTo(ExtendedJson.parse("{sensor: 'a'}"));
        BsonDocument control = first.getDocument("control");
        assertThat(control.getInt32("version").getValue()).isEqualTo(1);
        assertThat(control.getDocument("min").getDateTime("t").getValue()).isZero();
        assertThat(control.getDocument("max").getDateTime("t").getValue()).isEqualTo(50 * 60_000L);
        assertThat(control.getDocument("min").get("v")).isEqualTo(new BsonInt32(0));
        assertThat(control.getDocument("max").get("v")).isEqualTo(new BsonInt32(50));
        assertThat(first.getDocument("data").getDocument("extra").keySet()).containsExactly("0", "2", "4");
        assertThat(first.getObjectId("_id").getValue().getTimestamp()).isZero();
    }

    @Test
    void unpackingGivesBackEveryMeasurement() {
        BucketUnpacker unpacker = new BucketUnpacker("t", "m", null, true);
        List<BsonDocument> unpacked = buckets.stream().flatMap(b -> unpacker.unpack(b).stream()).toList();
        assertThat(unpacked).containsExactlyInAnyOrderElementsOf(measurements);
    }

    @Test
    void bucketRefusesMeasurementsOutsideItsSpanOrOverItsCount() {
        Bucket bucket = Bucket.open(OPTIONS, null, 90_000);
        assertThat(bucket.minTime()).isEqualTo(60_000);
        assertThat(bucket.fits(59_999, 10)).isFalse();
        assertThat(bucket.fits(60_000 + HOUR - 1, 10)).isTrue();
        assertThat(bucket.fits(60_000 + HOUR, 10)).isFalse();
        for (int i = 0; i < Bucket.MAX_COUNT; i++) {
            bucket.add(new BsonDocument("t", new BsonDateTime(90_000)), 10);
        }
        assertThat(bucket.fits(90_000, 10)).isFalse();
        assertThat(bucket.toDocument().containsKey("meta")).isFalse();
    }

    @Test
    void timeOfNamesTheTimeField() {
        assertThatThrownBy(() -> Bucket.timeOf(OPTIONS, ExtendedJson.parse("{t: 'yesterday'}")))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.BadValue))
                .hasMessageContaining("'t' must be present");
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "{}",
            "{'m.sensor': 'b'}",
            "{m: {sensor: 'c'}}",
            "{t: {$gte: {$date: '1970-01-01T03:00:00Z'}, $lt: {$date: '1970-01-01T04:30:00Z'}}}",
            "{t: {$date: '1970-01-01T05:10:00Z'}}",
            "{t: {$gt: {$date: '1970-01-01T05:10:00Z'}}, 'm.sensor': {$in: ['a', 'c']}, v: {$gte: 30}}",
            "{$or: [{'m.sensor': 'a'}, {t: {$lte: {$date: '1970-01-01T01:00:00Z'}}}]}",
            "{$and: [{'m.sensor': 'a'}, {$expr: {$gt: ['$v', 40]}}]}",
            "{extra: {$exists: true}, t: {$lt: {$date: '1970-01-01T02:00:00Z'}}}"})
    void findOverBucketsEqualsFindOverMeasurements(String filterJson) {
        BsonDocument filter = ExtendedJson.parse(filterJson);
        BsonDocument sort = ExtendedJson.parse("{_id: 1}");
        List<BsonDocument> expected = run(new BsonArray(List.of(new BsonDocument("$match", filter), new BsonDocument("$sort", sort))),
                measurements);
        BsonArray rewritten = TimeseriesRewrite.find(OPTIONS, filter, sort, null, 0, 0);
        assertThat(run(rewritten, buckets)).as(rewritten.toString()).containsExactlyElementsOf(expected);
    }

    @Test
    void metaAndTimePredicatesSkipBucketsBeforeUnpacking() {
        BsonDocument filter = ExtendedJson.parse("{'m.sensor': 'b', t: {$gte: {$date: '1970-01-01T03:00:00Z'},"
                + " $lt: {$date: '1970-01-01T05:00:00Z'}}}");
        BsonArray rewritten = TimeseriesRewrite.find(OPTIONS, filter, null, null, 0, 0);
        BsonDocument bucketMatch = rewritten.get(0).asDocument().getDocument("$match");
        List<BsonDocument> kept = run(new BsonArray(List.of(new BsonDocument("$match", bucketMatch))), buckets);
        assertThat(kept).hasSize(2); // hours 3 and 4 of sensor b; the bucket of hour 2 ends before 03:00
        assertThat(rewritten.get(1).asDocument().getFirstKey()).isEqualTo("$_internalUnpackBucket");
    }

    @Test
    void projectionsAndGroupsUnpackOnlyTheFieldsTheyRead() {
        BsonArray find = TimeseriesRewrite.find(OPTIONS, ExtendedJson.parse("{v: 1}"), ExtendedJson.parse("{t: 1}"),
                ExtendedJson.parse("{_id: 0, 'm.sensor': 1}"), 0, 5);
        assertThat(unpackSpec(find).getArray("include")).containsExactly(new BsonString("m"), new BsonString("t"), new BsonString("v"));
        BsonArray group = ExtendedJson.parse("{p: [{$match: {'m.sensor': 'a'}}, {$group: {_id: '$m.sensor', avg: {$avg: '$v'}}}]}").getArray("p");
        BsonArray rewritten = TimeseriesRewrite.aggregate(OPTIONS, group);
        assertThat(unpackSpec(rewritten).getArray("include")).containsExactly(new BsonString("m"), new BsonString("v"));
        assertThat(run(rewritten, buckets)).isEqualTo(run(group, measurements));
        BsonArray root = ExtendedJson.parse("{p: [{$group: {_id: null, all: {$push: '$$ROOT'}}}]}").getArray("p");
        assertThat(unpackSpec(TimeseriesRewrite.aggregate(OPTIONS, root)).containsKey("include")).isFalse();
        assertThat(unpackSpec(TimeseriesRewrite.find(OPTIONS, new BsonDocument(), null, ExtendedJson.parse("{v: 0}"), 0, 0))
                .containsKey("include")).isFalse();
    }

    @Test
    void unpackStageRefusesBadSpecifications() {
        assertThatThrownBy(() -> Pipeline.parse(ExtendedJson.parse("{p: [{$_internalUnpackBucket: {timeField: 't'}}]}").getArray("p"),
                (c, f) -> List.of())).isInstanceOfSatisfying(CommandException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.FailedToParse));
        assertThatThrownBy(() -> Pipeline.parse(ExtendedJson.parse("{p: [{$_internalUnpackBucket: {timeField: 't', bucketMaxSpanSeconds: 60,"
                + " include: ['a'], exclude: ['b']}}]}").getArray("p"), (c, f) -> List.of())).hasMessageContaining("not both");
    }

    private static BsonDocument unpackSpec(BsonArray pipeline) {
        for (BsonValue stage : pipeline) {
            if (stage.asDocument().containsKey("$_internalUnpackBucket")) {
                return stage.asDocument().getDocument("$_internalUnpackBucket");
            }
        }
        throw new AssertionError("no unpack stage in " + pipeline);
    }

    private static List<BsonDocument> run(BsonArray pipeline, List<BsonDocument> input) {
        Pipeline parsed = Pipeline.parse(pipeline, (c, f) -> List.of());
        return parsed.run(input.stream().filter(parsed.scanFilter()::matches).toList());
    }
}
