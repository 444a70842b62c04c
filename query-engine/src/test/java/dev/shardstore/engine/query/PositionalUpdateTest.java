package dev.shardstore.engine.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.util.List;
import java.util.OptionalInt;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The positional update operators {@code $}, {@code $[]} and {@code $[<identifier>]} with {@code arrayFilters}, and
 * the matched array position a filter reports for {@code $}. Cases are the examples of MongoDB's manual pages
 * "$ (update)", "$[]" and "$[<identifier>]", plus errors.
 */
class PositionalUpdateTest {
    @ParameterizedTest(name = "{0} on {1} -> {2}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {a: 5}                               | {a: [1, 5]}                      | 1
            {"a.b": 1}                           | {a: [{b: 0}, {b: 1}]}            | 1
            {"a.b": 1}                           | {a: [{b: [0, 1]}, {b: 2}]}       | 0
            {"a.b": {$gt: 1}, x: 1}              | {x: 1, a: [{b: 0}, {b: 3}]}      | 1
            {x: 1, a: {$elemMatch: {$gt: 3}}}    | {x: 1, a: [1, 5]}                | 1
            {a: {$elemMatch: {b: 2}}}            | {a: [{b: 1}, {b: 2}]}            | 1
            {a: {$all: [5]}}                     | {a: [1, 5]}                      | 1
            {a: {$elemMatch: {$gt: 3}}}          | {a: [[1, 5], 4]}                 | 1
            {a: {$elemMatch: {"0": 3}}}          | {a: [[1], [3]]}                  | 1
            {a: {$elemMatch: {$elemMatch: {$gt: 3}}}} | {a: [[1], [3, 5]]}          | 1
            {"a.0.b": 2}                         | {a: [[{b: 1}, {b: 2}]]}          | 1
            {"a.1": 6}                           | {a: [5, 6]}                      | -1
            {a: [1, 5]}                          | {a: [1, 5]}                      | -1
            {a: 1}                               | {a: 1}                           | -1
            {a: 2}                               | {a: [1, 5]}                      | -1
            {$or: [{a: 5}]}                      | {a: [1, 5]}                      | -1
            """)
    void filtersReportTheMatchedArrayPosition(String filter, String doc, int expected) {
        OptionalInt position = Filter.parse(BsonDocument.parse(filter)).matchedPosition(BsonDocument.parse(doc));
        assertThat(position).isEqualTo(expected < 0 ? OptionalInt.empty() : OptionalInt.of(expected));
    }

    @ParameterizedTest(name = "{2} on {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {_id: 1, grades: 80}                 | {_id: 1, grades: [85, 80, 80]}   | {$set: {"grades.$": 82}} | {_id: 1, grades: [85, 82, 80]}
            {_id: 4, "grades.grade": 85}         | {_id: 4, grades: [{grade: 80, mean: 75, std: 8}, {grade: 85, mean: 90, std: 5}, {grade: 85, mean: 85, std: 8}]} | {$set: {"grades.$.std": 6}} | {_id: 4, grades: [{grade: 80, mean: 75, std: 8}, {grade: 85, mean: 90, std: 6}, {grade: 85, mean: 85, std: 8}]}
            {_id: 5, grades: {$elemMatch: {grade: {$lte: 90}, mean: {$gt: 80}}}} | {_id: 5, grades: [{grade: 80, mean: 75, std: 8}, {grade: 85, mean: 90, std: 5}, {grade: 90, mean: 85, std: 3}]} | {$set: {"grades.$.std": 6}} | {_id: 5, grades: [{grade: 80, mean: 75, std: 8}, {grade: 85, mean: 90, std: 6}, {grade: 90, mean: 85, std: 3}]}
            {_id: 1, "grades.grade": 85}         | {_id: 1, grades: [{grade: 80}, {grade: 85}]} | {$unset: {"grades.$": ""}} | {_id: 1, grades: [{grade: 80}, null]}
            {_id: 1, "a.b": 2}                   | {_id: 1, a: [{b: 1, c: [1]}, {b: 2, c: [2]}]} | {$push: {"a.$.c": 3}} | {_id: 1, a: [{b: 1, c: [1]}, {b: 2, c: [2, 3]}]}
            {_id: 1, a: {$elemMatch: {$gt: 3}}}  | {_id: 1, a: [[1, 5], 4]}         | {$set: {"a.$": 0}}       | {_id: 1, a: [[1, 5], 0]}
            {_id: 1, a: {$elemMatch: {$elemMatch: {$gt: 3}}}} | {_id: 1, a: [[1], [3, 5]]} | {$set: {"a.$.0": 0}} | {_id: 1, a: [[1], [0, 5]]}
            {_id: 1}                             | {_id: 1, grades: [85, 82, 80]}   | {$inc: {"grades.$[]": 10}} | {_id: 1, grades: [95, 92, 90]}
            {}                                   | {_id: 2, grades: [{grade: 80, mean: 75, std: 8}, {grade: 85, mean: 90, std: 6}]} | {$inc: {"grades.$[].std": -2}} | {_id: 2, grades: [{grade: 80, mean: 75, std: 6}, {grade: 85, mean: 90, std: 4}]}
            {}                                   | {_id: 1, a: []}                  | {$set: {"a.$[]": 1}}     | {_id: 1, a: []}
            {}                                   | {_id: 1, a: [{b: 1}, 2]}         | {$unset: {"a.$[].b": ""}} | {_id: 1, a: [{}, 2]}
            """)
    void appliesThePositionalOperators(String filter, String doc, String update, String expected) {
        BsonDocument document = BsonDocument.parse(doc);
        OptionalInt position = Filter.parse(BsonDocument.parse(filter)).matchedPosition(document);
        assertThat(Update.parse(BsonDocument.parse(update)).apply(document, position).toJson())
                .isEqualTo(BsonDocument.parse(expected).toJson());
    }

    @ParameterizedTest(name = "{1} with {2} on {0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {_id: 1, grades: [95, 92, 90]}       | {$set: {"grades.$[element]": 100}} | [{element: {$gte: 100}}] | {_id: 1, grades: [95, 92, 90]}
            {_id: 2, grades: [98, 100, 102]}     | {$set: {"grades.$[element]": 100}} | [{element: {$gte: 100}}] | {_id: 2, grades: [98, 100, 100]}
            {_id: 1, grades: [{grade: 80, mean: 75, std: 6}, {grade: 85, mean: 90, std: 4}, {grade: 85, mean: 85, std: 6}]} | {$set: {"grades.$[elem].mean": 100}} | [{"elem.grade": {$gte: 85}}] | {_id: 1, grades: [{grade: 80, mean: 75, std: 6}, {grade: 85, mean: 100, std: 4}, {grade: 85, mean: 100, std: 6}]}
            {_id: 1, grades: [{grade: 80, mean: 75, std: 6}, {grade: 85, mean: 90, std: 4}, {grade: 85, mean: 85, std: 6}]} | {$inc: {"grades.$[elem].std": -1}} | [{"elem.grade": {$gte: 80}, "elem.std": {$gt: 5}}] | {_id: 1, grades: [{grade: 80, mean: 75, std: 5}, {grade: 85, mean: 90, std: 4}, {grade: 85, mean: 85, std: 5}]}
            {_id: 1, grades: [{type: "quiz", questions: [10, 8, 5]}, {type: "quiz", questions: [8, 9, 6]}, {type: "hw", questions: [5, 4, 3]}, {type: "exam", questions: [25, 10, 23, 0]}]} | {$inc: {"grades.$[t].questions.$[score]": 2}} | [{"t.type": "quiz"}, {score: {$gte: 8}}] | {_id: 1, grades: [{type: "quiz", questions: [12, 10, 5]}, {type: "quiz", questions: [10, 11, 6]}, {type: "hw", questions: [5, 4, 3]}, {type: "exam", questions: [25, 10, 23, 0]}]}
            {_id: 1, grades: [{type: "quiz", questions: [10, 8, 5]}, {type: "hw", questions: [5, 4, 3]}, {type: "exam", questions: [25, 10, 23, 0]}]} | {$inc: {"grades.$[].questions.$[score]": 2}} | [{score: {$gte: 8}}] | {_id: 1, grades: [{type: "quiz", questions: [12, 10, 5]}, {type: "hw", questions: [5, 4, 3]}, {type: "exam", questions: [27, 12, 25, 0]}]}
            {_id: 1, degrees: [{level: "Master"}, {level: "Bachelor"}]} | {$set: {"degrees.$[degree].gradcampaign": 1}} | [{"degree.level": {$ne: "Bachelor"}}] | {_id: 1, degrees: [{level: "Master", gradcampaign: 1}, {level: "Bachelor"}]}
            {_id: 1, a: [null, 1, {b: 1}]}       | {$set: {"a.$[x]": 0}}              | [{x: null}]              | {_id: 1, a: [0, 1, {b: 1}]}
            {_id: 1, a: [[1, 2], [3]]}           | {$pull: {"a.$[x]": 1}}             | [{x: {$size: 2}}]        | {_id: 1, a: [[2], [3]]}
            """)
    void appliesArrayFilters(String doc, String update, String arrayFilters, String expected) {
        Update parsed = Update.parse(BsonDocument.parse(update), filters(arrayFilters));
        assertThat(parsed.apply(BsonDocument.parse(doc)).toJson()).isEqualTo(BsonDocument.parse(expected).toJson());
    }

    @ParameterizedTest(name = "{1} on {0} -> {2}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {_id: 1, a: [1]}            | {$set: {"a.$": 2}}             | BadValue      | The positional operator did not find the match needed from the query.
            {_id: 1, a: 5}              | {$set: {"a.$[]": 2}}           | BadValue      | Cannot apply array updates to non-array element {"a": 5}
            {_id: 1}                    | {$set: {"a.$[]": 2}}           | BadValue      | The path 'a' must exist in the document in order to apply array updates.
            {_id: 1}                    | {$unset: {"a.$[]": 1}}         | BadValue      | `!`
            {_id: 1, a: [1]}            | {$set: {"a.$[].b": 2}}         | PathNotViable | Cannot create field 'b'
            """)
    void rejectsPositionalUpdatesThatCannotApply(String doc, String update, ErrorCode code, String message) {
        Update parsed = Update.parse(BsonDocument.parse(update));
        if (message.equals("!")) {
            assertThat(parsed.apply(BsonDocument.parse(doc))).isEqualTo(BsonDocument.parse(doc));
            return;
        }
        assertThatThrownBy(() -> parsed.apply(BsonDocument.parse(doc)))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(code))
                .hasMessageContaining(message);
    }

    @ParameterizedTest(name = "{0} with {1} -> {2}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {$set: {"a.$.b.$": 1}}            | []                          | BadValue      | Too many positional (i.e. '$') elements found in path 'a.$.b.$'
            {$set: {"a.$[x]": 1}}             | []                          | BadValue      | No array filter found for identifier 'x' in path 'a.$[x]'
            {$set: {"a.$[x]": 1}}             | [{x: 1}, {y: 1}]            | FailedToParse | The array filter for identifier 'y' was not used in the update
            {$set: {"a.$[x]": 1}}             | [{x: 1}, {x: 2}]            | FailedToParse | Found multiple array filters with the same top-level field name x
            {$set: {"a.$[X]": 1}}             | [{X: 1}]                    | BadValue      | The top-level field name must be an alphanumeric string beginning with a lowercase letter, found 'X'
            {$set: {"a.$[x]": 1}}             | [{x: 1, y: 1}]              | FailedToParse | Expected a single top-level field name, found 'x' and 'y'
            {$set: {"a.$[x]": 1}}             | [{}]                        | FailedToParse | Cannot use an expression without a top-level field name in arrayFilters
            {$set: {"a.$[x]": 1}}             | [1]                         | TypeMismatch  | arrayFilters entries must be objects
            {$set: {"a.$[x]": 1}}             | [{x: {$bad: 1}}]            | BadValue      | unknown operator: $bad
            {a: 1}                            | [{x: 1}]                    | FailedToParse | arrayFilters may not be specified for replacement-style updates
            {$rename: {"a.$": "b"}}           | []                          | BadValue      | The source field for $rename may not be dynamic: a.$
            {$rename: {a: "b.$"}}             | []                          | BadValue      | The destination field for $rename may not be dynamic: b.$
            {$set: {"a.$[]": 1, "a.$[].b": 1}} | []                         | ConflictingUpdateOperators | Updating the path 'a.$[].b' would create a conflict at 'a.$[]'
            """)
    void rejectsMalformedPositionalUpdates(String update, String arrayFilters, ErrorCode code, String message) {
        assertThatThrownBy(() -> Update.parse(BsonDocument.parse(update), filters(arrayFilters)))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(code))
                .hasMessageContaining(message);
    }

    private static List<BsonValue> filters(String json) {
        return BsonDocument.parse("{f: " + json + "}").getArray("f").getValues();
    }

}
