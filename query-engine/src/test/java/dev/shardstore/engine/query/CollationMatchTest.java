package dev.shardstore.engine.query;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.bson.Collation;
import dev.shardstore.engine.aggregate.expression.CommandVariables;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/**
 * Query matching, sort and distinct under a collation, after MongoDB's manual "Collation": string comparisons in
 * {@code $eq $ne $in $nin $lt ... $all $elemMatch} use it (also strings nested in arrays and documents); {@code $regex}
 * does not.
 */
class CollationMatchTest {
    private static final List<BsonDocument> WORDS = FilterTest.docs("""
            {_id: 1, s: "cafe"}
            {_id: 2, s: "Cafe"}
            {_id: 3, s: "café"}
            {_id: 4, s: "CAFÉ"}
            {_id: 5, s: ["x", "CAFE"]}
            {_id: 6, s: {n: "Cafe"}}
            {_id: 7, s: 10}""");

    private static Collation collation(String json) {
        return Collation.parse("find.collation", BsonDocument.parse(json));
    }

    private static List<Integer> ids(String filter, String collation) {
        Filter parsed = Filter.parse(BsonDocument.parse(filter), CommandVariables.withoutLet(), collation(collation));
        return WORDS.stream().filter(parsed::matches).map(d -> d.getInt32("_id").getValue()).toList();
    }

    @ParameterizedTest(name = "{0} under {1}")
    @CsvSource(delimiter = '|', value = {
            "{s: 'cafe'}|{locale: 'simple'}|1",
            "{s: 'cafe'}|{locale: 'en', strength: 1}|1,2,3,4,5",
            "{s: 'cafe'}|{locale: 'en', strength: 2}|1,2,5",
            "{s: 'cafe'}|{locale: 'en', strength: 3}|1",
            "{s: {$ne: 'cafe'}}|{locale: 'en', strength: 2}|3,4,6,7",
            "{s: {$in: ['CAFÉ', 'y']}}|{locale: 'en', strength: 2}|3,4",
            "{s: {$nin: ['CAFÉ']}}|{locale: 'en', strength: 1}|6,7",
            "{s: {$gt: 'CAFE', $lt: 'cafz'}}|{locale: 'en', strength: 1}|5",
            "{s: {$gt: 'CAFE', $lt: 'cafz'}}|{locale: 'en', strength: 3}|3,4,5",
            "{s: {$gte: 'CAFE', $lte: 'CAFE'}}|{locale: 'en', strength: 2}|1,2,5",
            "{s: {$all: ['CAFE', 'X']}}|{locale: 'en', strength: 2}|5",
            "{s: {$elemMatch: {$eq: 'Cafe'}}}|{locale: 'en', strength: 2}|5",
            "{s: {n: 'CAFE'}}|{locale: 'en', strength: 2}|6",
            "{s: {n: 'CAFE'}}|{locale: 'simple'}|",
            "{s: /^cafe$/}|{locale: 'en', strength: 1}|1",
            "{s: {$regex: '^cafe$'}}|{locale: 'en', strength: 1}|1",
            "{$expr: {$eq: ['$s', 'CAFE']}}|{locale: 'en', strength: 2}|1,2",
            "{$expr: {$eq: ['$s', 'CAFE']}}|{locale: 'simple'}|",
    })
    void matchesStringsUnderTheCollation(String filter, String collation, String expected) {
        List<Integer> want = expected == null ? List.of()
                : java.util.Arrays.stream(expected.split(",")).map(Integer::valueOf).toList();
        assertThat(ids(filter, collation)).isEqualTo(want);
    }

    @Test
    void numericOrderingComparesDigitsAsNumbers() {
        assertThat(ids("{s: {$gt: '9'}}", "{locale: 'en', numericOrdering: true}")).containsExactly(1, 2, 3, 4, 5);
        List<BsonDocument> numbers = FilterTest.docs("{_id: 1, v: '10'}\n{_id: 2, v: '9'}\n{_id: 3, v: '100'}");
        assertThat(sorted(numbers, "{v: 1}", "{locale: 'en', numericOrdering: true}")).containsExactly(2, 1, 3);
        assertThat(sorted(numbers, "{v: 1}", "{locale: 'simple'}")).containsExactly(1, 3, 2);
    }

    @Test
    void sortsUnderTheCollation() {
        List<BsonDocument> docs = FilterTest.docs("{_id: 1, v: 'b'}\n{_id: 2, v: 'A'}\n{_id: 3, v: 'a'}\n{_id: 4, v: ['B', 'c']}");
        assertThat(sorted(docs, "{v: 1}", "{locale: 'simple'}")).containsExactly(2, 4, 3, 1);
        assertThat(sorted(docs, "{v: 1}", "{locale: 'en'}")).containsExactly(3, 2, 1, 4);
        assertThat(sorted(docs, "{v: 1}", "{locale: 'en', caseFirst: 'upper'}")).containsExactly(2, 3, 4, 1);
        assertThat(sorted(docs, "{v: -1}", "{locale: 'en', strength: 1}")).containsExactly(4, 1, 2, 3);
    }

    @Test
    void distinctCountsValuesEqualUnderTheCollationOnce() {
        DistinctValues caseless = new DistinctValues("s", collation("{locale: 'en', strength: 2}"));
        DistinctValues accentless = new DistinctValues("s", collation("{locale: 'en', strength: 1}"));
        DistinctValues binary = new DistinctValues("s");
        WORDS.forEach(caseless::add);
        WORDS.forEach(accentless::add);
        WORDS.forEach(binary::add);
        assertThat(caseless.values()).containsExactly(new BsonInt32(10), new BsonString("cafe"), new BsonString("café"),
                new BsonString("x"), BsonDocument.parse("{n: 'Cafe'}"));
        assertThat(accentless.values()).extracting(BsonValue::toString).hasSize(4);
        assertThat(binary.values()).hasSize(8);
    }

    @Test
    void alternateShiftedIgnoresSpacesAndPunctuation() {
        List<BsonDocument> docs = FilterTest.docs("{_id: 1, v: 'a-b'}\n{_id: 2, v: 'a b'}\n{_id: 3, v: 'ab'}");
        Filter shifted = Filter.parse(BsonDocument.parse("{v: 'ab'}"), CommandVariables.withoutLet(),
                collation("{locale: 'en', alternate: 'shifted', strength: 3}"));
        assertThat(docs.stream().filter(shifted::matches).map(d -> d.getInt32("_id").getValue())).containsExactly(1, 2, 3);
        Filter spaceOnly = Filter.parse(BsonDocument.parse("{v: 'ab'}"), CommandVariables.withoutLet(),
                collation("{locale: 'en', alternate: 'shifted', maxVariable: 'space', strength: 3}"));
        assertThat(docs.stream().filter(spaceOnly::matches).map(d -> d.getInt32("_id").getValue())).containsExactly(2, 3);
    }

    private static List<Integer> sorted(List<BsonDocument> docs, String sort, String collation) {
        return docs.stream().sorted(Sort.parse(BsonDocument.parse(sort), collation(collation)).comparator())
                .map(d -> d.getInt32("_id").getValue()).toList();
    }
}
