package dev.shardstore.engine.aggregate.expression;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Date and type conversion operators, from MongoDB's documentation examples. */
class DatesConversionsTest {
    private static final String DOC = "{date: {$date: '2014-01-01T08:15:39.736Z'}, n: null, s: '5', f: '5.5', b: true,"
            + " l: {$numberLong: '5000000000'}, d: -5.7, dec: {$numberDecimal: '2.5'},"
            + " oid: {$oid: '5ab9cbfa31c2ab715d42129e'}, t: {$date: '2020-03-12T14:30:00Z'}}";

    @ParameterizedTest(name = "{0} = {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {$year: '$date'}                           | 2014
            {$month: '$date'}                          | 1
            {$dayOfMonth: '$date'}                     | 1
            {$hour: '$date'}                           | 8
            {$hour: {date: '$date', timezone: 'America/New_York'}} | 3
            {$dayOfMonth: {date: '$date', timezone: '-09:00'}} | 31
            {$year: '$n'}                              | null
            {$dateToString: {format: '%Y-%m-%d', date: '$date'}} | '2014-01-01'
            {$dateToString: {format: '%H:%M:%S:%L%z', date: '$date', timezone: '+04:30'}} | '12:45:39:736+0430'
            {$dateToString: {format: '%j %w %Z %%', date: '$date', timezone: 'America/New_York'}} | '001 4 -300 %'
            {$dateToString: {date: '$date'}}           | '2014-01-01T08:15:39.736Z'
            {$dateToString: {format: '%Z', date: '$date', timezone: '+04:30'}} | '+270'
            {$dateToString: {date: '$nope', onNull: 'none'}} | 'none'
            {$dateToString: {date: '$n'}}              | null
            {$dateTrunc: {date: '$t', unit: 'month'}}  | {$date: '2020-03-01T00:00:00Z'}
            {$dateTrunc: {date: '$t', unit: 'quarter'}} | {$date: '2020-01-01T00:00:00Z'}
            {$dateTrunc: {date: '$t', unit: 'week'}}   | {$date: '2020-03-08T00:00:00Z'}
            {$dateTrunc: {date: '$t', unit: 'week', startOfWeek: 'monday'}} | {$date: '2020-03-09T00:00:00Z'}
            {$dateTrunc: {date: '$t', unit: 'hour', binSize: 6}} | {$date: '2020-03-12T12:00:00Z'}
            {$dateTrunc: {date: '$t', unit: 'year', binSize: 2}} | {$date: '2020-01-01T00:00:00Z'}
            {$dateTrunc: {date: '$t', unit: 'day', timezone: 'America/New_York'}} | {$date: '2020-03-12T04:00:00Z'}
            {$toInt: '$s'}                             | 5
            {$toInt: '$d'}                             | -5
            {$toInt: '$b'}                             | 1
            {$toInt: '$n'}                             | null
            {$toLong: '$date'}                         | {$numberLong: '1388564139736'}
            {$toLong: '$s'}                            | {$numberLong: '5'}
            {$toDouble: '$f'}                          | 5.5
            {$toDouble: '$l'}                          | 5.0E9
            {$toString: 2.5}                           | '2.5'
            {$toString: 2.0}                           | '2'
            {$toString: '$l'}                          | '5000000000'
            {$toString: '$oid'}                        | '5ab9cbfa31c2ab715d42129e'
            {$toString: '$date'}                       | '2014-01-01T08:15:39.736Z'
            {$toString: '$dec'}                        | '2.5'
            {$toDate: '$l'}                            | {$date: '1970-02-27T20:53:20Z'}
            {$toDate: '2018-03-03T00:00:00Z'}          | {$date: '2018-03-03T00:00:00Z'}
            {$toDate: '$oid'}                          | {$date: '2018-03-27T04:43:38Z'}
            {$toHashedIndexKey: 1}                     | {$numberLong: '5902408780260971510'}
            {$toHashedIndexKey: 'abc'}                 | {$numberLong: '8478485326885698097'}
            {$toHashedIndexKey: '$nope'}               | {$numberLong: '2338878944348059895'}
            {$toHashedIndexKey: '$n'}                  | {$numberLong: '2338878944348059895'}
            {$convert: {input: '$f', to: 'int', onError: 'bad'}} | 'bad'
            {$convert: {input: '$nope', to: 'int', onNull: 0}} | 0
            {$convert: {input: '$s', to: 16}}          | 5
            {$convert: {input: '$s', to: 'decimal'}}   | {$numberDecimal: '5'}
            {$convert: {input: 0, to: 'bool'}}         | false
            {$convert: {input: 'false', to: 'bool'}}   | true
            {$convert: {input: '5ab9cbfa31c2ab715d42129e', to: 'objectId'}} | {$oid: '5ab9cbfa31c2ab715d42129e'}
            """)
    void evaluates(String expression, String expected) {
        Eval.check(expression, DOC, expected);
    }

    @ParameterizedTest(name = "{0} fails: {2}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {$toInt: '$f'}                             | 241 | Failed to parse int from string
            {$toInt: '$l'}                             | 241 | value out of range
            {$toDate: 'yesterday'}                     | 241 | Failed to parse date from string
            {$toInt: [1, 2]}                           | 2   | Expression $toInt takes exactly 1 arguments
            {$convert: {input: 1, to: 'cat'}}          | 2   | Unknown type name
            {$year: '$s'}                              | 14  | can't convert from BSON type string to Date
            {$hour: {date: '$date', timezone: 'Mars/Base'}} | 2 | unrecognized time zone identifier
            {$dateToString: {format: '%Q', date: '$date'}} | 2 | Invalid format character '%Q'
            {$dateTrunc: {date: '$t', unit: 'fortnight'}} | 2 | cannot be recognized as a time unit: fortnight
            {$dateTrunc: {date: '$t', unit: 5}}      | 14  | $dateTrunc requires 'unit' to be a string, found: int
            """)
    void rejects(String expression, int code, String message) {
        Eval.fails(expression, DOC, code, message);
    }
}
