package dev.shardstore.engine.aggregate.expression;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.error.CommandException;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.json.JsonMode;
import org.bson.json.JsonWriterSettings;

/** Table-test helper: evaluates an expression given as Extended JSON against a document. */
final class Eval {
    private Eval() {}

    /** The value of {@code expression} on {@code document}; null for missing. */
    static BsonValue eval(String expression, String document) {
        BsonValue spec = ExtendedJson.parse("{e: " + expression + "}").get("e");
        return ExpressionParser.INSTANCE.parse(spec).evaluate(Variables.of(ExtendedJson.parse(document)));
    }

    /** Asserts the value, given as Extended JSON, or {@code "missing"}; types and field order are compared exactly. */
    static void check(String expression, String document, String expected) {
        BsonValue actual = eval(expression, document);
        if (expected.equals("missing")) {
            assertThat(actual).as(expression).isNull();
        } else {
            JsonWriterSettings canonical = JsonWriterSettings.builder().outputMode(JsonMode.EXTENDED).build();
            assertThat(new BsonDocument("v", actual).toJson(canonical)).as(expression)
                    .isEqualTo(ExtendedJson.parse("{v: " + expected + "}").toJson(canonical));
        }
    }

    /** Asserts that evaluation (or parsing) fails with {@code code} and a message containing {@code message}. */
    static void fails(String expression, String document, int code, String message) {
        assertThatThrownBy(() -> eval(expression, document)).isInstanceOf(CommandException.class)
                .hasMessageContaining(message)
                .satisfies(e -> assertThat(((CommandException) e).code().code()).isEqualTo(code));
    }
}
