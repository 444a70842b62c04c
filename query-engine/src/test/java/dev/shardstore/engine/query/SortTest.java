package dev.shardstore.engine.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonDocument;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Sort semantics after MongoDB's manual: "cursor.sort()" (ascending/descending, sort consistency),
 * "Comparison/Sort Order" (BSON type order, numbers by value, comparison of arrays: smallest element for
 * ascending, largest for descending, empty array below null, missing as null).
 */
class SortTest {
    private static final List<BsonDocument> ARRAYS = FilterTest.docs("""
            {_id: 1, a: [1, 5]}
            {_id: 2, a: [2, 3]}
            {_id: 3, a: 4}
            {_id: 4}
            {_id: 5, a: null}
            {_id: 6, a: []}
            {_id: 7, a: "x"}
            {_id: 8, a: [[0], 6]}""");

    private static final List<BsonDocument> TYPES = FilterTest.docs("""
            {_id: 1, v: {$numberDecimal: "0.5"}}
            {_id: 2, v: "a"}
            {_id: 3, v: {$numberLong: "2"}}
            {_id: 4, v: 1.5}
            {_id: 5, v: {x: 1}}
            {_id: 6, v: true}
            {_id: 7, v: {$date: "2020-01-01T00:00:00Z"}}
            {_id: 8, v: {$oid: "5f0000000000000000000000"}}
            {_id: 9, v: {$minKey: 1}}
            {_id: 10, v: 1}""");

    private static final List<BsonDocument> NESTED = FilterTest.docs("""
            {_id: 1, a: [{b: 3}, {b: 1}], c: 1}
            {_id: 2, a: [{c: 1}], c: 2}
            {_id: 3, a: {b: 2}, c: 1}
            {_id: 4, a: [{b: [0, 9]}], c: 2}
            {_id: 5, a: {b: 2}, c: 2}""");

    @ParameterizedTest(name = "{0} by {1} -> {2}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            ARRAYS | {a: 1}               | 6 4 5 1 2 3 8 7
            ARRAYS | {a: -1}              | 8 7 1 3 2 4 5 6
            TYPES  | {v: 1}               | 9 1 10 4 3 2 5 8 6 7
            TYPES  | {v: -1}              | 7 6 8 5 2 3 4 10 1 9
            NESTED | {"a.b": 1}           | 2 4 1 3 5
            NESTED | {"a.b": -1}          | 4 1 3 5 2
            NESTED | {c: 1, "a.b": -1}    | 1 3 4 5 2
            NESTED | {c: -1, _id: -1}     | 5 4 2 3 1
            NESTED | {"a.0.b": 1}         | 2 3 5 4 1
            NESTED | {}                   | 1 2 3 4 5
            """)
    void ordersTheWayMongoDbDocumentsIt(String collection, String spec, String expectedIds) {
        List<BsonDocument> docs = new ArrayList<>(switch (collection) {
            case "ARRAYS" -> ARRAYS;
            case "TYPES" -> TYPES;
            default -> NESTED;
        });
        docs.sort(Sort.parse(BsonDocument.parse(spec)).comparator());
        String ids = String.join(" ", docs.stream().map(d -> String.valueOf(d.getInt32("_id").getValue())).toList());
        assertThat(ids).isEqualTo(expectedIds);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {a: 2}                       | $sort key ordering must be 1 (for ascending) or -1 (for descending)
            {a: 0}                       | $sort key ordering must be 1
            {a: "asc"}                   | $sort key ordering must be 1
            {a: {$meta: "textScore"}}    | $sort key ordering must be 1
            {"": 1}                      | sort field path '' contains an empty field name
            {"a..b": 1}                  | sort field path 'a..b' contains an empty field name
            """)
    void rejectsInvalidSpecsWithBadValue(String spec, String message) {
        assertThatThrownBy(() -> Sort.parse(BsonDocument.parse(spec)))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.BadValue))
                .hasMessageContaining(message);
    }
}
