package dev.shardstore.engine.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.bson.Collation;
import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.engine.aggregate.expression.CommandVariables;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.json.JsonMode;
import org.bson.json.JsonWriterSettings;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Pipeline-style updates (MongoDB manual, "Updates with Aggregation Pipeline": its students/temperatures
 * examples and rules): each allowed stage, {@code _id} kept or immutable, upserts built from the query's
 * equalities, {@code let} and {@code c} variables, and the stages and options MongoDB refuses.
 */
class PipelineUpdateTest {
    private static final JsonWriterSettings CANONICAL = JsonWriterSettings.builder().outputMode(JsonMode.EXTENDED).build();

    @ParameterizedTest(name = "{1}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {_id: 1, test1: 95, test2: 92, test3: 90, modified: false}    | [{$set: {status: "Modified", comments: ["$commentsSemester1", "$commentsSemester2"]}}, {$unset: ["commentsSemester1", "commentsSemester2"]}] | {_id: 1, test1: 95, test2: 92, test3: 90, modified: false, status: "Modified", comments: [null, null]}
            {_id: 1, quiz: [8, 6], tests: [95, 92]}                       | [{$set: {average: {$trunc: [{$divide: [{$add: [{$arrayElemAt: ["$tests", 0]}, {$arrayElemAt: ["$tests", 1]}]}, 2]}, 0]}}}] | {_id: 1, quiz: [8, 6], tests: [95, 92], average: 93.0}
            {_id: 1, quiz: [8, 6], tests: [95, 92]}                       | [{$addFields: {n: {$size: "$quiz"}}}] | {_id: 1, quiz: [8, 6], tests: [95, 92], n: 2}
            {_id: 1, a: 1, b: {c: 2, d: 3}}                                | [{$unset: "b.c"}]                                         | {_id: 1, a: 1, b: {d: 3}}
            {_id: 1, a: 1, b: 2}                                           | [{$project: {b: 1}}]                                      | {_id: 1, b: 2}
            {_id: 1, a: 1, b: 2}                                           | [{$project: {_id: 0, b: 1}}]                              | {_id: 1, b: 2}
            {_id: 1, a: 1, b: 2}                                           | [{$project: {a: 0}}]                                      | {_id: 1, b: 2}
            {_id: 1, a: {x: 1, y: 2}}                                      | [{$replaceRoot: {newRoot: "$a"}}]                         | {_id: 1, x: 1, y: 2}
            {_id: 1, a: {x: 1}}                                            | [{$replaceWith: {_id: 1, z: 0, x: "$a.x"}}]               | {_id: 1, z: 0, x: 1}
            {_id: 1, a: 1}                                                 | [{$replaceWith: {$setField: {field: {$literal: "$b.c"}, input: "$$ROOT", value: 2}}}] | {_id: 1, a: 1, "$b.c": 2}
            {_id: 1, a: 1}                                                 | [{$set: {at: "$$NOW"}}, {$set: {later: {$gt: ["$at", {$toDate: 0}]}}}, {$unset: "at"}] | {_id: 1, a: 1, later: true}
            {_id: 1, a: 1}                                                 | []                                                        | {_id: 1, a: 1}
            {_id: 1, a: 1}                                                 | [{$set: {_id: 1}}]                                        | {_id: 1, a: 1}
            """)
    void applies(String document, String pipeline, String expected) {
        BsonDocument after = parse(pipeline).apply(ExtendedJson.parse(document));
        assertThat(after.toJson(CANONICAL)).isEqualTo(ExtendedJson.parse(expected).toJson(CANONICAL));
    }

    @ParameterizedTest(name = "{1} let {2}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {_id: 1, price: 10}  | [{$set: {total: {$multiply: ["$price", "$$rate"]}}}]  | {rate: 2}  | {}       | {_id: 1, price: 10, total: 20}
            {_id: 1, price: 10}  | [{$set: {total: {$add: ["$price", "$$k"]}}}]         | {k: 1}     | {k: 5}   | {_id: 1, price: 10, total: 15}
            {_id: 1, price: 10}  | [{$set: {c: "$$c1"}}]                                 | {}         | {c1: "$notEvaluated"} | {_id: 1, price: 10, c: "$notEvaluated"}
            """)
    void seesLetAndConstants(String document, String pipeline, String let, String constants, String expected) {
        CommandVariables variables = CommandVariables.parse(ExtendedJson.parse(let), "let")
                .withConstants(ExtendedJson.parse(constants), "updates.0.c");
        Update update = Update.parse(array(pipeline), List.of(), variables, Collation.SIMPLE);
        assertThat(update.apply(ExtendedJson.parse(document)).toJson(CANONICAL)).isEqualTo(ExtendedJson.parse(expected).toJson(CANONICAL));
    }

    @ParameterizedTest(name = "{0} upsert {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {_id: 7, "a.b": 1}   | [{$set: {c: {$add: ["$a.b", 1]}}}]    | {_id: 7, a: {b: 1}, c: 2}
            {_id: 7}             | [{$replaceWith: {x: 1}}]              | {_id: 7, x: 1}
            {k: "v"}             | [{$set: {n: 1}}, {$unset: "k"}]      | {n: 1}
            """)
    void upserts(String query, String pipeline, String expectedWithoutNewId) {
        BsonDocument seed = Update.seedFromEqualities(Filter.parse(ExtendedJson.parse(query)).equalities());
        BsonDocument inserted = parse(pipeline).applyForUpsert(seed);
        BsonDocument expected = ExtendedJson.parse(expectedWithoutNewId);
        if (!expected.containsKey("_id")) {
            assertThat(inserted.get("_id").isObjectId()).isTrue();
            inserted.remove("_id");
        }
        assertThat(inserted.toJson(CANONICAL)).isEqualTo(expected.toJson(CANONICAL));
    }

    @ParameterizedTest(name = "{1}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {_id: 1}          | [{$set: {_id: 2}}]                       | 66    | the (immutable) field '_id' was found to have been altered to {"_id": 2}
            {_id: 1, a: {}}   | [{$replaceWith: {_id: 2}}]               | 66    | immutable
            {_id: 1}          | [{$set: {_id: 1.0}}]                     | 66    | immutable
            {_id: 1}          | [{$replaceWith: "$nope"}]                | 2     | 'newRoot' expression must evaluate to an object
            {a: 1}            | [{$set: {_id: [1]}}]                     | 53    | The '_id' value cannot be of type array
            {a: 1}            | [{$set: {_id: {$literal: {$x: 1}}}}]     | 52    | _id fields may not contain '$'-prefixed fields: $x
            """)
    void failsOnDocument(String document, String pipeline, int code, String message) {
        assertThatThrownBy(() -> parse(pipeline).apply(ExtendedJson.parse(document)))
                .isInstanceOf(CommandException.class).hasMessageContaining(message)
                .satisfies(e -> assertThat(((CommandException) e).code().code()).isEqualTo(code));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            [{$match: {a: 1}}]                             | 72    | $match is not allowed to be used within an update
            [{$set: {a: 1}}, {$group: {_id: "$a"}}]        | 72    | $group is not allowed to be used within an update
            [{$sort: {a: 1}}]                              | 72    | $sort is not allowed to be used within an update
            [{$lookup: {from: "b", localField: "a", foreignField: "b", as: "c"}}] | 72 | $lookup is not allowed to be used within an update
            [{$limit: 1}]                                  | 72    | $limit is not allowed
            [{$nope: 1}]                                   | 40324 | Unrecognized pipeline stage name: '$nope'
            [5]                                            | 14    | Each element of the 'pipeline' array must be an object
            [{$set: {a: {$bad: 1}}}]                       | 168   | Unrecognized expression '$bad'
            """)
    void refusedPipelines(String pipeline, int code, String message) {
        assertThatThrownBy(() -> parse(pipeline))
                .isInstanceOf(CommandException.class).hasMessageContaining(message)
                .satisfies(e -> assertThat(((CommandException) e).code().code()).isEqualTo(code));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {u: [{$set: {a: 1}}], arrayFilters: [{x: 1}]} | 9 | arrayFilters may not be specified for pipeline-style updates
            {u: 5}                                         | 9 | Update argument must be either an object or an array, not int
            {u: "x"}                                       | 9 | Update argument must be either an object or an array
            """)
    void refusedStatements(String statement, int code, String message) {
        BsonDocument spec = ExtendedJson.parse(statement);
        List<BsonValue> arrayFilters = spec.containsKey("arrayFilters") ? spec.getArray("arrayFilters").getValues() : List.of();
        assertThatThrownBy(() -> Update.parse(spec.get("u"), arrayFilters, CommandVariables.withoutLet(), Collation.SIMPLE))
                .isInstanceOf(CommandException.class).hasMessageContaining(message)
                .satisfies(e -> assertThat(((CommandException) e).code().code()).isEqualTo(code));
    }

    /** Replacement, operator and pipeline forms are told apart as MongoDB does: array, then the first key. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {u: {a: 1}}                | true
            {u: {}}                    | true
            {u: {$set: {a: 1}}}        | false
            {u: [{$set: {a: 1}}]}      | false
            {u: []}                    | false
            """)
    void forms(String statement, boolean replacement) {
        assertThat(Update.parse(ExtendedJson.parse(statement).get("u"), List.of(), CommandVariables.withoutLet(), Collation.SIMPLE).isReplacement())
                .isEqualTo(replacement);
    }

    private static Update parse(String pipeline) {
        return Update.parse(array(pipeline), List.of(), CommandVariables.withoutLet(), Collation.SIMPLE);
    }

    private static BsonValue array(String json) {
        return ExtendedJson.parse("{p: " + json + "}").get("p");
    }
}
