package dev.shardstore.engine.aggregate.expression;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** String and array operators, from MongoDB's documentation examples. */
class StringsArraysTest {
    private static final String DOC = "{item: 'ABC1', description: 'Product 1', city: 'Berkeley, CA', n: null,"
            + " name: 'cafétéria', items: [{qty: 5, price: 1}, {qty: 1, price: 2}, {qty: 10, price: 3}],"
            + " nums: [1, 2, 3, 4], favorites: ['chocolate', 'cake', 'butter', 'apples']}";

    @ParameterizedTest(name = "{0} = {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {$concat: ['$item', ' - ', '$description']} | 'ABC1 - Product 1'
            {$concat: ['$item', '$n']}                 | null
            {$concat: ['$item', '$nope']}              | null
            {$substrCP: ['$item', 0, 2]}               | 'AB'
            {$substrCP: ['$name', 3, 3]}               | 'été'
            {$substrCP: ['$name', 20, 3]}              | ''
            {$toLower: '$item'}                        | 'abc1'
            {$toUpper: '$description'}                 | 'PRODUCT 1'
            {$toUpper: '$nope'}                        | ''
            {$split: ['$city', ', ']}                  | ['Berkeley', 'CA']
            {$split: ['a--b--', '--']}                 | ['a', 'b', '']
            {$split: ['$n', ',']}                      | null
            {$strLenCP: '$name'}                       | 9
            {$regexMatch: {input: '$description', regex: 'product', options: 'i'}} | true
            {$regexMatch: {input: '$description', regex: {$regularExpression: {pattern: '^Pro', options: ''}}}} | true
            {$regexMatch: {input: '$description', regex: 'line'}} | false
            {$regexMatch: {input: '$nope', regex: 'x'}} | false
            {$size: '$favorites'}                      | 4
            {$size: [[]]}                              | 0
            {$arrayElemAt: ['$favorites', 0]}          | 'chocolate'
            {$arrayElemAt: ['$favorites', -1]}         | 'apples'
            {$arrayElemAt: ['$favorites', 15]}         | missing
            {$arrayElemAt: ['$nope', 0]}               | null
            {$filter: {input: '$items', as: 'item', cond: {$gte: ['$$item.price', 2]}}} | [{qty: 1, price: 2}, {qty: 10, price: 3}]
            {$filter: {input: '$nums', cond: {$gt: ['$$this', 1]}, limit: 2}} | [2, 3]
            {$filter: {input: '$nope', cond: true}}    | null
            {$map: {input: '$nums', as: 'x', in: {$multiply: ['$$x', 10]}}} | [10, 20, 30, 40]
            {$map: {input: '$items', in: '$$this.qty'}} | [5, 1, 10]
            {$map: {input: '$items', in: '$$this.nope'}} | [null, null, null]
            {$in: ['cake', '$favorites']}              | true
            {$in: [2.0, '$nums']}                      | true
            {$in: ['pie', '$favorites']}               | false
            {$in: ['$nope', [null]]}                   | false
            {$in: [null, [null]]}                      | true
            """)
    void evaluates(String expression, String expected) {
        Eval.check(expression, DOC, expected);
    }

    @ParameterizedTest(name = "{0} fails: {2}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {$concat: ['$item', 5]}                    | 14 | $concat only supports strings, not int
            {$size: '$nope'}                           | 14 | The argument to $size must be an array. Type of argument: missing
            {$size: '$item'}                           | 14 | Type of argument: string
            {$in: ['x', '$item']}                      | 14 | $in requires an array as a second argument, found: string
            {$split: ['$item', '']}                    | 2  | $split requires a non-empty separator
            {$strLenCP: '$n'}                          | 14 | $strLenCP requires a string argument, found: null
            {$substrCP: ['$item', -1, 2]}              | 2  | non-negative integral
            {$filter: {input: '$nums'}}                | 2  | Missing 'cond' parameter to $filter
            {$filter: 5}                               | 2  | $filter expects an object of named arguments but found: int
            {$arrayElemAt: ['$item', 0]}               | 14 | $arrayElemAt's first argument must be an array, but is string
            """)
    void rejects(String expression, int code, String message) {
        Eval.fails(expression, DOC, code, message);
    }
}
