package dev.shardstore.engine.aggregate;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** $group with every accumulator, $count, $sortByCount, $bucket, $facet, $sample and $lookup. */
class GroupingStagesTest {
    private static final String SALES = """
            [{_id: 1, item: 'abc', price: {$numberDecimal: '10'}, quantity: 2, date: {$date: '2014-03-01T08:00:00Z'}},
             {_id: 2, item: 'jkl', price: 20, quantity: 1, date: {$date: '2014-03-01T09:00:00Z'}},
             {_id: 3, item: 'xyz', price: 5, quantity: 10, date: {$date: '2014-03-15T09:00:00Z'}},
             {_id: 4, item: 'xyz', price: 5.0, quantity: {$numberLong: '20'}, date: {$date: '2014-04-04T11:21:39Z'}},
             {_id: 5, item: 'abc', price: 10, quantity: 10, date: {$date: '2014-04-04T21:23:13Z'}},
             {_id: 6, item: null, price: 7.5, quantity: 'n/a', date: {$date: '2015-06-04T05:08:13Z'}},
             {_id: 7, price: 7.5, quantity: 5}]""";

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            [{$group: {_id: '$item', n: {$sum: 1}}}] | [{_id: null, n: 2}, {_id: 'abc', n: 2}, {_id: 'jkl', n: 1}, {_id: 'xyz', n: 2}]
            [{$group: {_id: null, q: {$sum: '$quantity'}, c: {$count: {}}}}] | [{_id: null, q: {$numberLong: '48'}, c: 7}]
            [{$group: {_id: '$price', ids: {$push: '$_id'}}}] | [{_id: 5, ids: [3, 4]}, {_id: 7.5, ids: [6, 7]}, {_id: {$numberDecimal: '10'}, ids: [1, 5]}, {_id: 20, ids: [2]}]
            [{$match: {item: 'abc'}}, {$group: {_id: '$item', total: {$sum: {$multiply: ['$price', '$quantity']}}}}] | [{_id: 'abc', total: {$numberDecimal: '120'}}]
            [{$group: {_id: {$dateToString: {format: '%Y-%m-%d', date: '$date'}}, avgQ: {$avg: '$quantity'}}}, {$match: {_id: {$ne: null}}}, {$sort: {_id: 1}}] | [{_id: '2014-03-01', avgQ: 1.5}, {_id: '2014-03-15', avgQ: 10.0}, {_id: '2014-04-04', avgQ: 15.0}, {_id: '2015-06-04', avgQ: null}]
            [{$group: {_id: {y: {$year: '$date'}, m: {$month: '$date'}}, n: {$sum: 1}}}, {$sort: {'_id.y': 1, '_id.m': 1}}] | [{_id: {y: null, m: null}, n: 1}, {_id: {y: 2014, m: 3}, n: 3}, {_id: {y: 2014, m: 4}, n: 2}, {_id: {y: 2015, m: 6}, n: 1}]
            [{$group: {_id: null, lo: {$min: '$item'}, hi: {$max: '$item'}, lq: {$min: '$quantity'}, hq: {$max: '$quantity'}}}] | [{_id: null, lo: 'abc', hi: 'xyz', lq: 1, hq: 'n/a'}]
            [{$sort: {_id: 1}}, {$group: {_id: '$item', f: {$first: '$quantity'}, l: {$last: '$date'}}}, {$project: {f: 1}}] | [{_id: null, f: 'n/a'}, {_id: 'abc', f: 2}, {_id: 'jkl', f: 1}, {_id: 'xyz', f: 10}]
            [{$group: {_id: null, s: {$addToSet: '$item'}, p: {$addToSet: '$price'}}}] | [{_id: null, s: [null, 'abc', 'jkl', 'xyz'], p: [5, 7.5, {$numberDecimal: '10'}, 20]}]
            [{$group: {_id: null, avgP: {$avg: '$price'}, none: {$avg: '$nope'}, zero: {$sum: '$nope'}}}] | [{_id: null, avgP: {$numberDecimal: '9.285714285714285714285714285714286'}, none: null, zero: 0}]
            [{$match: {quantity: {$gte: 5}}}, {$count: 'many'}] | [{many: 4}]
            [{$match: {quantity: {$gt: 100}}}, {$count: 'none'}] | []
            [{$sortByCount: '$item'}, {$limit: 1}] | [{_id: null, count: 2}]
            [{$match: {_id: {$lte: 5}}}, {$bucket: {groupBy: '$price', boundaries: [0, 10, 20], default: 'Other', output: {n: {$sum: 1}, items: {$push: '$item'}}}}] | [{_id: 0, n: 2, items: ['xyz', 'xyz']}, {_id: 10, n: 2, items: ['abc', 'abc']}, {_id: 'Other', n: 1, items: ['jkl']}]
            [{$bucket: {groupBy: '$quantity', boundaries: [0, 5, 50], default: 'x'}}] | [{_id: 0, count: 2}, {_id: 5, count: 4}, {_id: 'x', count: 1}]
            [{$facet: {byItem: [{$sortByCount: '$item'}, {$limit: 1}], total: [{$count: 'n'}], empty: [{$match: {_id: 99}}]}}] | [{byItem: [{_id: null, count: 2}], total: [{n: 7}], empty: []}]
            [{$sample: {size: 0}}] | []
            """)
    void aggregates(String pipeline, String expected) {
        Run.check(pipeline, SALES, expected);
    }

    @ParameterizedTest(name = "{0} fails: {2}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            [{$group: {n: {$sum: 1}}}]                 | 2   | a group specification must include an _id
            [{$group: {_id: null, n: 1}}]              | 2   | The field 'n' must be an accumulator object
            [{$group: {_id: null, n: {$median: 1}}}]   | 168 | unknown group operator '$median'
            [{$group: {_id: null, n: {$count: 1}}}]    | 2   | $count takes no arguments
            [{$count: '$x'}]                           | 2   | the count field must be a non-empty string
            [{$bucket: {groupBy: '$price', boundaries: [10, 0]}}] | 2 | must be sorted in ascending order
            [{$bucket: {groupBy: '$price', boundaries: [0, 10], default: 5}}] | 2 | 'default' field must be less than the lowest boundary
            [{$bucket: {groupBy: '$price', boundaries: [0, 10]}}] | 2 | could not find a matching branch
            [{$bucket: {groupBy: '$price', boundaries: [0, 10], default: 'x', output: 1}}] | 2 | The $bucket 'output' field must be an object
            [{$facet: {a: [{$facet: {b: []}}]}}]       | 2   | $facet is not allowed to be used within a $facet stage
            [{$sample: {size: -1}}]                    | 2   | $sample stage takes exactly one option
            [{$lookup: {from: 'x', localField: 'a', as: 'b'}}] | 2 | $lookup argument 'foreignField' must be a non-empty string
            [{$lookup: {from: 'x', pipeline: [], as: 'b'}}] | 238 | $lookup with 'pipeline' or 'let' is not supported
            """)
    void rejects(String pipeline, int code, String message) {
        Run.fails(pipeline, SALES, code, message);
    }

    @Test
    void sampleReturnsDistinctInputDocuments() {
        assertThat(Run.run("[{$sample: {size: 3}}]", SALES, Map.of())).hasSize(3).doesNotHaveDuplicates()
                .isSubsetOf(Run.docs(SALES));
        assertThat(Run.run("[{$sample: {size: 100}}]", SALES, Map.of())).hasSize(7);
    }

    @Test
    void lookupJoinsByEqualityIncludingArraysAndMissing() {
        String orders = "[{_id: 1, item: 'almonds', price: 12}, {_id: 2, item: 'pecans', price: 20}, {_id: 3},"
                + " {_id: 4, item: ['almonds', 'cashews']}]";
        String inventory = "[{_id: 1, sku: 'almonds', instock: 120}, {_id: 2, sku: 'bread', instock: 80},"
                + " {_id: 3, sku: ['cashews', 'pecans'], instock: 60}, {_id: 5, sku: null}, {_id: 6}]";

        assertThat(Run.run("[{$lookup: {from: 'inventory', localField: 'item', foreignField: 'sku', as: 'stock'}},"
                + " {$project: {ids: '$stock._id'}}]", orders, Map.of("inventory", inventory)))
                .containsExactlyElementsOf(Run.docs("[{_id: 1, ids: [1]}, {_id: 2, ids: [3]}, {_id: 3, ids: [5, 6]},"
                        + " {_id: 4, ids: [1, 3]}]"));
        assertThat(Run.run("[{$lookup: {from: 'nowhere', localField: 'item', foreignField: 'sku', as: 'x.y'}}, {$limit: 1}]",
                orders, Map.of()))
                .containsExactlyElementsOf(Run.docs("[{_id: 1, item: 'almonds', price: 12, x: {y: []}}]"));
    }
}
