package dev.shardstore.engine.timeseries;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.timeseries.Granularity;
import dev.shardstore.contracts.timeseries.TimeseriesOptions;
import java.util.List;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;

/** {@link Bucket#repack}: a stored bucket rewritten with fewer or changed measurements. */
class BucketRepackTest {
    private static final TimeseriesOptions OPTIONS = TimeseriesOptions.of("t", "m", Granularity.MINUTES);

    @Test
    void keepsIdMetaAndRoundedMinTimeAndRecomputesEverythingElseExactly() {
        // granularity minutes rounds bucket starts down to the hour: 0:01:30 opens the bucket at 0:00
        Bucket bucket = Bucket.open(OPTIONS, ExtendedJson.parse("{m: 'a'}").get("m"), 90_000);
        for (String m : List.of("{_id: 1, t: {$date: 90000}, m: 'a', v: 5}", "{_id: 2, t: {$date: 150000}, m: 'a', v: 1, w: 'x'}",
                "{_id: 3, t: {$date: 200000}, m: 'a', v: 9}")) {
            BsonDocument measurement = ExtendedJson.parse(m);
            bucket.add(measurement, 30);
        }
        BsonDocument stored = bucket.toDocument();
        List<BsonDocument> remaining = new BucketUnpacker("t", "m", null, true).unpack(stored).subList(0, 2);
        remaining.get(0).put("v", ExtendedJson.parse("{v: 7}").get("v"));

        BsonDocument repacked = Bucket.repack(OPTIONS, stored, remaining).toDocument();

        assertThat(repacked.get("_id")).isEqualTo(stored.get("_id"));
        assertThat(repacked.get("meta")).isEqualTo(stored.get("meta"));
        assertThat(repacked.getDocument("control")).isEqualTo(ExtendedJson.parse(
                "{version: 1, min: {t: {$date: 0}, _id: 1, v: 1, w: 'x'}, max: {_id: 2, t: {$date: 150000}, v: 7, w: 'x'}}"));
        assertThat(new BucketUnpacker("t", "m", null, true).unpack(repacked)).isEqualTo(remaining);
    }
}
