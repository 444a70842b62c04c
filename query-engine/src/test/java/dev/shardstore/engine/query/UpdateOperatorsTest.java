package dev.shardstore.engine.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.time.Duration;
import java.time.Instant;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code $mul $min $max $rename $currentDate $setOnInsert $push $addToSet $pop $pull $pullAll}. Cases are the
 * examples of each operator's page in MongoDB's manual, plus arrays, null/missing and mixed types, and errors.
 */
class UpdateOperatorsTest {
    @ParameterizedTest(name = "{1} on {0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {_id: 1, item: "Hats", price: {$numberDecimal: "10.99"}, quantity: 25} | {$mul: {price: {$numberDecimal: "1.25"}, quantity: 2}} | {_id: 1, item: "Hats", price: {$numberDecimal: "13.7375"}, quantity: 50}
            {_id: 2, item: "Unknown"}                  | {$mul: {price: {$numberLong: "100"}}}  | {_id: 2, item: "Unknown", price: {$numberLong: "0"}}
            {_id: 3, item: "Scarf", price: {$numberLong: "10"}} | {$mul: {price: {$numberInt: "5"}}} | {_id: 3, item: "Scarf", price: {$numberLong: "50"}}
            {_id: 1, a: 2147483647}                    | {$mul: {a: 2}}                         | {_id: 1, a: {$numberLong: "4294967294"}}
            {_id: 1, a: 3}                             | {$mul: {a: 1.5}}                       | {_id: 1, a: 4.5}
            {_id: 1, highScore: 800, lowScore: 200}    | {$min: {lowScore: 150}}                | {_id: 1, highScore: 800, lowScore: 150}
            {_id: 1, highScore: 800, lowScore: 200}    | {$min: {lowScore: 250}}                | {_id: 1, highScore: 800, lowScore: 200}
            {_id: 1, highScore: 800, lowScore: 200}    | {$max: {highScore: 950}}               | {_id: 1, highScore: 950, lowScore: 200}
            {_id: 1, highScore: 950, lowScore: 200}    | {$max: {highScore: 870}}               | {_id: 1, highScore: 950, lowScore: 200}
            {_id: 1, a: 5}                             | {$min: {a: null}}                      | {_id: 1, a: null}
            {_id: 1, a: 5}                             | {$max: {a: "x"}}                       | {_id: 1, a: "x"}
            {_id: 1}                                   | {$min: {"a.b": 3}}                     | {_id: 1, a: {b: 3}}
            {_id: 1, a: [1, 5]}                        | {$max: {"a.0": 3}}                     | {_id: 1, a: [3, 5]}
            {_id: 1, alias: ["The American Cincinnatus"], mobile: "555-555-5555", nmae: {first: "george", last: "washington"}} | {$rename: {nmae: "name"}} | {_id: 1, alias: ["The American Cincinnatus"], mobile: "555-555-5555", name: {first: "george", last: "washington"}}
            {_id: 1, name: {first: "george", last: "washington"}} | {$rename: {"name.first": "name.fname"}} | {_id: 1, name: {last: "washington", fname: "george"}}
            {_id: 1, name: "x"}                        | {$rename: {wife: "spouse"}}            | {_id: 1, name: "x"}
            {_id: 1, a: {b: 1}}                        | {$rename: {"a.b": "c.d"}}              | {_id: 1, a: {}, c: {d: 1}}
            {_id: 1, a: 1, b: 2, c: 3}                 | {$rename: {a: "b"}}                    | {_id: 1, c: 3, b: 1}
            {_id: 1}                                   | {$rename: {"a.b": "c.d"}}              | {_id: 1}
            {_id: 1, scores: [44, 78, 38, 80]}         | {$push: {scores: 89}}                  | {_id: 1, scores: [44, 78, 38, 80, 89]}
            {_id: 1, scores: [44, 78, 38, 80]}         | {$push: {scores: {$each: [90, 92, 85]}}} | {_id: 1, scores: [44, 78, 38, 80, 90, 92, 85]}
            {_id: 5, quizzes: [{wk: 1, score: 10}, {wk: 2, score: 8}, {wk: 3, score: 5}, {wk: 4, score: 6}]} | {$push: {quizzes: {$each: [{wk: 5, score: 8}, {wk: 6, score: 7}, {wk: 7, score: 6}], $sort: {score: -1}, $slice: 3}}} | {_id: 5, quizzes: [{wk: 1, score: 10}, {wk: 2, score: 8}, {wk: 5, score: 8}]}
            {_id: 1, scores: [100]}                    | {$push: {scores: {$each: [50, 60, 70], $position: 0}}} | {_id: 1, scores: [50, 60, 70, 100]}
            {_id: 2, scores: [50, 60, 70, 100]}        | {$push: {scores: {$each: [20, 30], $position: 2}}} | {_id: 2, scores: [50, 60, 20, 30, 70, 100]}
            {_id: 3, scores: [50, 60, 20, 30, 70, 100]} | {$push: {scores: {$each: [90, 80], $position: -2}}} | {_id: 3, scores: [50, 60, 20, 30, 90, 80, 70, 100]}
            {_id: 1, scores: [40, 50, 60]}             | {$push: {scores: {$each: [80, 78, 86], $slice: -5}}} | {_id: 1, scores: [50, 60, 80, 78, 86]}
            {_id: 2, scores: [89, 90]}                 | {$push: {scores: {$each: [100, 20], $slice: 3}}} | {_id: 2, scores: [89, 90, 100]}
            {_id: 3, scores: [89, 70, 100, 20]}        | {$push: {scores: {$each: [], $slice: -3}}} | {_id: 3, scores: [70, 100, 20]}
            {_id: 2, tests: [89, 70, 89, 50]}          | {$push: {tests: {$each: [40, 60], $sort: 1}}} | {_id: 2, tests: [40, 50, 60, 70, 89, 89]}
            {_id: 3, tests: [89, 70, 100, 20]}         | {$push: {tests: {$each: [], $sort: -1}}} | {_id: 3, tests: [100, 89, 70, 20]}
            {_id: 1}                                   | {$push: {a: [1, 2]}}                   | {_id: 1, a: [[1, 2]]}
            {_id: 1, a: [null]}                        | {$push: {a: {b: 1}}}                   | {_id: 1, a: [null, {b: 1}]}
            {_id: 1, letters: ["a", "b"]}              | {$addToSet: {letters: ["c", "d"]}}     | {_id: 1, letters: ["a", "b", ["c", "d"]]}
            {_id: 1, item: "polarizing_filter", tags: ["electronics", "camera"]} | {$addToSet: {tags: "accessories"}} | {_id: 1, item: "polarizing_filter", tags: ["electronics", "camera", "accessories"]}
            {_id: 1, item: "polarizing_filter", tags: ["electronics", "camera"]} | {$addToSet: {tags: "camera"}} | {_id: 1, item: "polarizing_filter", tags: ["electronics", "camera"]}
            {_id: 2, item: "cable", tags: ["electronics", "supplies"]} | {$addToSet: {tags: {$each: ["camera", "electronics", "accessories"]}}} | {_id: 2, item: "cable", tags: ["electronics", "supplies", "camera", "accessories"]}
            {_id: 1, a: [1]}                           | {$addToSet: {a: 1.0}}                  | {_id: 1, a: [1]}
            {_id: 1, a: [{b: 1, c: 2}]}                | {$addToSet: {a: {c: 2, b: 1}}}         | {_id: 1, a: [{b: 1, c: 2}, {c: 2, b: 1}]}
            {_id: 1}                                   | {$addToSet: {a: {$each: [1, 1, 2]}}}   | {_id: 1, a: [1, 2]}
            {_id: 1, scores: [8, 9, 10]}               | {$pop: {scores: -1}}                   | {_id: 1, scores: [9, 10]}
            {_id: 10, scores: [9, 10]}                 | {$pop: {scores: 1}}                    | {_id: 10, scores: [9]}
            {_id: 1, a: []}                            | {$pop: {a: 1}}                         | {_id: 1, a: []}
            {_id: 1}                                   | {$pop: {"a.b": 1}}                     | {_id: 1}
            {_id: 1, fruits: ["apples", "pears", "oranges", "grapes", "bananas"], vegetables: ["carrots", "celery", "squash", "carrots"]} | {$pull: {fruits: {$in: ["apples", "oranges"]}, vegetables: "carrots"}} | {_id: 1, fruits: ["pears", "grapes", "bananas"], vegetables: ["celery", "squash"]}
            {_id: 1, votes: [3, 5, 6, 7, 7, 8]}        | {$pull: {votes: {$gte: 6}}}            | {_id: 1, votes: [3, 5]}
            {_id: 1, results: [{item: "A", score: 5}, {item: "B", score: 8}]} | {$pull: {results: {score: 8, item: "B"}}} | {_id: 1, results: [{item: "A", score: 5}]}
            {_id: 1, results: [{item: "A", score: 5, answers: [{q: 1, a: 4}, {q: 2, a: 6}]}, {item: "B", score: 8, answers: [{q: 1, a: 8}, {q: 2, a: 9}]}]} | {$pull: {results: {answers: {$elemMatch: {q: 2, a: {$gte: 8}}}}}} | {_id: 1, results: [{item: "A", score: 5, answers: [{q: 1, a: 4}, {q: 2, a: 6}]}]}
            {_id: 1, a: [1, 1.0, "1", [1], null]}      | {$pull: {a: 1}}                        | {_id: 1, a: ["1", [1], null]}
            {_id: 1, a: [[1, 2], [1]]}                 | {$pull: {a: [1, 2]}}                   | {_id: 1, a: [[1]]}
            {_id: 1, a: ["ab", "cd", 5]}               | {$pull: {a: {$regularExpression: {pattern: "^a", options: ""}}}} | {_id: 1, a: ["cd", 5]}
            {_id: 1, a: [null, 1]}                     | {$pull: {a: null}}                     | {_id: 1, a: [1]}
            {_id: 1, a: [[7, 1], 2, [3]]}              | {$pull: {a: {$gte: 6}}}                | {_id: 1, a: [2, [3]]}
            {_id: 1, a: [[1, 2], [3]]}                 | {$pull: {a: {$size: 2}}}               | {_id: 1, a: [[3]]}
            {_id: 1, a: [[7], {"0": 7}]}               | {$pull: {a: {"0": 7}}}                 | {_id: 1, a: [[7]]}
            {_id: 1, a: [["xa"], "xb", "y"]}           | {$pull: {a: {$regularExpression: {pattern: "^x", options: ""}}}} | {_id: 1, a: ["y"]}
            {_id: 1}                                   | {$pull: {a: 1}}                        | {_id: 1}
            {_id: 1, scores: [0, 2, 5, 5, 1, 0]}       | {$pullAll: {scores: [0, 5]}}           | {_id: 1, scores: [2, 1]}
            {_id: 1, a: [1.0, 2, {b: 1}]}              | {$pullAll: {a: [1, {b: 1}]}}           | {_id: 1, a: [2]}
            {_id: 1, a: 1}                             | {$setOnInsert: {b: 1}, $set: {c: 2}}   | {_id: 1, a: 1, c: 2}
            {_id: 1}                                   | {$setOnInsert: {"x.y": 1}}             | {_id: 1}
            """)
    void appliesTheManualsExamples(String doc, String update, String expected) {
        assertThat(Update.parse(BsonDocument.parse(update)).apply(BsonDocument.parse(doc)).toJson())
                .isEqualTo(BsonDocument.parse(expected).toJson());
    }

    @ParameterizedTest(name = "{1} on {0} -> {2}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {_id: 1}                   | {$set: {item: "apple"}, $setOnInsert: {defaultQty: 100}} | {_id: 1, defaultQty: 100, item: "apple"}
            {_id: 1, a: 1}             | {$setOnInsert: {"b.c": 2}}                               | {_id: 1, a: 1, b: {c: 2}}
            """)
    void setOnInsertAppliesOnTheInsertSideOfAnUpsert(String seed, String update, String expected) {
        assertThat(Update.parse(BsonDocument.parse(update)).applyForUpsert(BsonDocument.parse(seed)).toJson())
                .isEqualTo(BsonDocument.parse(expected).toJson());
    }

    @Test
    void currentDateSetsADateOrATimestampOfNow() {
        Instant before = Instant.now().minusSeconds(1);
        BsonDocument after = Update.parse(BsonDocument.parse(
                "{$currentDate: {lastModified: true, 'cancellation.date': {$type: 'timestamp'}, d: {$type: 'date'}}}"))
                .apply(BsonDocument.parse("{_id: 1, status: 'a'}"));
        assertThat(after.keySet()).containsExactly("_id", "status", "cancellation", "d", "lastModified");
        assertThat(Instant.ofEpochMilli(after.getDateTime("lastModified").getValue())).isBetween(before, before.plus(Duration.ofMinutes(1)));
        assertThat(after.getDateTime("d")).isNotNull();
        assertThat((long) after.getDocument("cancellation").getTimestamp("date").getTime())
                .isBetween(before.getEpochSecond(), before.getEpochSecond() + 60);
    }

    @ParameterizedTest(name = "{1} on {0} -> {2}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {_id: 1, a: "x"}            | {$mul: {a: 2}}               | TypeMismatch  | Cannot apply $mul to a value of non-numeric type. The field 'a' has non-numeric type string
            {_id: 1, a: {$numberLong: "9223372036854775807"}} | {$mul: {a: 2}} | BadValue | Failed to apply $mul operations
            {_id: 1, a: [1]}            | {$rename: {"a.0": "b"}}      | BadValue      | The source field cannot be an array element
            {_id: 1, a: 1, b: [1]}      | {$rename: {a: "b.0"}}        | BadValue      | The destination field cannot be an array element
            {_id: 1, a: 1}              | {$push: {a: 2}}              | BadValue      | The field 'a' must be an array but is of type int in document {"_id": 1}
            {_id: 1, a: 1}              | {$addToSet: {a: 2}}          | BadValue      | Cannot apply $addToSet to non-array field. Field named 'a' has non-array type int
            {_id: 1, a: 1}              | {$pop: {a: 1}}               | TypeMismatch  | Path 'a' contains an element of non-array type 'int'
            {_id: 1, a: 1}              | {$pull: {a: 1}}              | BadValue      | Cannot apply $pull to a non-array value
            {_id: 1, a: "x"}            | {$pullAll: {a: ["x"]}}       | BadValue      | Cannot apply $pullAll to a non-array value
            {_id: 1, a: [1]}            | {$set: {"a.b": 1}}           | PathNotViable | Cannot create field 'b'
            """)
    void rejectsUpdatesThatCannotApply(String doc, String update, ErrorCode code, String message) {
        Update parsed = Update.parse(BsonDocument.parse(update));
        assertThatThrownBy(() -> parsed.apply(BsonDocument.parse(doc)))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(code))
                .hasMessageContaining(message);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {$mul: {a: "x"}}                              | TypeMismatch               | Cannot multiply with non-numeric argument: {"a": "x"}
            {$rename: {a: 1}}                             | BadValue                   | The 'to' field for $rename must be a string
            {$rename: {a: "a"}}                           | BadValue                   | The source and target field for $rename must differ
            {$rename: {a: "a.b"}}                         | BadValue                   | must not be on the same path
            {$rename: {"a.b": "a"}}                       | BadValue                   | must not be on the same path
            {$rename: {a: "$b"}}                          | BadValue                   | The destination field for $rename may not be dynamic
            {$rename: {a: "b"}, $set: {b: 1}}             | ConflictingUpdateOperators | Updating the path 'b' would create a conflict at 'b'
            {$rename: {a: "b"}, $unset: {a: 1}}           | ConflictingUpdateOperators | Updating the path 'a' would create a conflict at 'a'
            {$currentDate: {a: {$type: "x"}}}             | BadValue                   | The '$type' string field is required to be 'date' or 'timestamp'
            {$currentDate: {a: 1}}                        | BadValue                   | is not valid type for $currentDate
            {$push: {a: {$each: 1}}}                      | BadValue                   | The argument to $each in $push must be an array
            {$push: {a: {$each: [1], $foo: 1}}}           | BadValue                   | Unrecognized clause in $push: $foo
            {$push: {a: {$each: [1], $slice: "x"}}}       | BadValue                   | The value for $slice must be an integer value
            {$push: {a: {$each: [1], $slice: 1.5}}}       | BadValue                   | The value for $slice must be an integer value
            {$push: {a: {$each: [1], $position: "x"}}}    | BadValue                   | The value for $position must be an integer value
            {$push: {a: {$each: [1], $sort: 2}}}          | BadValue                   | The $sort is invalid
            {$push: {a: {$each: [1], $sort: {b: 2}}}}     | BadValue                   | The $sort is invalid
            {$addToSet: {a: {$each: 1}}}                  | BadValue                   | The argument to $each in $addToSet must be an array
            {$pop: {a: 2}}                                | BadValue                   | $pop expects 1 or -1, found: 2
            {$pop: {a: "x"}}                              | FailedToParse              | Expected a number in: {"a": "x"}
            {$pullAll: {a: 1}}                            | BadValue                   | $pullAll requires an array argument but was given a int
            {$pull: {a: {$foo: 1}}}                       | BadValue                   | unknown operator: $foo
            {$push: {a: 1}, $pull: {a: 1}}                | ConflictingUpdateOperators | Updating the path 'a' would create a conflict at 'a'
            {$bogus: {a: 1}}                              | FailedToParse              | Unknown modifier: $bogus
            """)
    void rejectsMalformedUpdatesAtParseTime(String update, ErrorCode code, String message) {
        assertThatThrownBy(() -> Update.parse(BsonDocument.parse(update)))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(code))
                .hasMessageContaining(message);
    }
}
