package dev.shardstore.engine.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.bson.BsonOrder;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.util.LinkedHashMap;
import java.util.Map;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Update semantics. Cases come from the examples of MongoDB's manual pages for {@code $set}, {@code $unset},
 * {@code $inc} and "Update Operators" (field order), "db.collection.updateOne()" (replacement, upsert), plus
 * the corner rules those pages state (array padding, paths through scalars, immutable {@code _id}).
 */
class UpdateTest {
    private static final String PRODUCT = """
            {_id: 100, quantity: 250, instock: true, reorder: false, details: {model: "14QQ", make: "Clothes Corp"},
             tags: ["apparel", "clothing"], ratings: [{by: "Customer007", rating: 4}]}""";

    @ParameterizedTest(name = "{1} on {0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            PRODUCT                | {$set: {quantity: 500, details: {model: "2600", make: "Fashionaires"}, tags: ["coats", "outerwear", "clothing"]}} | {_id: 100, quantity: 500, instock: true, reorder: false, details: {model: "2600", make: "Fashionaires"}, tags: ["coats", "outerwear", "clothing"], ratings: [{by: "Customer007", rating: 4}]}
            PRODUCT                | {$set: {"details.make": "Kustom Kidz"}}             | {_id: 100, quantity: 250, instock: true, reorder: false, details: {model: "14QQ", make: "Kustom Kidz"}, tags: ["apparel", "clothing"], ratings: [{by: "Customer007", rating: 4}]}
            PRODUCT                | {$set: {"tags.1": "rain gear", "ratings.0.rating": 2}} | {_id: 100, quantity: 250, instock: true, reorder: false, details: {model: "14QQ", make: "Clothes Corp"}, tags: ["apparel", "rain gear"], ratings: [{by: "Customer007", rating: 2}]}
            PRODUCT                | {$unset: {quantity: "", instock: ""}}               | {_id: 100, reorder: false, details: {model: "14QQ", make: "Clothes Corp"}, tags: ["apparel", "clothing"], ratings: [{by: "Customer007", rating: 4}]}
            {_id: 1, sku: "abc123", quantity: 10, metrics: {orders: 2, ratings: 3.5}} | {$inc: {quantity: -2, "metrics.orders": 1}} | {_id: 1, sku: "abc123", quantity: 8, metrics: {orders: 3, ratings: 3.5}}
            {_id: 1}               | {$set: {b: 1, a: 1}}                                | {_id: 1, a: 1, b: 1}
            {_id: 1}               | {$set: {"a.10": 1, "a.9": 1, "a.b": 1}}             | {_id: 1, a: {"9": 1, "10": 1, b: 1}}
            {_id: 1, z: 0}         | {$inc: {y: 1}, $set: {x: 1}}                        | {_id: 1, z: 0, x: 1, y: 1}
            {_id: 1}               | {$set: {"a.b.c": 1}}                                | {_id: 1, a: {b: {c: 1}}}
            {_id: 1}               | {$set: {"a.0": 1}}                                  | {_id: 1, a: {"0": 1}}
            {_id: 1, a: {}}        | {$set: {"a.b": 1, "a.c": 2}}                        | {_id: 1, a: {b: 1, c: 2}}
            {_id: 1, a: [0]}       | {$set: {"a.3": 1}}                                  | {_id: 1, a: [0, null, null, 1]}
            {_id: 1, a: []}        | {$set: {"a.1.b": 1}}                                | {_id: 1, a: [null, {b: 1}]}
            {_id: 1, a: [1, {c: 1}]} | {$set: {"a.1.b": 2}}                              | {_id: 1, a: [1, {c: 1, b: 2}]}
            {_id: 1, a: [[1, 2]]}  | {$set: {"a.0.1": 3}}                                | {_id: 1, a: [[1, 3]]}
            {_id: 1, a: [[1, 2], [3]]} | {$set: {"a.1.2": 9}}                            | {_id: 1, a: [[1, 2], [3, null, 9]]}
            {_id: 1, a: [[1, [2]]]} | {$push: {"a.0.1": 3}}                              | {_id: 1, a: [[1, [2, 3]]]}
            {_id: 1, a: [1, 2, 3]} | {$unset: {"a.1": ""}}                               | {_id: 1, a: [1, null, 3]}
            {_id: 1, a: [1]}       | {$unset: {"a.5": ""}}                               | {_id: 1, a: [1]}
            {_id: 1, a: 5}         | {$unset: {"a.b": "", c: "", "d.e": ""}}             | {_id: 1, a: 5}
            {_id: 1, a: [{b: 1}]}  | {$unset: {"a.b": 1}}                                | {_id: 1, a: [{b: 1}]}
            {_id: 1, a: {b: 1, c: 2}} | {$unset: {"a.b": 1}}                             | {_id: 1, a: {c: 2}}
            {_id: 1, a: 1, b: 2}   | {$set: {a: {x: 1}}}                                 | {_id: 1, a: {x: 1}, b: 2}
            {_id: 1, a: null}      | {$set: {a: 2}}                                      | {_id: 1, a: 2}
            {_id: 1}               | {$inc: {"a.b": 5}}                                  | {_id: 1, a: {b: 5}}
            {_id: 1, a: [1, 2]}    | {$inc: {"a.1": 5}}                                  | {_id: 1, a: [1, 7]}
            {_id: 1}               | {$set: {}}                                          | {_id: 1}
            {_id: {x: 1}}          | {$set: {"_id.x": 1}}                                | {_id: {x: 1}}
            {_id: 1, a: 1, b: 2}   | {c: 3}                                              | {_id: 1, c: 3}
            {_id: 1, a: 1}         | {}                                                  | {_id: 1}
            {_id: 1, a: 1}         | {a: 2, _id: 1}                                      | {a: 2, _id: 1}
            {_id: 1, a: 1}         | {a: {$lt: 5}}                                       | {_id: 1, a: {$lt: 5}}
            """)
    void appliesTheManualsExamples(String doc, String update, String expected) {
        BsonDocument before = BsonDocument.parse(doc.equals("PRODUCT") ? PRODUCT : doc);
        BsonDocument untouched = before.clone();
        BsonDocument after = Update.parse(BsonDocument.parse(update)).apply(before);
        assertThat(after.toJson()).isEqualTo(BsonDocument.parse(expected).toJson());
        assertThat(before.toJson()).as("input not mutated").isEqualTo(untouched.toJson());
    }

    @ParameterizedTest(name = "{0} + {1} = {2}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            1                             | 2                             | {$numberInt: "3"}
            2147483647                    | 1                             | {$numberLong: "2147483648"}
            -2147483648                   | -1                            | {$numberLong: "-2147483649"}
            1                             | {$numberLong: "2"}            | {$numberLong: "3"}
            {$numberLong: "5"}            | -1                            | {$numberLong: "4"}
            1                             | 0.5                           | {$numberDouble: "1.5"}
            {$numberLong: "1"}            | 2.5                           | {$numberDouble: "3.5"}
            1                             | {$numberDecimal: "0.25"}      | {$numberDecimal: "1.25"}
            {$numberDecimal: "1.1"}       | 0.1                           | {$numberDecimal: "1.2"}
            {$numberDecimal: "-0"}        | 1                             | {$numberDecimal: "1"}
            {$numberDecimal: "Infinity"}  | 1                             | {$numberDecimal: "Infinity"}
            {$numberDouble: "NaN"}        | 1                             | {$numberDouble: "NaN"}
            """)
    void incrementsWithMongoDbsNumericPromotion(String start, String increment, String expected) {
        BsonDocument doc = BsonDocument.parse("{_id: 1, n: " + start + "}");
        BsonValue result = Update.parse(BsonDocument.parse("{$inc: {n: " + increment + "}}")).apply(doc).get("n");
        BsonValue want = BsonDocument.parse("{n: " + expected + "}").get("n");
        assertThat(result.getBsonType()).isEqualTo(want.getBsonType());
        assertThat(BsonOrder.compare(result, want)).as("%s vs %s", result, want).isZero();
    }

    @ParameterizedTest(name = "{1} on {0} -> {2}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {_id: 1, a: 5}                  | {$set: {"a.b": 1}}            | PathNotViable              | Cannot create field 'b' in element {"a": 5}
            {_id: 1, a: null}               | {$set: {"a.b.c": 1}}          | PathNotViable              | Cannot create field 'b' in element {"a": null}
            {_id: 1, a: [{b: 1}]}           | {$set: {"a.b": 2}}            | PathNotViable              | Cannot create field 'b' in element {"a": [{"b": 1}]}
            {_id: 1, a: [5]}                | {$inc: {"a.0.x": 1}}          | PathNotViable              | Cannot create field 'x' in element {"0": 5}
            {_id: 1, a: [[1]]}              | {$set: {"a.0.b": 1}}          | PathNotViable              | Cannot create field 'b' in element {"0": [1]}
            {_id: 1, a: "x"}                | {$inc: {a: 1}}                | TypeMismatch               | Cannot apply $inc to a value of non-numeric type. The field 'a' has non-numeric type string
            {_id: 1, a: {b: null}}          | {$inc: {"a.b": 1}}            | TypeMismatch               | non-numeric type null
            {_id: 1, a: {$numberLong: "9223372036854775807"}} | {$inc: {a: 1}} | BadValue                | Failed to apply $inc operations
            {_id: 1}                        | {$set: {_id: 2}}              | ImmutableField             | '_id' was found to have been altered to {"_id": 2}
            {_id: 1}                        | {$set: {_id: 1.0}}            | ImmutableField             | '_id' was found to have been altered
            {_id: 1}                        | {$unset: {_id: ""}}           | ImmutableField             | '_id' was found to have been altered to nothing
            {_id: {x: 1}}                   | {$inc: {"_id.x": 1}}          | ImmutableField             | '_id' was found to have been altered
            {_id: 1, a: 1}                  | {_id: 2, a: 1}                | ImmutableField             | '_id' was found to have been altered to {"_id": 2}
            {_id: 1, a: []}                 | {$set: {"a.1500001": 1}}      | BadValue                   | can't backfill more than 1500000 elements
            """)
    void rejectsUpdatesThatCannotApply(String doc, String update, ErrorCode code, String message) {
        Update parsed = Update.parse(BsonDocument.parse(update));
        assertThatThrownBy(() -> parsed.apply(BsonDocument.parse(doc)))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(code))
                .hasMessageContaining(message);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {$set: {a: 1}, $inc: {a: 1}}                | ConflictingUpdateOperators | Updating the path 'a' would create a conflict at 'a'
            {$set: {"a.b": 1}, $unset: {a: ""}}         | ConflictingUpdateOperators | Updating the path 'a' would create a conflict at 'a'
            {$set: {a: 1, "a.b": 1}}                    | ConflictingUpdateOperators | Updating the path 'a.b' would create a conflict at 'a'
            {$inc: {"a.0": 1}, $set: {"a.0.b": 1}}      | ConflictingUpdateOperators | Updating the path 'a.0.b' would create a conflict at 'a.0'
            {$set: {a: 1}, b: 2}                        | FailedToParse              | Unknown modifier: b
            {$foo: {a: 1}}                              | FailedToParse              | Unknown modifier: $foo
            {$set: 5}                                   | FailedToParse              | Modifiers operate on fields but we found type int instead
            {a: 1, $set: {b: 1}}                        | DollarPrefixedFieldName    | The dollar ($) prefixed field '$set' in '$set' is not allowed
            {$inc: {a: "x"}}                            | TypeMismatch               | Cannot increment with non-numeric argument: {"a": "x"}
            {$set: {"": 1}}                             | EmptyFieldName             | An empty update path is not valid.
            {$set: {"a..b": 1}}                         | EmptyFieldName             | The update path 'a..b' contains an empty field name
            {$unset: {"a.": 1}}                         | EmptyFieldName             | The update path 'a.' contains an empty field name
            {$set: {"$.a": 1}}                          | BadValue                   | Cannot have positional (i.e. '$') element in the first position in path '$.a'
            {$set: {"a.$[x].b": 1}}                     | BadValue                   | No array filter found for identifier 'x' in path 'a.$[x].b'
            {$set: {"a.$b": 1}}                         | DollarPrefixedFieldName    | The dollar ($) prefixed field '$b' in 'a.$b'
            {_id: [1], a: 1}                            | InvalidIdField             | The '_id' value cannot be of type array
            """)
    void rejectsMalformedUpdatesAtParseTime(String update, ErrorCode code, String message) {
        assertThatThrownBy(() -> Update.parse(BsonDocument.parse(update)))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(code))
                .hasMessageContaining(message);
    }

    @ParameterizedTest(name = "{0} with {1} -> {2}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {_id: 5, a: 1}         | {$set: {b: 2}}                 | {_id: 5, a: 1, b: 2}
            {_id: 5, a: {b: 1}}    | {$inc: {"a.b": 1, "a.c": 1}}   | {_id: 5, a: {b: 2, c: 1}}
            {_id: 5, a: 1}         | {x: 1}                         | {_id: 5, x: 1}
            {_id: 5, a: 1}         | {x: 1, _id: 5}                 | {_id: 5, x: 1}
            {a: 1}                 | {x: 1, _id: 3}                 | {_id: 3, x: 1}
            {a: 1}                 | {$set: {b: 1, _id: 9}}         | {_id: 9, a: 1, b: 1}
            {_id: 5}               | {$set: {_id: 5}}               | {_id: 5}
            """)
    void buildsTheUpsertedDocumentFromTheSeed(String seed, String update, String expected) {
        BsonDocument seedDoc = BsonDocument.parse(seed);
        BsonDocument untouched = seedDoc.clone();
        BsonDocument inserted = Update.parse(BsonDocument.parse(update)).applyForUpsert(seedDoc);
        assertThat(inserted.toJson()).isEqualTo(BsonDocument.parse(expected).toJson());
        assertThat(seedDoc).isEqualTo(untouched);
    }

    @Test
    void upsertWithoutAnIdGetsANewObjectIdFirst() {
        BsonDocument inserted = Update.parse(BsonDocument.parse("{$set: {b: 1}}")).applyForUpsert(BsonDocument.parse("{a: 1}"));
        assertThat(inserted.getFirstKey()).isEqualTo("_id");
        assertThat(inserted.get("_id").isObjectId()).isTrue();
        assertThat(inserted.keySet()).containsExactly("_id", "a", "b");
    }

    @ParameterizedTest(name = "{0} with {1} -> {2}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {_id: 5}               | {$set: {_id: 6}}               | ImmutableField
            {_id: 5}               | {_id: 6, a: 1}                 | ImmutableField
            {a: 1}                 | {$set: {_id: [1]}}             | InvalidIdField
            """)
    void rejectsUpsertsThatChangeOrBreakTheId(String seed, String update, ErrorCode code) {
        Update parsed = Update.parse(BsonDocument.parse(update));
        assertThatThrownBy(() -> parsed.applyForUpsert(BsonDocument.parse(seed)))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(code));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {a: 1, b: {$gt: 2}, _id: 7}                    | {_id: 7, a: 1}
            {b: 1, a: 2}                                   | {a: 2, b: 1}
            {"a.b": 1, "a.c": 2, "x.0": 3}                 | {a: {b: 1, c: 2}, x: {"0": 3}}
            {"_id.x": 1, c: {$eq: [1, 2]}}                 | {_id: {x: 1}, c: [1, 2]}
            {$and: [{a: 1}, {b: null}]}                    | {a: 1, b: null}
            {$or: [{a: 1}]}                                | {}
            """)
    void seedsUpsertsFromFilterEqualities(String filter, String expected) {
        BsonDocument seed = Update.seedFromEqualities(Filter.parse(BsonDocument.parse(filter)).equalities());
        assertThat(seed.toJson()).isEqualTo(BsonDocument.parse(expected).toJson());
    }

    @Test
    void refusesToSeedFromPathsThatOverlap() {
        Map<String, BsonValue> equalities = new LinkedHashMap<>();
        equalities.put("a", new BsonInt32(1));
        equalities.put("a.b", new BsonInt32(2));
        assertThatThrownBy(() -> Update.seedFromEqualities(equalities))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.BadValue))
                .hasMessageContaining("both paths 'a' and 'a.b' are matched");
    }

    @ParameterizedTest(name = "{1} on {0} changes: {2}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {_id: 1, a: 1}         | {$set: {a: 1}}                 | false
            {_id: 1, a: 1}         | {$set: {a: 1.0}}               | true
            {_id: 1, a: 0.0}       | {$set: {a: -0.0}}              | true
            {_id: 1, a: {b: 1, c: 2}} | {$set: {a: {c: 2, b: 1}}}   | true
            {_id: 1}               | {$unset: {a: ""}}              | false
            {_id: 1, a: 1}         | {$inc: {a: 0}}                 | false
            {_id: 1, a: 1}         | {a: 1}                         | false
            {_id: 1, a: 1}         | {a: 1, b: 2}                   | true
            """)
    void reportsWhetherTheDocumentChanged(String doc, String update, boolean expected) {
        BsonDocument before = BsonDocument.parse(doc);
        assertThat(Update.changes(before, Update.parse(BsonDocument.parse(update)).apply(before))).isEqualTo(expected);
    }

    @Test
    void knowsItsForm() {
        assertThat(Update.parse(BsonDocument.parse("{a: 1}")).isReplacement()).isTrue();
        assertThat(Update.parse(new BsonDocument()).isReplacement()).isTrue();
        assertThat(Update.parse(BsonDocument.parse("{$set: {a: 1}}")).isReplacement()).isFalse();
    }

    @Test
    void appliesToReadOnlyDocumentsAndSharesNothingWithThem() {
        RawBsonDocument raw = RawBsonDocument.parse("{_id: 1, a: {b: [1, 2]}}");
        BsonDocument after = Update.parse(BsonDocument.parse("{$set: {\"a.b.0\": 9}}")).apply(raw);
        assertThat(after.toJson()).isEqualTo(BsonDocument.parse("{_id: 1, a: {b: [9, 2]}}").toJson());

        Update set = Update.parse(BsonDocument.parse("{$set: {a: {b: 1}}}"));
        BsonDocument first = set.apply(BsonDocument.parse("{_id: 1}"));
        first.getDocument("a").put("b", new BsonInt32(2));
        assertThat(set.apply(BsonDocument.parse("{_id: 1}")).getDocument("a").getInt32("b").getValue()).isEqualTo(1);
    }
}
