package dev.shardstore.engine.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Projection semantics. The JOURNAL cases are the examples of MongoDB's manual page "Project Fields to
 * Return from Query"; the others pin array traversal, missing fields and the parse errors of "Projection
 * Restrictions".
 */
class ProjectionTest {
    private static final String JOURNAL =
            "{_id: 1, item: \"journal\", status: \"A\", size: {h: 14, w: 21, uom: \"cm\"}, instock: [{warehouse: \"A\", qty: 5}]}";
    private static final String MIXED = "{_id: 1, a: [{b: 1, c: 2}, 3, [{b: 4, c: 5}], {c: 6}]}";

    @ParameterizedTest(name = "{1} on {0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            JOURNAL | {item: 1, status: 1}                         | {_id: 1, item: "journal", status: "A"}
            JOURNAL | {item: 1, status: 1, _id: 0}                 | {item: "journal", status: "A"}
            JOURNAL | {status: 0, instock: 0}                      | {_id: 1, item: "journal", size: {h: 14, w: 21, uom: "cm"}}
            JOURNAL | {item: 1, status: 1, "size.uom": 1}          | {_id: 1, item: "journal", status: "A", size: {uom: "cm"}}
            JOURNAL | {item: 1, status: 1, size: {uom: 1}}         | {_id: 1, item: "journal", status: "A", size: {uom: "cm"}}
            JOURNAL | {"size.uom": 0}                              | {_id: 1, item: "journal", status: "A", size: {h: 14, w: 21}, instock: [{warehouse: "A", qty: 5}]}
            JOURNAL | {size: {uom: 0, h: false}}                   | {_id: 1, item: "journal", status: "A", size: {w: 21}, instock: [{warehouse: "A", qty: 5}]}
            JOURNAL | {item: 1, status: 1, "instock.qty": 1}       | {_id: 1, item: "journal", status: "A", instock: [{qty: 5}]}
            JOURNAL | {status: 1, item: 1}                         | {_id: 1, item: "journal", status: "A"}
            JOURNAL | {_id: 0}                                     | {item: "journal", status: "A", size: {h: 14, w: 21, uom: "cm"}, instock: [{warehouse: "A", qty: 5}]}
            JOURNAL | {_id: 1}                                     | {_id: 1}
            JOURNAL | {_id: 1, status: 0}                          | {_id: 1, item: "journal", size: {h: 14, w: 21, uom: "cm"}, instock: [{warehouse: "A", qty: 5}]}
            JOURNAL | {_id: 0, status: 0}                          | {item: "journal", size: {h: 14, w: 21, uom: "cm"}, instock: [{warehouse: "A", qty: 5}]}
            JOURNAL | {}                                           | {_id: 1, item: "journal", status: "A", size: {h: 14, w: 21, uom: "cm"}, instock: [{warehouse: "A", qty: 5}]}
            JOURNAL | {item: true, missing: 1}                     | {_id: 1, item: "journal"}
            JOURNAL | {item: 2.5, "size.nope": 1}                  | {_id: 1, item: "journal", size: {}}
            JOURNAL | {"item.x": 1}                                | {_id: 1}
            JOURNAL | {"item.x": 0}                                | {_id: 1, item: "journal", status: "A", size: {h: 14, w: 21, uom: "cm"}, instock: [{warehouse: "A", qty: 5}]}
            MIXED   | {"a.b": 1}                                   | {_id: 1, a: [{b: 1}, [{b: 4}], {}]}
            MIXED   | {"a.b": 0}                                   | {_id: 1, a: [{c: 2}, 3, [{c: 5}], {c: 6}]}
            MIXED   | {"a.b": 1, _id: 0}                           | {a: [{b: 1}, [{b: 4}], {}]}
            {_id: {x: 1, y: 2}, a: 1} | {"_id.x": 1}                   | {_id: {x: 1}}
            {_id: {x: 1, y: 2}, a: 1} | {"_id.x": 0}                   | {_id: {y: 2}, a: 1}
            {a: 1, _id: 7}          | {a: 1}                         | {a: 1, _id: 7}
            """)
    void projectsTheManualsExamples(String doc, String spec, String expected) {
        BsonDocument input = BsonDocument.parse(switch (doc) {
            case "JOURNAL" -> JOURNAL;
            case "MIXED" -> MIXED;
            default -> doc;
        });
        BsonDocument untouched = input.clone();
        BsonDocument projected = Projection.parse(BsonDocument.parse(spec)).apply(input);
        assertThat(projected.toJson()).isEqualTo(BsonDocument.parse(expected).toJson());
        assertThat(input).isEqualTo(untouched);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {a: 1, b: 0}                 | Cannot do exclusion on field b in inclusion projection
            {a: 0, b: 1}                 | Cannot do inclusion on field b in exclusion projection
            {a: 0, _id: 1, "c.d": 1}     | Cannot do inclusion on field c.d in exclusion projection
            {a: 1, "a.b": 1}             | Path collision at a.b
            {"a.b": 1, a: 1}             | Path collision at a
            {"a.b": 0, a: {b: 0}}        | Path collision at a.b
            {a: {}}                      | An empty sub-projection is not a valid value. Found empty object at path a
            {a: {$meta: "textScore"}}    | projection operator $meta is not supported
            {a: {$slice: "x"}}           | $slice only supports numbers and [skip, limit] arrays
            {a: "x"}                     | projection value for field a must be a number or a boolean, not string
            {a: null}                    | must be a number or a boolean, not null
            {$foo: 1}                    | projection field path '$foo' is not supported
            {"a.$.b": 1}                 | projection field path 'a.$.b' is not supported
            {"a..b": 1}                  | projection field path 'a..b' is not supported
            {"": 1}                      | projection field path '' is not supported
            """)
    void rejectsInvalidProjectionsWithBadValue(String spec, String message) {
        assertThatThrownBy(() -> Projection.parse(BsonDocument.parse(spec)))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.BadValue))
                .hasMessageContaining(message);
    }

    @Test
    void resultSharesNothingWithTheInput() {
        BsonDocument input = BsonDocument.parse("{_id: 1, a: {b: [1]}}");
        BsonDocument projected = Projection.parse(BsonDocument.parse("{a: 1}")).apply(input);
        projected.getDocument("a").getArray("b").clear();
        assertThat(input.getDocument("a").getArray("b")).hasSize(1);
    }
}
