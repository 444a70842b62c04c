package dev.shardstore.engine.aggregate.expression;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.bson.ExtendedJson;
import java.util.HashSet;
import java.util.Set;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code $rand}: a fresh double in [0, 1) per evaluation, MongoDB's errors for arguments, and its use in {@code let}. */
class RandomnessTest {

    @Test
    void drawsADoubleFromZeroToOneAnewEachEvaluation() {
        Expression rand = ExpressionParser.INSTANCE.parse(ExtendedJson.parse("{e: {$rand: {}}}").get("e"));
        Set<Double> seen = new HashSet<>();
        for (int i = 0; i < 100; i++) {
            BsonValue value = rand.evaluate(Variables.of(ExtendedJson.parse("{}")));
            assertThat(value.isDouble()).isTrue();
            assertThat(value.asDouble().getValue()).isGreaterThanOrEqualTo(0.0).isLessThan(1.0);
            seen.add(value.asDouble().getValue());
        }
        assertThat(seen).as("100 draws are not one constant").hasSizeGreaterThan(1);
    }

    @Test
    void anEmptyArrayIsNoArgumentsAsAnEmptyDocument() {
        assertThat(Eval.eval("{$rand: []}", "{}").isDouble()).isTrue();
        assertThat(Eval.eval("{$multiply: [{$rand: {}}, 0]}", "{}").asDouble().getValue()).isZero();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            {$rand: {x: 1}}  | 3040501 | $rand does not currently accept arguments
            {$rand: [1]}     | 3040501 | $rand does not currently accept arguments
            {$rand: 1}       | 10065   | invalid parameter: expected an object ($rand)
            {$rand: 'x'}     | 10065   | invalid parameter: expected an object ($rand)
            {$rand: null}    | 10065   | invalid parameter: expected an object ($rand)
            """)
    void refusesArgumentsAsMongoDbDoes(String expression, int code, String message) {
        Eval.fails(expression, "{}", code, message);
    }

    @Test
    void aLetVariableDrawsOnceForTheCommand() {
        CommandVariables variables = CommandVariables.parse(ExtendedJson.parse("{r: {$rand: {}}}"), "let");
        Expression read = ExpressionParser.INSTANCE.parse(ExtendedJson.parse("{e: '$$r'}").get("e"));
        BsonValue first = read.evaluate(variables.scope(ExtendedJson.parse("{_id: 1}")));
        assertThat(first.asDouble().getValue()).isGreaterThanOrEqualTo(0.0).isLessThan(1.0);
        assertThat(read.evaluate(variables.scope(ExtendedJson.parse("{_id: 2}")))).isEqualTo(first);
    }
}
