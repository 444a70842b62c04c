package dev.shardstore.engine.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import org.bson.BsonDocument;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The {@code $slice}, {@code $elemMatch} and positional {@code $} projections: the examples of MongoDB's manual
 * pages "$slice (projection)", "$elemMatch (projection)" and "$ (projection)", plus arrays, missing fields and
 * non-arrays.
 */
class ProjectionOperatorsTest {
    private static final String SOCKS = "{_id: 1, item: \"socks\", qty: 100, details: {colors: [\"blue\", \"red\"], sizes: [\"S\", \"M\", \"L\"]}}";
    private static final String SCHOOL_1 = "{_id: 1, zipcode: \"63109\", students: [{name: \"john\", school: 102, age: 10},"
            + " {name: \"jess\", school: 102, age: 11}, {name: \"jeff\", school: 108, age: 15}]}";
    private static final String SCHOOL_3 = "{_id: 3, zipcode: \"63109\", students: [{name: \"ajax\", school: 100, age: 7},"
            + " {name: \"achilles\", school: 100, age: 8}]}";
    private static final String PLAYER = "{_id: 1, name: \"player1\", games: [{game: \"abc\", score: 8}, {game: \"xyz\", score: 5}],"
            + " joined: 2020, lastLogin: 2021}";
    private static final String NUMBERS = "{_id: 1, a: [1, 2, 3, 4, 5], b: \"x\", c: [{d: [1, 2, 3]}, {d: 4}, 5]}";
    private static final String NESTED = "{_id: 1, a: [[1, 2], [3, 4], 5]}";

    @ParameterizedTest(name = "{1} on {0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            SOCKS    | {qty: 1, "details.colors": {$slice: 1}}              | {_id: 1, qty: 100, details: {colors: ["blue"]}}
            SOCKS    | {_id: 0, "details.colors": {$slice: 1}}              | {item: "socks", qty: 100, details: {colors: ["blue"], sizes: ["S", "M", "L"]}}
            SOCKS    | {details: {colors: {$slice: -1}}}                    | {_id: 1, item: "socks", qty: 100, details: {colors: ["red"], sizes: ["S", "M", "L"]}}
            SOCKS    | {qty: 0, "details.sizes": {$slice: [1, 5]}}          | {_id: 1, item: "socks", details: {colors: ["blue", "red"], sizes: ["M", "L"]}}
            NUMBERS  | {a: {$slice: 2}}                                     | {_id: 1, a: [1, 2], b: "x", c: [{d: [1, 2, 3]}, {d: 4}, 5]}
            NUMBERS  | {a: {$slice: -2}, _id: 0, b: 1}                      | {a: [4, 5], b: "x"}
            NUMBERS  | {a: {$slice: [1, 2]}, b: 1}                          | {_id: 1, a: [2, 3], b: "x"}
            NUMBERS  | {a: {$slice: [-2, 1]}, b: 1}                         | {_id: 1, a: [4], b: "x"}
            NUMBERS  | {a: {$slice: [-10, 2]}, b: 1}                        | {_id: 1, a: [1, 2], b: "x"}
            NUMBERS  | {a: {$slice: [10, 2]}, b: 1}                         | {_id: 1, a: [], b: "x"}
            NUMBERS  | {a: {$slice: 0}, b: 1}                               | {_id: 1, a: [], b: "x"}
            NUMBERS  | {a: {$slice: 10}, b: 1}                              | {_id: 1, a: [1, 2, 3, 4, 5], b: "x"}
            NUMBERS  | {b: {$slice: 1}, a: 1}                               | {_id: 1, a: [1, 2, 3, 4, 5], b: "x"}
            NUMBERS  | {"c.d": {$slice: 1}, b: 1}                           | {_id: 1, b: "x", c: [{d: [1]}, {d: 4}]}
            NUMBERS  | {missing: {$slice: 1}, b: 1}                         | {_id: 1, b: "x"}
            SCHOOL_1 | {students: {$elemMatch: {school: 102}}}              | {_id: 1, students: [{name: "john", school: 102, age: 10}]}
            SCHOOL_3 | {students: {$elemMatch: {school: 102}}}              | {_id: 3}
            SCHOOL_1 | {students: {$elemMatch: {school: 102, age: {$gt: 10}}}} | {_id: 1, students: [{name: "jess", school: 102, age: 11}]}
            SCHOOL_1 | {_id: 0, zipcode: 1, students: {$elemMatch: {age: {$gte: 15}}}} | {zipcode: "63109", students: [{name: "jeff", school: 108, age: 15}]}
            PLAYER   | {games: {$elemMatch: {score: {$gt: 5}}}, joined: 1, lastLogin: 1} | {_id: 1, joined: 2020, lastLogin: 2021, games: [{game: "abc", score: 8}]}
            NUMBERS  | {a: {$elemMatch: {$gt: 2, $lt: 5}}}                  | {_id: 1, a: [3]}
            NUMBERS  | {b: {$elemMatch: {$eq: "x"}}}                        | {_id: 1}
            NESTED   | {a: {$elemMatch: {$gt: 3}}}                          | {_id: 1, a: [5]}
            NESTED   | {a: {$elemMatch: {$elemMatch: {$gt: 3}}}}            | {_id: 1, a: [[3, 4]]}
            NESTED   | {a: {$elemMatch: {"1": 4}}}                          | {_id: 1, a: [[3, 4]]}
            NESTED   | {a: {$elemMatch: {$size: 2}}}                        | {_id: 1, a: [[1, 2]]}
            """)
    void projectsTheManualsExamples(String doc, String spec, String expected) {
        String input = switch (doc) {
            case "SOCKS" -> SOCKS;
            case "SCHOOL_1" -> SCHOOL_1;
            case "SCHOOL_3" -> SCHOOL_3;
            case "PLAYER" -> PLAYER;
            case "NESTED" -> NESTED;
            default -> NUMBERS;
        };
        assertThat(Projection.parse(BsonDocument.parse(spec)).apply(BsonDocument.parse(input)).toJson())
                .isEqualTo(BsonDocument.parse(expected).toJson());
    }

    @ParameterizedTest(name = "{1} with {0} on {2}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {semester: 1, grades: {$gte: 85}}    | {"grades.$": 1}          | {_id: 1, semester: 1, grades: [70, 87, 90]} | {_id: 1, grades: [87]}
            {semester: 1, grades: {$gte: 85}}    | {"grades.$": 1}          | {_id: 2, semester: 1, grades: [90, 88, 92]} | {_id: 2, grades: [90]}
            {semester: 1, grades: {$gte: 85}}    | {"grades.$": 1}          | {_id: 3, semester: 1, grades: [85, 100, 90]} | {_id: 3, grades: [85]}
            {"grades.mean": {$gt: 70}}           | {"grades.$": 1}          | {_id: 7, semester: 3, grades: [{grade: 80, mean: 75, std: 8}, {grade: 85, mean: 90, std: 5}]} | {_id: 7, grades: [{grade: 80, mean: 75, std: 8}]}
            {grades: {$elemMatch: {mean: {$gt: 80}}}} | {"grades.$": 1, semester: 1, _id: 0} | {_id: 7, semester: 3, grades: [{grade: 80, mean: 75}, {grade: 85, mean: 90}]} | {semester: 3, grades: [{grade: 85, mean: 90}]}
            {"a.b.c": 2}                         | {"a.b.$": 1}             | {_id: 1, a: {b: [{c: 1}, {c: 2}], d: 1}} | {_id: 1, a: {b: [{c: 2}]}}
            {a: {$elemMatch: {$gt: 3}}}          | {"a.$": 1}               | {_id: 1, a: [[1, 5], 4]} | {_id: 1, a: [4]}
            {a: {$elemMatch: {"1": 5}}}          | {"a.$": 1}               | {_id: 1, a: [[1, 5], 4]} | {_id: 1, a: [[1, 5]]}
            """)
    void projectsThePositionOfTheQueryMatch(String filter, String spec, String doc, String expected) {
        assertThat(Projection.parse(BsonDocument.parse(spec)).apply(BsonDocument.parse(doc), Filter.parse(BsonDocument.parse(filter))).toJson())
                .isEqualTo(BsonDocument.parse(expected).toJson());
    }

    @ParameterizedTest(name = "{1} with {0} on {2}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {}                                   | {"grades.$": 1}          | {_id: 1, grades: [70, 87]}
            {grades: [70, 87]}                   | {"grades.$": 1}          | {_id: 1, grades: [70, 87]}
            {x: {$elemMatch: {$gt: 0}}}          | {"grades.$": 1}          | {_id: 1, x: [5], grades: 3}
            """)
    void refusesAPositionalProjectionWithoutAMatchedPosition(String filter, String spec, String doc) {
        Projection projection = Projection.parse(BsonDocument.parse(spec));
        assertThatThrownBy(() -> projection.apply(BsonDocument.parse(doc), Filter.parse(BsonDocument.parse(filter))))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.BadValue))
                .hasMessageContaining("positional operator '.$' couldn't find a matching element in the array");
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {a: {$slice: [1]}}                    | $slice array wrong size
            {a: {$slice: [1, 2, 3]}}              | $slice array wrong size
            {a: {$slice: [1, 0]}}                 | $slice limit must be positive
            {a: {$slice: 1.5}}                    | $slice only supports numbers and [skip, limit] arrays
            {"a.b": {$elemMatch: {c: 1}}}         | Cannot use $elemMatch projection on a nested field
            {a: {$elemMatch: 1}}                  | $elemMatch needs an Object
            {a: 0, b: {$elemMatch: {c: 1}}}       | Cannot do inclusion on field b in exclusion projection
            {a: 1, "a.b": {$slice: 1}}            | Path collision at a.b
            {"a.$": 1, "b.$": 1}                  | Cannot specify more than one positional projection per query.
            {"a.$": 0}                            | Cannot exclude a positional projection
            {"a.$": 1, a: 1}                      | Path collision at a
            {"a.$.b.$": 1}                        | Positional projection may only be used at the end
            """)
    void rejectsMalformedOperators(String spec, String message) {
        assertThatThrownBy(() -> Projection.parse(BsonDocument.parse(spec)))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.BadValue))
                .hasMessageContaining(message);
    }
}
