package dev.shardstore.router.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.namespace.Namespace;
import java.util.List;
import org.bson.BsonArray;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** Parsing and placement of {@code $out}/{@code $merge} (MongoDB's shapes, defaults and errors). */
class OutputStageTest {
    private static BsonArray pipeline(String json) {
        return ExtendedJson.parse("{p: " + json + "}").getArray("p");
    }

    @Test
    void outTakesACollectionOrADbAndColl() {
        assertThat(OutputStage.parse("d", pipeline("[{$match: {}}, {$out: 'c'}]")).target()).isEqualTo(new Namespace("d", "c"));
        assertThat(OutputStage.parse("d", pipeline("[{$out: {db: 'e', coll: 'c'}}]")).target()).isEqualTo(new Namespace("e", "c"));
        assertThat(OutputStage.without(pipeline("[{$match: {}}, {$out: 'c'}]"))).isEqualTo(pipeline("[{$match: {}}]"));
    }

    @Test
    void mergeDefaultsToMergeAndInsertOnTheDefaultKey() {
        OutputStage merge = OutputStage.parse("d", pipeline("[{$merge: 'c'}]"));
        assertThat(merge.whenMatched()).isEqualTo("merge");
        assertThat(merge.whenNotMatched()).isEqualTo("insert");
        assertThat(merge.on()).isNull();
        OutputStage full = OutputStage.parse("d", pipeline(
                "[{$merge: {into: {db: 'e', coll: 'c'}, on: ['a', 'b'], let: {x: 1}, whenMatched: [{$set: {y: '$$x'}}], whenNotMatched: 'discard'}}]"));
        assertThat(full.target()).isEqualTo(new Namespace("e", "c"));
        assertThat(full.on()).isEqualTo(List.of("a", "b"));
        assertThat(full.whenMatched()).isEqualTo("pipeline");
        assertThat(full.matchedPipeline()).hasSize(1);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
        "[{$out: 'c'}, {$match: {}}]                                        | 40601",
        "[{$merge: 'c'}, {$match: {}}]                                      | 40601",
        "[{$facet: {f: [{$out: 'c'}]}}]                                     | 40600",
        "[{$lookup: {from: 'x', as: 'y', pipeline: [{$merge: 'c'}]}}]       | 51047",
    })
    void outAndMergeOnlyLastAndNeverNested(String json, int code) {
        assertThatThrownBy(() -> OutputStage.checkPlacement(pipeline(json)))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code().code()).isEqualTo(code));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
        "[{$merge: {into: 'c', whenMatched: 'keepExisting', whenNotMatched: 'discard'}}] | 51181",
        "[{$merge: {into: 'c', whenMatched: 'fail', whenNotMatched: 'fail'}}]           | 51181",
        "[{$merge: {into: 'c', whenMatched: 'upsert'}}]                                 | 2",
        "[{$merge: {into: 'c', let: {x: 1}}}]                                           | 2",
        "[{$merge: {whenMatched: 'merge'}}]                                             | 40414",
        "[{$merge: {into: 'c', bogus: 1}}]                                              | 40415",
        "[{$merge: {into: 'c', on: []}}]                                                | 14",
        "[{$out: {db: 'd', coll: 'c', timeseries: {timeField: 't'}}}]                   | 238",
        "[{$out: 5}]                                                                    | 14",
    })
    void badSpecsAreRefusedWithMongoDbsCodes(String json, int code) {
        assertThatThrownBy(() -> OutputStage.parse("d", pipeline(json)))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code().code()).isEqualTo(code));
    }
}
