package dev.shardstore.engine.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.error.CommandException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The {@code _id} restrictions (MongoDB manual, "Documents": not an array, regex or undefined; no {@code $}-prefixed
 * subfield) on the values themselves, on replacements and on upserts.
 */
class IdFieldTest {
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {_id: [1]}                          | 53 | The '_id' value cannot be of type array
            {_id: {$regularExpression: {pattern: "a", options: ""}}} | 53 | The '_id' value cannot be of type regex
            {_id: {$undefined: true}}           | 53 | The '_id' value cannot be of type undefined
            {_id: {a: 1, $b: 1}}                | 52 | _id fields may not contain '$'-prefixed fields: $b is not valid for storage.
            {_id: {a: {b: [{$c: 1}]}}}          | 52 | $c is not valid for storage
            """)
    void refused(String document, int code, String message) {
        assertThatThrownBy(() -> IdField.requireValid(ExtendedJson.parse(document).get("_id")))
                .isInstanceOf(CommandException.class).hasMessageContaining(message)
                .satisfies(e -> assertThat(((CommandException) e).code().code()).isEqualTo(code));
        // as a replacement, and as the _id an upsert's query gives
        assertThatThrownBy(() -> Update.parse(ExtendedJson.parse(document)))
                .isInstanceOf(CommandException.class).hasMessageContaining(message);
        assertThatThrownBy(() -> Update.parse(ExtendedJson.parse("{$set: {x: 1}}"))
                .applyForUpsert(ExtendedJson.parse(document)))
                .isInstanceOf(CommandException.class).hasMessageContaining(message);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {_id: {a: 1, "b.c": {d: "$x"}}}
            {_id: null}
            {_id: {}}
            {_id: {$numberDecimal: "1.5"}}
            """)
    void accepted(String document) {
        IdField.requireValid(ExtendedJson.parse(document).get("_id"));
        assertThat(Update.parse(ExtendedJson.parse(document)).isReplacement()).isTrue();
    }
}
