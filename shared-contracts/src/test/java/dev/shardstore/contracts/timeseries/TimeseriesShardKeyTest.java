package dev.shardstore.contracts.timeseries;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.error.CommandException;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Each row of the translation table of mongo/src/mongo/db/s/README_timeseries.md "shardCollection command", and each shard key a time-series collection refuses. */
class TimeseriesShardKeyTest {
    private static final TimeseriesOptions OPTIONS = TimeseriesOptions.of("t", "m", Granularity.SECONDS);

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {t: 1}               | {'control.min.t': 1}                  | {'control.min.t': 1, 'control.max.t': 1}
            {m: 1, t: 1}         | {meta: 1, 'control.min.t': 1}         | {meta: 1, 'control.min.t': 1, 'control.max.t': 1}
            {m: 'hashed'}        | {meta: 'hashed'}                      | {meta: 'hashed'}
            {m: 'hashed', t: 1}  | {meta: 'hashed', 'control.min.t': 1}  | {meta: 'hashed', 'control.min.t': 1, 'control.max.t': 1}
            {'m.a': 1}           | {'meta.a': 1}                         | {'meta.a': 1}
            {'m.a': 1, 'm.b': 1, t: 1} | {'meta.a': 1, 'meta.b': 1, 'control.min.t': 1} | {'meta.a': 1, 'meta.b': 1, 'control.min.t': 1, 'control.max.t': 1}
            """)
    void translatesAsTheReferenceTableShows(String viewKey, String bucketsKey, String index) {
        TimeseriesShardKey key = TimeseriesShardKey.translate(OPTIONS, ExtendedJson.parse(viewKey));
        assertThat(key.bucketsKey().pattern()).isEqualTo(ExtendedJson.parse(bucketsKey));
        assertThat(key.index()).isEqualTo(ExtendedJson.parse(index));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {t: 1, m: 1}        | 72 | key.t: the time field 't' must be the last field
            {t: -1}             | 72 | key.t: the time field 't' can only be an ascending (1) range key
            {t: 'hashed'}       | 72 | key.t: the time field 't' can only be an ascending (1) range key
            {m: 'hashed', t: -1} | 72 | key.t:
            {v: 1}              | 72 | key.v: only the metaField 'm', its subfields and the timeField 't'
            {m: 1, v: 1}        | 72 | key.v:
            {_id: 1}            | 72 | key._id:
            {mm: 1}             | 72 | key.mm:
            {m: 'hashed', 'm.a': 'hashed'} | 2 | key
            """)
    void refusesKeysTheReferenceRulesOut(String viewKey, int code, String message) {
        assertThatThrownBy(() -> TimeseriesShardKey.translate(OPTIONS, ExtendedJson.parse(viewKey)))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code().code()).isEqualTo(code))
                .hasMessageContaining(message);
    }

    @Test
    void aCollectionWithoutMetaFieldTakesOnlyTheTimeField() {
        TimeseriesOptions noMeta = TimeseriesOptions.of("t", null, Granularity.HOURS);
        assertThatThrownBy(() -> TimeseriesShardKey.translate(noMeta, ExtendedJson.parse("{m: 1}")))
                .hasMessageContaining("has none");
        assertThat(TimeseriesShardKey.translate(noMeta, new BsonDocument("t", new BsonInt32(1))).bucketsKey().fields())
                .containsExactly("control.min.t");
    }
}
