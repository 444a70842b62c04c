package dev.shardstore.engine.aggregate.expression;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Arithmetic operators against MongoDB's documentation examples and its type promotion rules. */
class ArithmeticTest {
    private static final String DOC = "{price: 10, fee: 2, qty: {$numberLong: '3'}, d: 1.5, "
            + "dec: {$numberDecimal: '2.5'}, date: {$date: '2014-03-01T08:00:00Z'}, n: null, big: 2147483647}";

    @ParameterizedTest(name = "{0} = {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {$add: ['$price', '$fee']}                 | 12
            {$add: ['$price', '$qty']}                 | {$numberLong: '13'}
            {$add: ['$price', '$d']}                   | 11.5
            {$add: ['$price', '$dec']}                 | {$numberDecimal: '12.5'}
            {$add: ['$big', 1]}                        | {$numberLong: '2147483648'}
            {$add: ['$date', 3600000]}                 | {$date: '2014-03-01T09:00:00Z'}
            {$add: ['$price', '$n']}                   | null
            {$add: ['$price', '$nope']}                | null
            {$add: []}                                 | 0
            {$subtract: ['$price', '$fee']}            | 8
            {$subtract: ['$date', 60000]}              | {$date: '2014-03-01T07:59:00Z'}
            {$subtract: ['$date', {$date: '2014-03-01T07:00:00Z'}]} | {$numberLong: '3600000'}
            {$multiply: ['$price', '$qty']}            | {$numberLong: '30'}
            {$multiply: ['$price', '$d']}              | 15.0
            {$divide: ['$price', 4]}                   | 2.5
            {$divide: [9, 3]}                          | 3.0
            {$mod: ['$price', 3]}                      | 1
            {$mod: [-5, 3]}                            | -2
            {$mod: [5.5, 2]}                           | 1.5
            {$abs: -1}                                 | 1
            {$abs: -1.5}                               | 1.5
            {$abs: null}                               | null
            {$ceil: 7.80}                              | 8.0
            {$ceil: -2.8}                              | -2.0
            {$ceil: 1}                                 | 1
            {$floor: -2.8}                             | -3.0
            {$round: [10.5, 0]}                        | 10.0
            {$round: [11.5, 0]}                        | 12.0
            {$round: [19.25, 1]}                       | 19.2
            {$round: ['$dec', {$numberDecimal: '0'}]}  | {$numberDecimal: '2'}
            {$round: [1234, -2]}                       | 1200
            {$trunc: [-8.99, 0]}                       | -8.0
            {$trunc: [19.28, 1]}                       | 19.2
            {$trunc: '$n'}                             | null
            """)
    void evaluates(String expression, String expected) {
        Eval.check(expression, DOC, expected);
    }

    @ParameterizedTest(name = "{0} fails: {2}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {$add: ['$price', 'x']}                    | 14 | $add only supports numeric or date types, not string
            {$add: ['$date', '$date']}                 | 14 | only one date allowed
            {$multiply: ['$price', true]}              | 14 | $multiply only supports numeric types, not bool
            {$divide: [1, 0]}                          | 2  | can't $divide by zero
            {$mod: [1, 0]}                             | 2  | can't $mod by zero
            {$subtract: [1]}                           | 2  | Expression $subtract takes exactly 2 arguments. 1 were passed in.
            {$frobnicate: 1}                           | 168 | Unrecognized expression '$frobnicate'
            """)
    void rejects(String expression, int code, String message) {
        Eval.fails(expression, DOC, code, message);
    }
}
