package dev.shardstore.engine.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.engine.aggregate.Pipeline;
import java.util.Collections;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The values a path reaches, in both of MongoDB's views (matcher: {@code path.cpp}'s BSONElementIterator;
 * sort key: the index-key generator). {@code "missing"} stands for a missing value.
 */
class PathsTest {
    @ParameterizedTest(name = "{1} in {0} ({2})")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {a: 1}                          | a       | MATCH    | [1]
            {a: 1}                          | b       | MATCH    | ["missing"]
            {a: 1}                          | a.b     | MATCH    | ["missing"]
            {a: {b: 2}}                     | a.b     | MATCH    | [2]
            {a: [1, 2]}                     | a       | MATCH    | [1, 2, [1, 2]]
            {a: [1, 2]}                     | a       | SORT_KEY | [1, 2]
            {a: []}                         | a       | MATCH    | [[]]
            {a: []}                         | a       | SORT_KEY | [{"$undefined": true}]
            {a: [[1], 2]}                   | a       | MATCH    | [[1], 2, [[1], 2]]
            {a: [1, 2]}                     | a.b     | MATCH    | []
            {a: [{b: 1}, {c: 1}, 5]}        | a.b     | MATCH    | [1, "missing"]
            {a: [{b: [1, 2]}]}              | a.b     | MATCH    | [1, 2, [1, 2]]
            {a: [{b: 1}, {"1": {b: 3}}]}    | a.1.b   | MATCH    | ["missing", 3, "missing"]
            {a: [{b: 1}, {"1": {b: 3}}]}    | a.1.b   | SORT_KEY | ["missing"]
            {a: [{b: 1}, {b: 2}]}           | a.1.b   | SORT_KEY | [2]
            {a: [10, 20]}                   | a.1     | MATCH    | [20]
            {a: [10, 20]}                   | a.5     | MATCH    | []
            {a: [10, 20]}                   | a.5     | SORT_KEY | ["missing"]
            {a: [[10, 20]]}                 | a.0     | MATCH    | [[10, 20]]
            {a: [[10, 20]]}                 | a.0.1   | MATCH    | [20]
            {a: [[{b: 1}]]}                 | a.b     | MATCH    | []
            {a: [[1, 2], [3]]}              | a.0     | MATCH    | [[1, 2]]
            {a: [[1, 2], [3]]}              | a.0     | WHOLE_ARRAY | [[1, 2]]
            {a: [[1, 2], [3]]}              | a.1.0   | MATCH    | [3]
            {a: [[1, 2], [3]]}              | a       | WHOLE_ARRAY | [[[1, 2], [3]]]
            {a: {"0": [42]}}                | a.0     | MATCH    | [42, [42]]
            {a: {"0": [42]}}                | a.0     | WHOLE_ARRAY | [[42]]
            {a: [{"0": 5}, [6]]}            | a.0     | MATCH    | [5, {"0": 5}]
            {a: [{"0": 5}, [6]]}            | a.1     | MATCH    | ["missing", [6]]
            {a: [{"0": [[42]]}]}            | a.0.0   | MATCH    | [[42], [42], [[42]]]
            {a: [[{b: 1}, {b: 2}]]}         | a.0.b   | MATCH    | [1, 2]
            {a: [5]}                        | a.0.b   | MATCH    | []
            """)
    void resolvesLikeMongoDb(String doc, String path, Paths.Mode mode, String expected) {
        List<BsonValue> values = Paths.resolve(BsonDocument.parse(doc), Paths.split(path), mode);
        BsonArray shown = new BsonArray(values.stream().map(v -> v == null ? new BsonString("missing") : v).toList());
        assertThat(new BsonDocument("v", shown).toJson()).isEqualTo(BsonDocument.parse("{v: " + expected + "}").toJson());
    }

    @Test
    void aPathOfMoreComponentsThanTheDepthLimitIsOverflowForFiltersUpdatesAndExpressions() {
        String longest = String.join(".", Collections.nCopies(200, "a"));
        assertThat(Paths.split(longest)).hasSize(200);
        String tooLong = String.join(".", Collections.nCopies(5000, "a"));
        for (Runnable use : List.<Runnable>of(
                () -> Paths.split(tooLong),
                () -> Filter.parse(new BsonDocument(tooLong, new BsonInt32(1))),
                () -> Update.parse(new BsonDocument("$set", new BsonDocument(tooLong, new BsonInt32(1))), List.of()),
                () -> Pipeline.parse(BsonArray.parse("[{$project: {x: '$" + tooLong + "'}}]"), (c, f) -> List.of()))) {
            assertThatThrownBy(use::run).isInstanceOfSatisfying(CommandException.class, e -> {
                assertThat(e.code()).isEqualTo(ErrorCode.Overflow);
                assertThat(e.getMessage()).contains("5000 components");
            });
        }
    }
}
