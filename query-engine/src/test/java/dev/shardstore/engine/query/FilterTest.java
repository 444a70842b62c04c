package dev.shardstore.engine.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Filter semantics. Collection cases are the examples of MongoDB's manual pages "Query on Embedded/Nested
 * Documents", "Query an Array", "Query an Array of Embedded Documents" and "Query for Null or Missing
 * Fields", and of the operator pages; single-document cases pin the matcher's corner rules, among them numeric
 * path components over nested arrays and documents with fields named {@code "0"} (the cases of MongoDB's
 * {@code jstests/core/match_numeric_components.js} and {@code array_match2.js}).
 */
class FilterTest {
    private static final List<BsonDocument> NESTED = docs("""
            {item: "journal", qty: 25, size: {h: 14, w: 21, uom: "cm"}, status: "A"}
            {item: "notebook", qty: 50, size: {h: 8.5, w: 11, uom: "in"}, status: "A"}
            {item: "paper", qty: 100, size: {h: 8.5, w: 11, uom: "in"}, status: "D"}
            {item: "planner", qty: 75, size: {h: 22.85, w: 30, uom: "cm"}, status: "D"}
            {item: "postcard", qty: 45, size: {h: 10, w: 15.25, uom: "cm"}, status: "A"}""");

    private static final List<BsonDocument> ARRAYS = docs("""
            {item: "journal", qty: 25, tags: ["blank", "red"], dim_cm: [14, 21]}
            {item: "notebook", qty: 50, tags: ["red", "blank"], dim_cm: [14, 21]}
            {item: "paper", qty: 100, tags: ["red", "blank", "plain"], dim_cm: [14, 21]}
            {item: "planner", qty: 75, tags: ["blank", "red"], dim_cm: [22.85, 30]}
            {item: "postcard", qty: 45, tags: ["blue"], dim_cm: [10, 15.25]}""");

    private static final List<BsonDocument> INSTOCK = docs("""
            {item: "journal", instock: [{warehouse: "A", qty: 5}, {warehouse: "C", qty: 15}]}
            {item: "notebook", instock: [{warehouse: "C", qty: 5}]}
            {item: "paper", instock: [{warehouse: "A", qty: 60}, {warehouse: "B", qty: 15}]}
            {item: "planner", instock: [{warehouse: "A", qty: 40}, {warehouse: "B", qty: 5}]}
            {item: "postcard", instock: [{warehouse: "B", qty: 15}, {warehouse: "C", qty: 35}]}""");

    private static final List<BsonDocument> NULLS = docs("""
            {item: "null", _id: 1, value: null}
            {item: "missing", _id: 2}""");

    /** The operator pages' "inventory" with mixed and missing fields. */
    private static final List<BsonDocument> OPERATORS = docs("""
            {item: "a", qty: 5, price: 1.99, sale: true, tags: ["school", "home"]}
            {item: "b", qty: 15, price: 3.99, sale: false}
            {item: "c", qty: 20, price: "cheap"}
            {item: "d", qty: 25, sale: true}
            {item: "e", price: 10, tags: ["home"]}""");

    @ParameterizedTest(name = "{0}: {1} -> {2}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            NESTED   | {size: {h: 14, w: 21, uom: "cm"}}                    | journal
            NESTED   | {size: {w: 21, h: 14, uom: "cm"}}                    |
            NESTED   | {"size.uom": "in"}                                    | notebook paper
            NESTED   | {"size.h": {$lt: 15}}                                 | journal notebook paper postcard
            NESTED   | {"size.h": {$lt: 15}, "size.uom": "in", status: "D"}  | paper
            NESTED   | {status: "A", qty: {$lt: 30}}                         | journal
            NESTED   | {$or: [{status: "A"}, {qty: {$lt: 30}}]}              | journal notebook postcard
            NESTED   | {status: "A", $or: [{qty: {$lt: 30}}, {item: "postcard"}]} | journal postcard
            NESTED   | {status: {$in: ["A", "D"]}}                           | journal notebook paper planner postcard
            ARRAYS   | {tags: ["red", "blank"]}                              | notebook
            ARRAYS   | {tags: "red"}                                         | journal notebook paper planner
            ARRAYS   | {dim_cm: {$gt: 25}}                                   | planner
            ARRAYS   | {dim_cm: {$gt: 15, $lt: 20}}                          | journal notebook paper postcard
            ARRAYS   | {"dim_cm.1": {$gt: 25}}                               | planner
            ARRAYS   | {tags: {$in: ["plain", "blue"]}}                      | paper postcard
            ARRAYS   | {tags: {$nin: ["red"]}}                               | postcard
            ARRAYS   | {tags: {$ne: "red"}}                                  | postcard
            INSTOCK  | {instock: {warehouse: "A", qty: 5}}                   | journal
            INSTOCK  | {instock: {qty: 5, warehouse: "A"}}                   |
            INSTOCK  | {"instock.qty": {$lte: 20}}                           | journal notebook paper planner postcard
            INSTOCK  | {"instock.0.qty": {$lte: 20}}                         | journal notebook postcard
            INSTOCK  | {"instock.qty": {$gt: 10, $lte: 20}}                  | journal paper planner postcard
            INSTOCK  | {"instock.qty": 5, "instock.warehouse": "A"}          | journal planner
            INSTOCK  | {"instock.warehouse": {$not: {$in: ["A", "B"]}}}      | notebook
            NULLS    | {value: null}                                         | null missing
            NULLS    | {value: {$eq: null}}                                  | null missing
            NULLS    | {value: {$exists: false}}                             | missing
            NULLS    | {value: {$exists: true}}                              | null
            NULLS    | {value: {$ne: null}}                                  |
            NULLS    | {value: {$gte: null}}                                 | null missing
            NULLS    | {value: {$lte: null}}                                 | null missing
            NULLS    | {value: {$gt: null}}                                  |
            NULLS    | {value: {$in: [null, 5]}}                             | null missing
            NULLS    | {value: {$nin: [null]}}                               |
            OPERATORS | {qty: {$in: [5, 15]}}                                | a b
            OPERATORS | {qty: {$nin: [5, 15]}}                               | c d e
            OPERATORS | {qty: {$exists: true, $nin: [5, 15]}}                | c d
            OPERATORS | {price: {$not: {$gt: 1.99}}}                         | a c d
            OPERATORS | {price: {$lte: 1.99}}                                | a
            OPERATORS | {price: {$gt: 1}}                                    | a b e
            OPERATORS | {price: {$gte: "a"}}                                 | c
            OPERATORS | {$nor: [{price: 1.99}, {sale: true}]}                | b c e
            OPERATORS | {$nor: [{price: 1.99}, {qty: {$lt: 20}}, {sale: true}]} | c e
            OPERATORS | {$or: [{qty: {$lt: 10}}, {price: 10}]}               | a e
            OPERATORS | {$and: [{qty: {$ne: 5}}, {qty: {$exists: true}}]}    | b c d
            OPERATORS | {sale: {$ne: true}}                                  | b c e
            OPERATORS | {tags: {$in: [{$regularExpression: {pattern: "^h", options: ""}}]}} | a e
            OPERATORS | {item: {$regex: "^[A-C]$", $options: "i"}}           | a b c
            OPERATORS | {item: {$not: {$regularExpression: {pattern: "[a-c]", options: ""}}}} | d e
            OPERATORS | {$comment: "only a comment"}                         | a b c d e
            """)
    void matchesTheManualsExamples(String collection, String filter, String expectedItems) {
        List<BsonDocument> docs = switch (collection) {
            case "NESTED" -> NESTED;
            case "ARRAYS" -> ARRAYS;
            case "INSTOCK" -> INSTOCK;
            case "NULLS" -> NULLS;
            default -> OPERATORS;
        };
        Filter parsed = Filter.parse(BsonDocument.parse(filter));
        List<String> matched = docs.stream().filter(parsed::matches).map(d -> d.getString("item").getValue()).toList();
        assertThat(matched).containsExactlyElementsOf(expectedItems == null ? List.of() : List.of(expectedItems.split(" ")));
    }

    @ParameterizedTest(name = "{0} on {1} -> {2}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {a: 5}                          | {a: [1, 5]}                            | true
            {a: [1, 5]}                     | {a: [1, 5]}                            | true
            {a: [1, 5]}                     | {a: [[1, 5], 2]}                       | true
            {a: [1, 5]}                     | {a: [5, 1]}                            | false
            {a: 1}                          | {a: [[1, 5]]}                          | false
            {a: 1}                          | {a: 1.0}                               | true
            {a: 1}                          | {a: {$numberLong: "1"}}                | true
            {a: 1}                          | {a: {$numberDecimal: "1.00"}}          | true
            {a: 1}                          | {a: "1"}                               | false
            {a: 1}                          | {a: true}                              | false
            {"a.b": 1}                      | {a: [{b: 1}]}                          | true
            {"a.b": 1}                      | {a: [{b: [0, 1]}]}                     | true
            {"a.b": 1}                      | {a: [[{b: 1}]]}                        | false
            {"a.b.c": 1}                    | {a: [{b: [{c: 1}]}]}                   | true
            {"a.0": 1}                      | {a: [1, 2]}                            | true
            {"a.0": 1}                      | {a: [{"0": 1}]}                        | true
            {"a.1": 1}                      | {a: [{"1": 1}]}                        | true
            {"a.0": 1}                      | {a: {"0": 1}}                          | true
            {"a.0.b": 1}                    | {a: [{b: 1}]}                          | true
            {"a.0.b": 1}                    | {a: [{"0": {b: 1}}]}                   | true
            {"a.0.0": 1}                    | {a: [[1]]}                             | true
            {"a.00": 1}                     | {a: [1]}                               | false
            {"a.b": null}                   | {a: [{b: 1}, {c: 1}]}                  | true
            {"a.b": null}                   | {a: [1, 2]}                            | false
            {"a.b": null}                   | {a: []}                                | false
            {"a.b": null}                   | {a: 5}                                 | true
            {"a.b": {$exists: false}}       | {a: [1, 2]}                            | true
            {a: null}                       | {a: [1, null]}                         | true
            {a: null}                       | {a: []}                                | false
            {a: []}                         | {a: []}                                | true
            {a: []}                         | {a: [[]]}                              | true
            {a: {$exists: true}}            | {a: []}                                | true
            {a: {$gt: 1}}                   | {a: "z"}                               | false
            {a: {$lt: "z"}}                 | {a: 1}                                 | false
            {a: {$gt: {$minKey: 1}}}        | {a: "z"}                               | true
            {a: {$gt: {$minKey: 1}}}        | {b: 1}                                 | true
            {a: {$lt: {$maxKey: 1}}}        | {a: [1]}                               | true
            {a: {$gt: {$maxKey: 1}}}        | {a: 1}                                 | false
            {a: {$gte: {$minKey: 1}}}       | {a: {$minKey: 1}}                      | true
            {a: {$gt: [1]}}                 | {a: [2]}                               | true
            {a: {$gt: [1]}}                 | {a: [[2]]}                             | true
            {a: {$gt: {b: 1}}}              | {a: {b: 2}}                            | true
            {a: {$gt: {b: 1}}}              | {a: 2}                                 | false
            {a: {$lt: 2}}                   | {a: {$numberDecimal: "1.5"}}           | true
            {a: {$gte: {$numberDouble: "NaN"}}} | {a: {$numberDouble: "NaN"}}        | true
            {a: {$lt: 1}}                   | {a: {$numberDouble: "NaN"}}            | false
            {a: {$gt: 1}}                   | {a: {$numberDouble: "NaN"}}            | false
            {a: {$numberDouble: "NaN"}}     | {a: {$numberDouble: "NaN"}}            | true
            {a: {$ne: 5}}                   | {a: [1, 5]}                            | false
            {a: {$ne: 5}}                   | {b: 5}                                 | true
            {a: {$nin: [1, 2]}}             | {a: [3, 2]}                            | false
            {a: {$in: [[1, 2]]}}            | {a: [1, 2]}                            | true
            {a: {$in: []}}                  | {a: 1}                                 | false
            {a: {$nin: []}}                 | {a: 1}                                 | true
            {a: {$not: {$gt: 2, $lt: 5}}}   | {a: 3}                                 | false
            {a: {$not: {$gt: 2, $lt: 5}}}   | {a: 6}                                 | true
            {a: {b: 1}}                     | {a: {b: 1, c: 2}}                      | false
            {a: {b: 1}}                     | {a: [{b: 1}]}                          | true
            {a: {$eq: {b: 1}}}              | {a: {b: 1}}                            | true
            {a: {$exists: 0}}               | {b: 1}                                 | true
            {a: {$exists: 1}}               | {b: 1}                                 | false
            {a: {$regularExpression: {pattern: "^ab", options: "i"}}} | {a: "ABc"}   | true
            {a: {$regularExpression: {pattern: "^ab", options: ""}}}  | {a: ["x", "abc"]} | true
            {a: {$regularExpression: {pattern: "ab", options: ""}}}   | {a: 1}       | false
            {a: {$regex: {$regularExpression: {pattern: "b", options: ""}}, $options: "i"}} | {a: "B"} | true
            {"a.0": 1}                      | {a: [[1, 2], [3]]}                     | false
            {"a.0": [1, 2]}                 | {a: [[1, 2], [3]]}                     | true
            {"a.1": [3]}                    | {a: [[1, 2], [3]]}                     | true
            {"a.0.0": 1}                    | {a: [[1, 2], [3]]}                     | true
            {"a.1.0": 3}                    | {a: [[1, 2], [3]]}                     | true
            {"a.0.1": 1}                    | {a: [[1, 2], [3]]}                     | false
            {"a.0": {$gt: 0}}               | {a: [[1, 2], [3]]}                     | false
            {"a.0": {$in: [1, 3]}}          | {a: [[1, 2], [3]]}                     | false
            {"a.0": {$ne: 1}}               | {a: [[1, 2], [3]]}                     | true
            {"a.0": {$nin: [1]}}            | {a: [[1, 2], [3]]}                     | true
            {"a.0": 42}                     | {a: {"0": [42]}}                       | true
            {"a.0": 42}                     | {a: [{"0": [42]}]}                     | true
            {"a.0.0": 42}                   | {a: [[{"0": 42}]]}                     | true
            {"a.0.0": 42}                   | {a: [[{"0": [42]}]]}                   | true
            {"a.0.0": 42}                   | {a: [[[42]]]}                          | false
            {"a.0.0": 42}                   | {a: [[[{"0": 42}]]]}                   | false
            {"a.0.0": 42}                   | {a: [{"0": [[42]]}]}                   | false
            {"a.0": 5}                      | {a: [{"0": 5}, [6]]}                   | true
            {"a.0": {"0": 5}}               | {a: [{"0": 5}, [6]]}                   | true
            {"a.1": 6}                      | {a: [{"0": 5}, [6]]}                   | false
            {"a.1": [6]}                    | {a: [{"0": 5}, [6]]}                   | true
            {"a.1.0": 6}                    | {a: [{"0": 5}, [6]]}                   | true
            {"a.1": null}                   | {a: [{"0": 5}, [6]]}                   | true
            {"a.1": {$exists: false}}       | {a: [{"0": 5}, [6]]}                   | false
            {"a.0.b": 1}                    | {a: [[{b: 1}]]}                        | true
            {"a.0.b": 1}                    | {a: [[{b: 0}], {b: 1}]}                | false
            {"a.0.b": null}                 | {a: [[{b: 0}], {b: 1}]}                | true
            {"a.0.b": null}                 | {a: [[1]]}                             | false
            {"a.0": null}                   | {a: [[1]]}                             | false
            {"a.0": null}                   | {a: []}                                | false
            {"a.0": {$exists: false}}       | {a: []}                                | true
            {"a.0": {$exists: false}}       | {a: [[]]}                              | false
            {"a.0.0": {$exists: false}}     | {a: [[]]}                              | true
            {"a.0.0": null}                 | {a: [[]]}                              | false
            {"a.1": {$exists: true}}        | {a: [{"1": 4}, {}]}                    | true
            {"a.1.foo": 5}                  | {a: [{"1": {foo: 4}}, {foo: 5}]}       | true
            {"": 1}                         | {"": 1}                                | true
            {a: 1, b: 2}                    | {a: 1, b: 3}                           | false
            """)
    void matchesSingleDocuments(String filter, String doc, boolean expected) {
        assertThat(Filter.parse(BsonDocument.parse(filter)).matches(BsonDocument.parse(doc))).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {a: {$foo: 1}}                  | unknown operator: $foo
            {a: {$gt: 1, b: 2}}             | unknown operator: b
            {$foo: [{a: 1}]}                | unknown top level operator: $foo
            {a: {$in: 5}}                   | $in needs an array
            {a: {$nin: {b: 1}}}             | $nin needs an array
            {a: {$in: [{$gt: 1}]}}          | cannot nest $ under $in
            {a: {$in: [{$undefined: true}]}}| $in cannot contain undefined
            {a: {$undefined: true}}         | cannot compare to undefined
            {a: {$lt: {$undefined: true}}}  | cannot compare to undefined
            {$and: []}                      | $and must be a nonempty array
            {$or: {a: 1}}                   | $or must be a nonempty array
            {$nor: [1]}                     | $nor argument's entries must be objects
            {a: {$not: 5}}                  | $not needs a regex or a document
            {a: {$not: {}}}                 | $not cannot be empty
            {a: {$not: {b: 1}}}             | unknown operator: b
            {a: {$options: "i"}}            | $options needs a $regex
            {a: {$regex: 5}}                | $regex has to be a string
            {a: {$regex: "(", $options: ""}}| Regular expression is invalid
            {a: {$regex: "a", $options: "q"}}| invalid flag in regex options: q
            {a: {$and: [{b: 1}]}}           | unknown operator: $and
            {$or: [{a: {$bad: 1}}]}         | unknown operator: $bad
            """)
    void rejectsMalformedFiltersWithBadValue(String filter, String message) {
        assertThatThrownBy(() -> Filter.parse(BsonDocument.parse(filter)))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.BadValue))
                .hasMessageContaining(message);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {a: 1, b: "x"}                                    | {a: 1, b: "x"}
            {"a.b": 1, c: {$eq: 2}}                           | {"a.b": 1, c: 2}
            {_id: 7, $and: [{x: 1}, {y: {$eq: 2, $gt: 0}}]}   | {_id: 7, x: 1, y: 2}
            {a: {$gt: 1}, $or: [{b: 1}], c: {$ne: 1}}         | {}
            {a: {$in: [1]}, b: {$not: {$eq: 1}}}              | {}
            {a: {$regularExpression: {pattern: "x", options: ""}}} | {}
            {a: 1, $and: [{a: 2}]}                            | {a: 1}
            {a: {b: 1}}                                       | {a: {b: 1}}
            """)
    void collectsAndedEqualitiesInFilterOrder(String filter, String expected) {
        BsonDocument equalities = new BsonDocument();
        Filter.parse(BsonDocument.parse(filter)).equalities().forEach(equalities::append);
        assertThat(equalities.toJson()).isEqualTo(BsonDocument.parse(expected).toJson());
    }

    @Test
    void matchAllIsTheEmptyFilter() {
        assertThat(Filter.matchAll().isMatchAll()).isTrue();
        assertThat(Filter.matchAll().matches(new BsonDocument("a", new BsonInt32(1)))).isTrue();
        assertThat(Filter.parse(null).isMatchAll()).isTrue();
        assertThat(Filter.parse(BsonDocument.parse("{$comment: 'x'}")).isMatchAll()).isTrue();
        assertThat(Filter.parse(BsonDocument.parse("{a: 1}")).isMatchAll()).isFalse();
    }

    @Test
    void doesNotDependOnTheParsedDocumentAfterwards() {
        BsonDocument spec = BsonDocument.parse("{a: {$in: [1, 2]}, b: {c: 1}}");
        Filter filter = Filter.parse(spec);
        spec.getDocument("b").put("c", new BsonString("changed"));
        spec.getDocument("a").getArray("$in").clear();
        assertThat(filter.matches(BsonDocument.parse("{a: 2, b: {c: 1}}"))).isTrue();
        assertThat(filter.equalities()).containsEntry("b", BsonDocument.parse("{c: 1}"));
    }

    static List<BsonDocument> docs(String lines) {
        return lines.lines().map(BsonDocument::parse).toList();
    }
}
