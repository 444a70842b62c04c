package dev.shardstore.engine.query;

import static org.assertj.core.api.Assertions.assertThat;

import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code distinct}'s values: the examples of MongoDB's manual page "distinct" (the inventory with {@code dept},
 * {@code item.sku} and {@code sizes}), plus nested arrays, null/missing and mixed numeric types.
 */
class DistinctValuesTest {
    private static final String INVENTORY = """
            {_id: 1, dept: "A", item: {sku: "111", color: "red"}, sizes: ["S", "M"]}
            {_id: 2, dept: "A", item: {sku: "111", color: "blue"}, sizes: ["M", "L"]}
            {_id: 3, dept: "B", item: {sku: "222", color: "blue"}, sizes: "S"}
            {_id: 4, dept: "A", item: {sku: "333", color: "black"}, sizes: ["S"]}""";

    @ParameterizedTest(name = "{1} over {0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            INVENTORY                                          | dept       | ["A", "B"]
            INVENTORY                                          | item.sku   | ["111", "222", "333"]
            INVENTORY                                          | sizes      | ["L", "M", "S"]
            `{a: 1}\n{a: 1.0}\n{a: {$numberLong: "1"}}\n{a: 2}` | a          | [1, 2]
            `{a: [1, [2, 3]]}\n{a: [[2, 3]]}`                  | a          | [1, [2, 3]]
            `{a: null}\n{b: 1}\n{a: []}`                       | a          | [null]
            `{a: [{b: 1}, {b: [2, 3]}, {c: 4}]}`               | a.b        | [1, 2, 3]
            `{a: [{b: 1}, {b: 2}]}`                            | a.1.b      | [2]
            `{a: "x"}\n{a: 1}\n{a: {b: 1}}\n{a: true}`         | a          | [1, "x", {b: 1}, true]
            """)
    void listsDistinctValuesInBsonOrder(String docs, String key, String expected) {
        DistinctValues distinct = new DistinctValues(key);
        (docs.equals("INVENTORY") ? INVENTORY : docs.replace("\\n", "\n")).lines().map(BsonDocument::parse).forEach(distinct::add);
        assertThat(new BsonDocument("v", new BsonArray(distinct.values())).toJson())
                .isEqualTo(BsonDocument.parse("{v: " + expected + "}").toJson());
    }
}
