package dev.shardstore.engine.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.util.List;
import java.util.Map;
import org.bson.BsonDocument;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code $type $size $elemMatch $all $mod} and {@code $regex} options. Collection cases are the examples of
 * MongoDB's operator pages ("$type", "$elemMatch (query)", "$all", "$mod", "$regex"), matched documents given
 * by {@code _id}; single-document cases pin arrays, null/missing and mixed types, and nested arrays: {@code $size}
 * and {@code $type} at numeric paths, {@code $elemMatch} over arrays of arrays in both forms and inside {@code $all}
 * (the cases of MongoDB's {@code jstests/core/query/elemmatch/elemmatch_value.js}, {@code arrayfind8.js},
 * {@code arrayfind9.js} and {@code match_numeric_components.js}).
 */
class ArrayAndTypeOperatorsTest {
    private static final Map<String, List<BsonDocument>> COLLECTIONS = Map.of(
            "addressBook", FilterTest.docs("""
                    {_id: 1, address: "2030 Martian Way", zipCode: "90698345"}
                    {_id: 2, address: "156 Lunar Place", zipCode: {$numberDouble: "43339374"}}
                    {_id: 3, address: "2324 Pluto Place", zipCode: {$numberLong: "3921412"}}
                    {_id: 4, address: "55 Saturn Ring", zipCode: {$numberInt: "88602117"}}
                    {_id: 5, address: "104 Venus Drive", zipCode: ["834847278", "1893289032"]}"""),
            "scores", FilterTest.docs("""
                    {_id: 1, results: [82, 85, 88]}
                    {_id: 2, results: [75, 88, 89]}"""),
            "survey", FilterTest.docs("""
                    {_id: 1, results: [{product: "abc", score: 10}, {product: "xyz", score: 5}]}
                    {_id: 2, results: [{product: "abc", score: 8}, {product: "xyz", score: 7}]}
                    {_id: 3, results: [{product: "abc", score: 7}, {product: "xyz", score: 8}]}
                    {_id: 4, results: [{product: "abc", score: 7}, {product: "def", score: 8}]}"""),
            "inventory", FilterTest.docs("""
                    {_id: 1, code: "xyz", tags: ["school", "book", "bag", "headphone", "appliance"], qty: [{size: "S", num: 10, color: "blue"}, {size: "M", num: 45, color: "blue"}, {size: "L", num: 100, color: "green"}]}
                    {_id: 2, code: "abc", tags: ["appliance", "school", "book"], qty: [{size: "6", num: 100, color: "green"}, {size: "6", num: 50, color: "blue"}, {size: "8", num: 100, color: "brown"}]}
                    {_id: 3, code: "efg", tags: ["school", "book"], qty: [{size: "S", num: 10, color: "blue"}, {size: "M", num: 100, color: "blue"}, {size: "L", num: 100, color: "green"}]}
                    {_id: 4, code: "ijk", tags: ["electronics", "school"], qty: [{size: "M", num: 100, color: "green"}]}"""),
            "mod", FilterTest.docs("""
                    {_id: 1, item: "abc123", qty: 0}
                    {_id: 2, item: "xyz123", qty: 5}
                    {_id: 3, item: "ijk123", qty: 12}"""),
            "products", FilterTest.docs("""
                    {_id: 100, sku: "abc123", description: "Single line description."}
                    {_id: 101, sku: "abc789", description: "First line\\nSecond line"}
                    {_id: 102, sku: "xyz456", description: "Many spaces before     line"}
                    {_id: 103, sku: "xyz789", description: "Multiple\\nline description"}"""));

    @ParameterizedTest(name = "{0}: {1} -> {2}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            addressBook | {zipCode: {$type: 2}}                                    | 1 5
            addressBook | {zipCode: {$type: "string"}}                             | 1 5
            addressBook | {zipCode: {$type: 1}}                                    | 2
            addressBook | {zipCode: {$type: "double"}}                             | 2
            addressBook | {zipCode: {$type: "number"}}                             | 2 3 4
            addressBook | {zipCode: {$type: ["long", "int"]}}                      | 3 4
            addressBook | {zipCode: {$type: [18, "string"]}}                       | 1 3 5
            addressBook | {zipCode: {$type: "array"}}                              | 5
            addressBook | {zipCode: {$type: 4}}                                    | 5
            addressBook | {nothing: {$type: "null"}}                               |
            scores      | {results: {$elemMatch: {$gte: 80, $lt: 85}}}             | 1
            survey      | {results: {$elemMatch: {product: "xyz", score: {$gte: 8}}}} | 3
            survey      | {results: {$elemMatch: {product: "xyz"}}}                | 1 2 3
            survey      | {"results.product": "xyz"}                               | 1 2 3
            survey      | {results: {$elemMatch: {product: {$ne: "xyz"}}}}         | 1 2 3 4
            survey      | {"results.product": {$ne: "xyz"}}                        | 4
            survey      | {results: {$elemMatch: {$or: [{score: 10}, {score: 7, product: "xyz"}]}}} | 1 2
            inventory   | {tags: {$all: ["appliance", "school", "book"]}}          | 1 2
            inventory   | {$and: [{tags: "appliance"}, {tags: "school"}, {tags: "book"}]} | 1 2
            inventory   | {qty: {$all: [{$elemMatch: {size: "M", num: {$gt: 50}}}, {$elemMatch: {num: 100, color: "green"}}]}} | 3 4
            inventory   | {"qty.num": {$all: [50]}}                                | 2
            inventory   | {"qty.num": 50}                                          | 2
            inventory   | {tags: {$all: []}}                                       |
            inventory   | {tags: {$size: 2}}                                       | 3 4
            inventory   | {qty: {$size: 1}}                                        | 4
            mod         | {qty: {$mod: [4, 0]}}                                    | 1 3
            mod         | {qty: {$mod: [4.0, 0]}}                                  | 1 3
            mod         | {qty: {$mod: [4.5, 0]}}                                  | 1 3
            mod         | {qty: {$mod: [4.99, 0]}}                                 | 1 3
            mod         | {qty: {$mod: [-4, -0]}}                                  | 1 3
            products    | {sku: {$regex: "789$"}}                                  | 101 103
            products    | {sku: {$regex: "^ABC", $options: "i"}}                   | 100 101
            products    | {description: {$regex: "^S", $options: "m"}}             | 100 101
            products    | {description: {$regex: "^S"}}                            | 100
            products    | {description: {$regex: "m.*line", $options: "si"}}       | 102 103
            products    | {description: {$regex: "m.*line", $options: "i"}}        | 102
            products    | {sku: {$regex: "abc #category code\\n123 #item number", $options: "x"}} | 100
            products    | {sku: {$regex: "a b c 1 2 3", $options: "x"}}            | 100
            """)
    void matchesTheManualsExamples(String collection, String filter, String expectedIds) {
        Filter parsed = Filter.parse(BsonDocument.parse(filter));
        List<String> matched = COLLECTIONS.get(collection).stream().filter(parsed::matches)
                .map(d -> Integer.toString(d.get("_id").asNumber().intValue()))
                .toList();
        assertThat(matched).containsExactlyElementsOf(expectedIds == null ? List.of() : List.of(expectedIds.split(" ")));
    }

    @ParameterizedTest(name = "{0} on {1} -> {2}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {a: {$type: "null"}}                  | {a: null}                      | true
            {a: {$type: "null"}}                  | {b: 1}                         | false
            {a: {$type: "null"}}                  | {a: [1, null]}                 | true
            {a: {$type: "array"}}                 | {a: []}                        | true
            {a: {$type: "array"}}                 | {a: [[1]]}                     | true
            {a: {$type: "object"}}                | {a: [{b: 1}]}                  | true
            {a: {$type: "decimal"}}               | {a: {$numberDecimal: "1"}}     | true
            {a: {$type: -1}}                      | {a: {$minKey: 1}}              | true
            {a: {$type: 127}}                     | {a: {$maxKey: 1}}              | true
            {a: {$type: "minKey"}}                | {a: {$maxKey: 1}}              | false
            {a: {$type: "bool"}}                  | {a: false}                     | true
            {a: {$type: "date"}}                  | {a: {$date: "2020-01-01T00:00:00Z"}} | true
            {a: {$type: "objectId"}}              | {a: {$oid: "5234cc89687ea597eabee675"}} | true
            {"a.b": {$type: "int"}}               | {a: [{b: "x"}, {b: 1}]}        | true
            {a: {$size: 0}}                       | {a: []}                        | true
            {a: {$size: 0}}                       | {b: 1}                         | false
            {a: {$size: 1}}                       | {a: "x"}                       | false
            {a: {$size: 2}}                       | {a: [[1, 2]]}                  | false
            {a: {$size: 2.0}}                     | {a: [1, [2, 3]]}               | true
            {"a.b": {$size: 2}}                   | {a: [{b: [1]}, {b: [1, 2]}]}   | true
            {a: {$not: {$size: 1}}}               | {b: 1}                         | true
            {a: {$elemMatch: {$gt: 1}}}           | {a: 5}                         | false
            {a: {$elemMatch: {$gt: 1}}}           | {b: 5}                         | false
            {a: {$elemMatch: {$gt: 1, $lt: 3}}}   | {a: [0, 4]}                    | false
            {a: {$gt: 1, $lt: 3}}                 | {a: [0, 4]}                    | true
            {a: {$elemMatch: {$eq: null}}}        | {a: [1, null]}                 | true
            {a: {$elemMatch: {$type: "string"}}}  | {a: [1, "x"]}                  | true
            {a: {$elemMatch: {b: null}}}          | {a: [{c: 1}]}                  | true
            {a: {$elemMatch: {b: 1}}}             | {a: [1, {b: 1}]}               | true
            {a: {$elemMatch: {b: 1}}}             | {a: {b: 1}}                    | false
            {a: {$elemMatch: {}}}                 | {a: [1, {b: 1}]}               | true
            {a: {$elemMatch: {}}}                 | {a: [1, 2]}                    | false
            {"a.b": {$elemMatch: {c: 1}}}         | {a: [{b: [{c: 2}]}, {b: [{c: 1}]}]} | true
            {a: {$elemMatch: {b: {$elemMatch: {$gt: 5}}}}} | {a: [{b: [1, 6]}]}     | true
            {a: {$all: [1, 2]}}                   | {a: [2, 3, 1]}                 | true
            {a: {$all: [1, 2]}}                   | {a: [2, 3]}                    | false
            {a: {$all: [1]}}                      | {a: 1}                         | true
            {a: {$all: [[1, 2]]}}                 | {a: [[1, 2], 3]}               | true
            {a: {$all: [[1, 2]]}}                 | {a: [1, 2]}                    | true
            {a: {$all: [null]}}                   | {b: 1}                         | true
            {a: {$all: [{$regularExpression: {pattern: "^x", options: ""}}, "yz"]}} | {a: ["xa", "yz"]} | true
            {a: {$mod: [2, 1]}}                   | {a: [2, 3]}                    | true
            {a: {$mod: [2, 1]}}                   | {a: "3"}                       | false
            {a: {$mod: [2, 1]}}                   | {b: 1}                         | false
            {a: {$mod: [2, 1]}}                   | {a: 3.9}                       | true
            {a: {$mod: [2, -1]}}                  | {a: -3}                        | true
            {a: {$mod: [2, 1]}}                   | {a: {$numberDecimal: "5.5"}}   | true
            {a: {$mod: [2, 1]}}                   | {a: {$numberDouble: "NaN"}}    | false
            {a: {$mod: [3, 0]}}                   | {a: {$numberLong: "9000000000"}} | true
            {a: {$regex: "^a.c$", $options: "s"}} | {a: "a\\nc"}                   | true
            {a: {$regex: "^a.c$"}}                | {a: "a\\nc"}                   | false
            {"a.0": {$size: 2}}                   | {a: [[1, 2], [3]]}             | true
            {"a.1": {$size: 2}}                   | {a: [[1, 2], [3]]}             | false
            {"a.0": {$size: 1}}                   | {a: [{"0": [5]}]}              | true
            {"a.0.0": {$size: 1}}                 | {a: [[[1], 2]]}                | true
            {"a.0": {$type: "array"}}             | {a: [[1, 2], [3]]}             | true
            {"a.0": {$type: "number"}}            | {a: [[42]]}                    | false
            {"a.0": {$type: "number"}}            | {a: {"0": [42]}}               | true
            {"a.0": {$all: [1]}}                  | {a: [[1, 2]]}                  | false
            {"a.0": {$all: [[1, 2]]}}             | {a: [[1, 2]]}                  | true
            {a: {$elemMatch: {$gt: 3}}}           | {a: [[1, 2], [3, 4]]}          | false
            {a: {$elemMatch: {$elemMatch: {$gt: 3}}}} | {a: [[1, 2], [3, 4]]}          | true
            {a: {$elemMatch: {$elemMatch: {$gt: 4}}}} | {a: [[1, 2], [3, 4]]}          | false
            {a: {$elemMatch: {$elemMatch: {$gt: 1}}}} | {a: [[[1, 2]]]}                | false
            {a: {$elemMatch: {$size: 2}}}         | {a: [[1, 2], [3]]}             | true
            {a: {$elemMatch: {$size: 2}}}         | {a: [1, 2]}                    | false
            {a: {$elemMatch: {$in: [[1, 2]]}}}    | {a: [[1, 2], [3]]}             | true
            {a: {$elemMatch: {$in: [1]}}}         | {a: [[1, 2], [3]]}             | false
            {a: {$elemMatch: {$in: [[]]}}}        | {a: [[]]}                      | true
            {a: {$elemMatch: {$eq: [1, 2]}}}      | {a: [[1, 2], [3]]}             | true
            {a: {$elemMatch: {$eq: [1, 2]}}}      | {a: [[[1, 2]]]}                | false
            {a: {$elemMatch: {$eq: [1, 2]}}}      | {a: [1, 2]}                    | false
            {a: {$elemMatch: {$type: "number"}}}  | {a: [[5]]}                     | false
            {a: {$elemMatch: {$type: "array"}}}   | {a: [[5]]}                     | true
            {a: {$elemMatch: {$ne: 1}}}           | {a: [[1, 2]]}                  | true
            {a: {$elemMatch: {$nin: [1]}}}        | {a: [[1, 2]]}                  | true
            {a: {$elemMatch: {$not: {$gt: 3}}}}   | {a: [[4]]}                     | true
            {a: {$elemMatch: {$not: {$ne: 1}}}}   | {a: [1]}                       | true
            {a: {$elemMatch: {$all: [1]}}}        | {a: [[1, 2]]}                  | false
            {a: {$elemMatch: {$gt: 1, $lt: 3}}}   | {a: [[0, 4]]}                  | false
            {a: {$elemMatch: {"0": "x"}}}         | {a: [["x"]]}                   | true
            {a: {$elemMatch: {"0": 1, "1": {$gt: 1}}}} | {a: [[1], [1, 2]]}             | true
            {a: {$elemMatch: {"1": {$exists: true}}}} | {a: [[1]]}                     | false
            {a: {$elemMatch: {$and: [{"0": 1}]}}} | {a: [[1, 2]]}                  | true
            {a: {$elemMatch: {b: 1}}}             | {a: [[{b: 1}]]}                | false
            {a: {$elemMatch: {$elemMatch: {b: 1}}}} | {a: [[{b: 1}]]}                | true
            {a: {$elemMatch: {$elemMatch: {b: {$gt: 4, $lt: 6}}}}} | {a: [[{b: [3, 7]}]]}           | true
            {"a.0": {$elemMatch: {$gt: 1}}}       | {a: [[1, 2]]}                  | true
            {"a.0": {$elemMatch: {$gt: 1}}}       | {a: [[[1, 2]]]}                | false
            {"a.b": {$elemMatch: {$gt: 4, $lt: 6}}} | {a: [[{b: [5]}]]}              | false
            {a: {$all: [{$elemMatch: {$gt: 3}}]}} | {a: [[1, 2], [3, 4]]}          | false
            {a: {$all: [{$elemMatch: {$elemMatch: {$gt: 3}}}]}} | {a: [[1, 2], [3, 4]]}          | true
            {"a.0": {$all: [{$elemMatch: {"0": 42}}]}} | {a: [[[42]]]}                  | true
            {"a.0": {$all: [{$elemMatch: {"0": 42}}]}} | {a: {"0": [[42]]}}             | true
            {"a.0": {$all: [{$elemMatch: {"0": 42}}]}} | {a: [[{"0": [42]}]]}           | true
            {"a.0": {$all: [{$elemMatch: {"0": 42}}]}} | {a: [[42]]}                    | false
            {"a.0": {$all: [{$elemMatch: {"0": 42}}]}} | {a: [{"0": [42]}]}             | false
            {"a.0": {$all: [{$elemMatch: {"0": 42}}]}} | {a: [[[{"0": 42}]]]}           | false
            {a: {$regex: "a # comment", $options: "x"}} | {a: "bab"}              | true
            """)
    void matchesSingleDocuments(String filter, String doc, boolean expected) {
        assertThat(Filter.parse(BsonDocument.parse(filter)).matches(BsonDocument.parse(doc))).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0} -> {1} {2}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {a: {$type: "foo"}}                   | BadValue      | Unknown type name alias: foo
            {a: {$type: "missing"}}               | BadValue      | Unknown type name alias: missing
            {a: {$type: 100}}                     | BadValue      | Invalid numerical type code
            {a: {$type: 1.5}}                     | BadValue      | Invalid numerical type code
            {a: {$type: []}}                      | BadValue      | $type must match at least one type
            {a: {$type: true}}                    | TypeMismatch  | type must be represented as a number or a string
            {a: {$size: "2"}}                     | BadValue      | $size needs a number
            {a: {$size: 1.5}}                     | BadValue      | $size must be a whole number
            {a: {$size: -1}}                      | BadValue      | $size may not be negative
            {a: {$elemMatch: 1}}                  | BadValue      | $elemMatch needs an Object
            {a: {$elemMatch: {$foo: 1}}}          | BadValue      | unknown operator: $foo
            {a: {$all: 1}}                        | BadValue      | $all needs an array
            {a: {$all: [{$elemMatch: {b: 1}}, 2]}} | BadValue     | $all/$elemMatch has to be consistent
            {a: {$all: [{$gt: 1}]}}               | BadValue      | no $ expressions in $all
            {a: {$mod: 4}}                        | BadValue      | malformed mod, needs to be an array
            {a: {$mod: []}}                       | BadValue      | malformed mod, not enough elements
            {a: {$mod: [4]}}                      | BadValue      | malformed mod, not enough elements
            {a: {$mod: [4, 1, 2]}}                | BadValue      | malformed mod, too many elements
            {a: {$mod: ["4", 1]}}                 | BadValue      | malformed mod, divisor not a number
            {a: {$mod: [4, "1"]}}                 | BadValue      | malformed mod, remainder not a number
            {a: {$mod: [0, 1]}}                   | BadValue      | divisor cannot be 0
            {a: {$mod: [{$numberDouble: "NaN"}, 1]}} | BadValue   | malformed mod, divisor value is invalid
            {a: {$regex: "a", $options: "u"}}     | BadValue      | invalid flag in regex options: u
            {a: {$bogus: 1}}                      | BadValue      | unknown operator: $bogus
            """)
    void rejectsMalformedOperators(String filter, ErrorCode code, String message) {
        assertThatThrownBy(() -> Filter.parse(BsonDocument.parse(filter)))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(code))
                .hasMessageContaining(message);
    }
}
