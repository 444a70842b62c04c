package dev.shardstore.engine.aggregate.expression;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Comparison, boolean and conditional operators, and field paths, literals and variables. */
class LogicTest {
    private static final String DOC = "{_id: 1, qty: 250, price: 1.0, s: 'abc', n: null, arr: [{b: 1}, {c: 2}, {b: 3}, 7],"
            + " sub: {x: {y: 5}}, empty: []}";

    @ParameterizedTest(name = "{0} = {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            '$qty'                                     | 250
            '$sub.x.y'                                 | 5
            '$sub.x.z'                                 | missing
            '$s.length'                                | missing
            '$arr.b'                                   | [1, 3]
            '$$CURRENT.sub.x'                          | {y: 5}
            '$$ROOT._id'                               | 1
            '$$REMOVE'                                 | missing
            {$literal: '$qty'}                         | '$qty'
            {$literal: {$add: 1}}                      | {$add: 1}
            {a: '$qty', b: '$nope', c: ['$nope', 1]}   | {a: 250, c: [null, 1]}
            {$eq: ['$qty', 250.0]}                     | true
            {$ne: ['$qty', 250]}                       | false
            {$gt: ['$qty', 250]}                       | false
            {$gte: ['$qty', 250]}                      | true
            {$lt: ['$price', 2]}                       | true
            {$lte: ['$s', 1]}                          | false
            {$gt: ['$s', 1]}                           | true
            {$eq: ['$n', null]}                        | true
            {$eq: ['$nope', null]}                     | false
            {$lt: ['$nope', null]}                     | true
            {$eq: ['$nope', '$nope2']}                 | true
            {$cmp: ['$qty', 250]}                      | 0
            {$cmp: ['$qty', 300]}                      | -1
            {$cmp: ['$s', 'ab']}                       | 1
            {$and: [1, 'green']}                       | true
            {$and: []}                                 | true
            {$and: [{$gt: ['$qty', 100]}, {$lt: ['$qty', 250]}]} | false
            {$and: [null, true]}                       | false
            {$and: [0, true]}                          | false
            {$or: [[false], false]}                    | true
            {$or: ['$nope', 0]}                        | false
            {$not: [false]}                            | true
            {$not: [[false]]}                          | false
            {$not: '$nope'}                            | true
            {$cond: {if: {$gte: ['$qty', 250]}, then: 30, else: 20}} | 30
            {$cond: [{$lt: ['$qty', 250]}, 30, 20]}    | 20
            {$ifNull: ['$n', 'Unspecified']}           | 'Unspecified'
            {$ifNull: ['$nope', '$n', 'x']}            | 'x'
            {$ifNull: ['$qty', 'x']}                   | 250
            {$switch: {branches: [{case: {$lt: ['$qty', 100]}, then: 'low'}, {case: {$lt: ['$qty', 300]}, then: 'mid'}], default: 'high'}} | 'mid'
            {$switch: {branches: [{case: false, then: 1}], default: 'none'}} | 'none'
            """)
    void evaluates(String expression, String expected) {
        Eval.check(expression, DOC, expected);
    }

    @ParameterizedTest(name = "{0} fails: {2}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {$switch: {branches: [{case: false, then: 1}]}} | 2 | $switch could not find a matching branch
            {$switch: {branches: [{then: 1}]}}         | 2 | Missing 'case' parameter
            {$cond: {if: true, then: 1}}               | 2 | Missing 'else' parameter to $cond
            {$eq: [1]}                                 | 2 | Expression $eq takes exactly 2 arguments
            {$ifNull: [1]}                             | 2 | Expression $ifNull takes 2 to
            {$add: 1, x: 2}                            | 2 | an expression specification must contain exactly one field
            '$a..b'                                    | 2 | FieldPath field names may not be empty strings
            """)
    void rejects(String expression, int code, String message) {
        Eval.fails(expression, DOC, code, message);
    }
}
