package dev.shardstore.contracts.bson;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.keystring.KeyString;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Collation specs and string order after MongoDB's manual, "Collation" (strength, caseFirst, numericOrdering, alternate). */
class CollationTest {
    private static Collation collation(String json) {
        return Collation.parse("find.collation", BsonDocument.parse(json));
    }

    @ParameterizedTest(name = "{0}: {1} vs {2} -> {3}")
    @CsvSource(delimiter = '|', value = {
            "{locale: 'en', strength: 1}|a|A|0",
            "{locale: 'en', strength: 1}|e|é|0",
            "{locale: 'en', strength: 2}|a|A|0",
            "{locale: 'en', strength: 2}|e|é|-1",
            "{locale: 'en', strength: 3}|a|A|-1",
            "{locale: 'en'}|b|A|1",
            "{locale: 'simple'}|b|A|1",
            "{locale: 'simple'}|a|B|1",
            "{locale: 'en', numericOrdering: true}|10|9|1",
            "{locale: 'en'}|10|9|-1",
            "{locale: 'en', caseFirst: 'upper'}|A|a|-1",
            "{locale: 'en', caseFirst: 'lower'}|A|a|1",
            "{locale: 'en', alternate: 'shifted'}|a b|ab|0",
            "{locale: 'en'}|a b|ab|-1",
            "{locale: 'en', strength: 1, caseLevel: true}|a|A|-1",
    })
    void comparesStringsUnderTheCollation(String spec, String a, String b, int expected) {
        assertThat(Integer.signum(collation(spec).compareStrings(a, b))).isEqualTo(expected);
    }

    @Test
    void nestedStringsCompareUnderTheCollationButFieldNamesStayBinary() {
        Collation caseless = collation("{locale: 'en', strength: 2}");
        BsonValue lower = BsonDocument.parse("{x: {a: ['abc']}}");
        BsonValue upper = BsonDocument.parse("{x: {a: ['ABC']}}");
        assertThat(BsonOrder.compare(lower, upper, caseless)).isZero();
        assertThat(BsonOrder.compare(lower, upper)).isPositive();
        assertThat(BsonOrder.compare(BsonDocument.parse("{a: 1}"), BsonDocument.parse("{A: 1}"), caseless)).isPositive();
        assertThat(BsonOrder.compare(new BsonArray(List.of(new BsonString("B"))), new BsonArray(List.of(new BsonString("a"))), caseless)).isPositive();
    }

    @Test
    void resolvesEveryFieldAsMongoDbListsIt() {
        assertThat(collation("{locale: 'fr', strength: 2}").toDocument()).isEqualTo(BsonDocument.parse("""
                {locale: 'fr', caseLevel: false, caseFirst: 'off', strength: 2, numericOrdering: false,
                 alternate: 'non-ignorable', maxVariable: 'punct', normalization: false, backwards: false, version: '57.1'}"""));
        assertThat(collation("{locale: 'simple'}")).isSameAs(Collation.SIMPLE);
        assertThat(Collation.parse("find.collation", null)).isSameAs(Collation.SIMPLE);
        assertThat(collation("{locale: 'en', strength: 2}")).isEqualTo(collation("{locale: 'en', strength: 2.0}"));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "{locale: 'xx_YY'}|BadValue|Field 'locale' is invalid with value: xx_YY",
            "{strength: 2}|Location40414|BSON field 'find.collation.locale' is missing but a required field",
            "{locale: 'en', foo: 1}|Location40415|BSON field 'find.collation.foo' is an unknown field.",
            "{locale: 'en', strength: 6}|BadValue|Field 'strength' must be an integer 1 through 5. Got: 6.0",
            "{locale: 'en', strength: 'x'}|TypeMismatch|BSON field 'find.collation.strength' is the wrong type",
            "{locale: 'en', caseFirst: 'x'}|BadValue|Field 'caseFirst' must be 'upper', 'lower', or 'off'. Got: x",
            "{locale: 'en', alternate: 'x'}|BadValue|Field 'alternate' must be 'non-ignorable' or 'shifted'. Got: x",
            "{locale: 'en', maxVariable: 'x'}|BadValue|Field 'maxVariable' must be 'punct' or 'space'. Got: x",
            "{locale: 'en', caseLevel: 1}|TypeMismatch|BSON field 'find.collation.caseLevel' is the wrong type",
            "{locale: 'simple', strength: 2}|BadValue|If locale is 'simple', then the collation must not contain any other fields",
            "{locale: 5}|TypeMismatch|BSON field 'find.collation.locale' is the wrong type",
    })
    void refusesBadSpecsAsMongoDb(String spec, ErrorCode code, String message) {
        assertThatThrownBy(() -> collation(spec)).isInstanceOfSatisfying(CommandException.class, e -> {
            assertThat(e.code()).isEqualTo(code);
            assertThat(e.getMessage()).contains(message);
        });
    }

    @Test
    void oneCollationComparesFromManyThreads() throws Exception {
        Collation caseless = collation("{locale: 'de', strength: 2}");
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<Boolean>> results = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                results.add(pool.submit(() -> {
                    for (int i = 0; i < 10_000; i++) {
                        if (caseless.compareStrings("Äpfel" + i, "äPFEL" + i) != 0) {
                            return false;
                        }
                    }
                    return true;
                }));
            }
            for (Future<Boolean> result : results) {
                assertThat(result.get()).isTrue();
            }
        } finally {
            pool.shutdown();
        }
    }

    /**
     * An index with a collation stores {@link Collation#indexKey}: its KeyString order must be the collation's order
     * (ties included, so a unique index sees equal strings as duplicates), for strings alone and nested in arrays and
     * documents, and values that are not strings stay as they are.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {"{locale: 'en', strength: 2}", "{locale: 'en', numericOrdering: true}",
            "{locale: 'fr', strength: 1, backwards: true}", "{locale: 'de', alternate: 'shifted'}", "{locale: 'sv'}"})
    void indexKeysOrderAsTheCollationCompares(String spec) {
        Collation c = collation(spec);
        List<String> words = List.of("", "a", "A", "ab", "Ab", "b", "é", "e", "10", "9", "100", "x-y", "xy", "z\u0000z", "ö", "o",
                "Zürich", "zurich", "\uD83D\uDE00", "a b");
        for (String a : words) {
            for (String b : words) {
                int expected = Integer.signum(c.compareStrings(a, b));
                assertThat(Integer.signum(KeyString.compare(
                        KeyString.encode(c.indexKey(new BsonString(a))),
                        KeyString.encode(c.indexKey(new BsonString(b))))))
                        .as("%s vs %s", a, b).isEqualTo(expected);
                BsonValue nestedA = new BsonDocument("k", new BsonArray(List.of(new BsonString(a))));
                BsonValue nestedB = new BsonDocument("k", new BsonArray(List.of(new BsonString(b))));
                assertThat(Integer.signum(KeyString.compare(
                        KeyString.encode(c.indexKey(nestedA)),
                        KeyString.encode(c.indexKey(nestedB)))))
                        .as("nested %s vs %s", a, b).isEqualTo(expected);
            }
        }
        assertThat(c.indexKey(new BsonInt32(7))).isEqualTo(new BsonInt32(7));
        assertThat(Collation.SIMPLE.indexKey(new BsonString("A"))).isEqualTo(new BsonString("A"));
    }
}
