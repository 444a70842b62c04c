package dev.shardstore.engine.aggregate.expression;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code $getField}, {@code $setField}, {@code $unsetField}: the examples of their MongoDB manual pages (fields
 * named with a dot, {@code "price.usd"}, and with a leading {@code $}, {@code "$price"}) and the rules they state.
 */
class FieldsTest {
    private static final String INVENTORY = "{_id: 1, item: 'sweatshirt', 'price.usd': 45.99, $price: 30, qty: 300}";

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {$getField: 'price.usd'}                                        | 45.99
            {$getField: {field: 'price.usd'}}                               | 45.99
            {$getField: {$literal: '$price'}}                               | 30
            {$getField: {field: {$literal: '$price'}, input: '$$CURRENT'}}  | 30
            {$getField: {field: 'qty', input: {qty: 7}}}                    | 7
            {$getField: {field: 'nope'}}                                    | missing
            {$getField: {field: 'qty', input: '$nope'}}                     | null
            {$getField: {field: 'qty', input: null}}                        | null
            {$setField: {field: 'price.usd', input: '$$ROOT', value: 49.99}} | {_id: 1, item: 'sweatshirt', 'price.usd': 49.99, $price: 30, qty: 300}
            {$setField: {field: {$literal: '$price'}, input: '$$ROOT', value: 20}} | {_id: 1, item: 'sweatshirt', 'price.usd': 45.99, $price: 20, qty: 300}
            {$setField: {field: 'new.one', input: {a: 1}, value: '$qty'}}   | {a: 1, 'new.one': 300}
            {$setField: {field: 'price.usd', input: '$$ROOT', value: '$$REMOVE'}} | {_id: 1, item: 'sweatshirt', $price: 30, qty: 300}
            {$setField: {field: 'a', input: '$nope', value: 1}}             | null
            {$unsetField: {field: 'price.usd', input: '$$ROOT'}}            | {_id: 1, item: 'sweatshirt', $price: 30, qty: 300}
            {$unsetField: {field: {$literal: '$price'}, input: '$$ROOT'}}   | {_id: 1, item: 'sweatshirt', 'price.usd': 45.99, qty: 300}
            {$unsetField: {field: 'x', input: {x: 1, y: 2}}}                | {y: 2}
            """)
    void values(String expression, String expected) {
        Eval.check(expression, INVENTORY, expected);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {$getField: '$price'}                                   | 2  | $getField requires 'field' to evaluate to a constant
            {$getField: {field: 5}}                                 | 2  | $getField requires 'field' to evaluate to type String, but got int
            {$getField: {field: 'a', input: 5}}                     | 14 | $getField requires 'input' to evaluate to type Object, but got int
            {$getField: {input: {}}}                                | 2  | Missing 'field' parameter to $getField
            {$setField: {field: 'a', input: {}}}                    | 2  | Missing 'value' parameter to $setField
            {$setField: {field: 'a', input: [1], value: 1}}         | 14 | $setField requires 'input' to evaluate to type Object, but got array
            {$setField: {field: {$concat: ['a', 'b']}, input: {}, value: 1}} | 2 | requires 'field' to evaluate to a constant
            {$unsetField: {field: 'a', input: {}, value: 1}}        | 2  | $unsetField found an unknown argument: value
            """)
    void errors(String expression, int code, String message) {
        Eval.fails(expression, INVENTORY, code, message);
    }
}
