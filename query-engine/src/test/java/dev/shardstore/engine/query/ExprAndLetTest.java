package dev.shardstore.engine.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.engine.aggregate.expression.CommandVariables;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code $expr} in query filters and the command variables it sees (MongoDB manual, "$expr" — its monthly budget
 * and supplies examples — and the {@code let} option of find/aggregate/update/delete/findAndModify: "Use Variables
 * in let"), with the places MongoDB refuses {@code $expr} and the {@code let} names and values it refuses.
 */
class ExprAndLetTest {
    private static final String BUDGET = """
            [{_id: 1, category: "food", budget: 400, spent: 450},
             {_id: 2, category: "drinks", budget: 100, spent: 150},
             {_id: 3, category: "clothes", budget: 100, spent: 50},
             {_id: 4, category: "misc", budget: 500, spent: 300},
             {_id: 5, category: "travel", budget: 200, spent: 650}]""";

    private static final String SUPPLIES = """
            [{_id: 1, item: "binder", qty: {$numberInt: "100"}, price: {$numberDecimal: "12"}},
             {_id: 2, item: "notebook", qty: {$numberInt: "200"}, price: {$numberDecimal: "8"}},
             {_id: 3, item: "pencil", qty: {$numberInt: "50"}, price: {$numberDecimal: "6"}},
             {_id: 4, item: "eraser", qty: {$numberInt: "150"}, price: {$numberDecimal: "3"}},
             {_id: 5, item: "legal pad", qty: {$numberInt: "42"}, price: {$numberDecimal: "10"}}]""";

    @ParameterizedTest(name = "{1} let {2}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            BUDGET   | {$expr: {$gt: ["$spent", "$budget"]}}                                              | {}                            | 1, 2, 5
            SUPPLIES | {$expr: {$lt: [{$cond: {if: {$gte: ["$qty", 100]}, then: {$multiply: ["$price", {$numberDecimal: "0.50"}]}, else: {$multiply: ["$price", {$numberDecimal: "0.75"}]}}}, 5]}} | {} | 2, 3, 4
            BUDGET   | {$expr: {$gt: ["$spent", "$$limit"]}}                                              | {limit: 400}                  | 1, 5
            BUDGET   | {$expr: {$eq: ["$category", "$$wanted"]}}                                          | {wanted: {$concat: ["dri", "nks"]}} | 2
            BUDGET   | {$expr: {$eq: ["$category", "$$b"]}}                                               | {a: "mis", b: {$concat: ["$$a", "c"]}} | 4
            BUDGET   | {budget: 100, $expr: {$lt: ["$spent", "$budget"]}}                                 | {}                            | 3
            BUDGET   | {$or: [{_id: 1}, {$expr: {$eq: ["$$ROOT.spent", 300]}}]}                           | {}                            | 1, 4
            BUDGET   | {$and: [{$expr: {$gte: ["$$CURRENT.budget", 200]}}, {$expr: {$lt: ["$spent", 500]}}]} | {}                         | 1, 4
            BUDGET   | {$nor: [{$expr: "$spent"}]}                                                         | {}                            |
            BUDGET   | {$expr: {$lt: ["$$NOW", {$toDate: {$numberLong: "946684800000"}}]}}           | {}                            |
            BUDGET   | {$expr: {$gt: ["$$NOW", {$toDate: {$numberLong: "946684800000"}}]}}           | {}                            | 1, 2, 3, 4, 5
            BUDGET   | {$expr: {$eq: ["$$today", "$$NOW"]}}                                               | {today: "$$NOW"}              | 1, 2, 3, 4, 5
            BUDGET   | {$expr: "$$REMOVE"}                                                                  | {}                            |
            BUDGET   | {$expr: {$eq: ["$$limit", null]}}                                                  | {limit: null}                 | 1, 2, 3, 4, 5
            """)
    void matches(String collection, String filter, String let, String expectedIds) {
        String documents = collection.equals("BUDGET") ? BUDGET : SUPPLIES;
        Filter parsed = Filter.parse(ExtendedJson.parse(filter), CommandVariables.parse(ExtendedJson.parse(let), "let"));
        List<Integer> ids = docs(documents).stream().filter(parsed::matches).map(d -> d.getInt32("_id").getValue()).toList();
        List<Integer> expected = expectedIds == null ? List.of()
                : java.util.Arrays.stream(expectedIds.split(",")).map(String::trim).map(Integer::valueOf).toList();
        assertThat(ids).as(filter).containsExactlyElementsOf(expected);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {a: {$elemMatch: {$expr: {$eq: ["$b", 1]}}}}            | 2   | $expr can only be applied to the top-level document
            {a: {$elemMatch: {b: 1, $expr: true}}}                  | 2   | $expr can only be applied to the top-level document
            {$expr: {$foo: 1}}                                      | 168 | Unrecognized expression '$foo'
            {$expr: "$$CLUSTER_TIME"}                               | 238 | $$CLUSTER_TIME
            """)
    void refusedInCommandFilters(String filter, int code, String message) {
        assertThatThrownBy(() -> Filter.parse(ExtendedJson.parse(filter), CommandVariables.withoutLet()))
                .isInstanceOf(CommandException.class).hasMessageContaining(message)
                .satisfies(e -> assertThat(((CommandException) e).code().code()).isEqualTo(code));
    }

    @Test
    void anUndefinedVariableIsAnErrorAndRemoveIsMissing() {
        BsonDocument doc = ExtendedJson.parse("{_id: 1}");
        Filter undefined = Filter.parse(ExtendedJson.parse("{$expr: {$eq: ['$_id', '$$id2']}}"), CommandVariables.withoutLet());
        assertThatThrownBy(() -> undefined.matches(doc)).isInstanceOf(CommandException.class)
                .hasMessageContaining("Use of undefined variable: id2")
                .satisfies(e -> assertThat(((CommandException) e).code().code()).isEqualTo(17276));
        Filter defined = Filter.parse(ExtendedJson.parse("{$expr: {$eq: ['$_id', '$$id2']}}"),
                CommandVariables.parse(ExtendedJson.parse("{id2: 1}"), "let"));
        assertThat(defined.matches(doc)).isTrue();
        assertThat(Filter.parse(ExtendedJson.parse("{$expr: {$eq: ['$$REMOVE', '$nothing']}}"), CommandVariables.withoutLet()).matches(doc))
                .as("$$REMOVE is missing, like an absent field").isTrue();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {$expr: true}
            {$or: [{a: 1}, {$expr: true}]}
            """)
    void refusedOutsideACommandsQuery(String filter) {
        assertThatThrownBy(() -> Filter.parse(ExtendedJson.parse(filter)))
                .isInstanceOf(CommandException.class).hasMessageContaining("$expr is not allowed in this context")
                .satisfies(e -> assertThat(((CommandException) e).code().code()).isEqualTo(224));
        assertThatThrownBy(() -> Update.parse(ExtendedJson.parse("{$pull: {a: " + filter + "}}")))
                .isInstanceOf(CommandException.class).hasMessageContaining("$expr");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {let: 5}                            | 14 | 'let' must be a document
            {let: {Total: 1}}                   | 2  | 'let.Total': 'Total' starts with an invalid character for a user variable name
            {let: {_x: 1}}                      | 2  | 'let._x': '_x' starts with an invalid character
            {let: {"": 1}}                      | 2  | empty variable names are not allowed
            {let: {"a-b": 1}}                   | 2  | 'let.a-b': 'a-b' contains an invalid character for a variable name: '-'
            {let: {"a.b": 1}}                   | 2  | contains an invalid character for a variable name: '.'
            {let: {NOW: 1}}                     | 2  | 'let.NOW'
            {let: {x: "$qty"}}                  | 2  | 'let.x': Command let Expression tried to access a field
            {let: {x: "$$ROOT"}}                | 2  | Command let Expression tried to access a field
            {let: {x: {$add: ["a", 1]}}}        | 14 | 'let.x':
            {let: {x: "$$CLUSTER_TIME"}}        | 238 | $$CLUSTER_TIME
            """)
    void badLet(String command, int code, String message) {
        BsonValue let = ExtendedJson.parse(command).get("let");
        assertThatThrownBy(() -> CommandVariables.parse(let, "let"))
                .isInstanceOf(CommandException.class).hasMessageContaining(message)
                .satisfies(e -> assertThat(((CommandException) e).code().code()).isEqualTo(code));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {x: 1, é: 2, a_B9: 3, y: {$literal: "$notAField"}}
            """)
    void goodLetNames(String let) {
        CommandVariables variables = CommandVariables.parse(ExtendedJson.parse(let), "let");
        Filter filter = Filter.parse(ExtendedJson.parse("{$expr: {$eq: [{$add: [\"$$x\", \"$$é\", \"$$a_B9\"]}, 6]}}"), variables);
        assertThat(filter.matches(new BsonDocument())).isTrue();
        assertThat(Filter.parse(ExtendedJson.parse("{$expr: {$eq: [\"$$y\", \"$notAField\"]}}"), variables)
                .matches(ExtendedJson.parse("{notAField: 1}"))).isFalse();
    }

    private static List<BsonDocument> docs(String json) {
        return ExtendedJson.parse("{d: " + json + "}").getArray("d").stream().map(BsonValue::asDocument).toList();
    }
}
