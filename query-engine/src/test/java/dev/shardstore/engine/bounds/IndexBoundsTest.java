package dev.shardstore.engine.bounds;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.keystring.KeyString;
import dev.shardstore.contracts.keystring.Ordering;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;

/** Index bounds derivation, with the examples of MongoDB's documentation on explain and multikey bounds. */
class IndexBoundsTest {

    /** An index key pattern as the bounds see it. */
    private record Key(List<String> fields, Ordering ordering, boolean multikey) {
        IndexBounds derive(BsonDocument filter) {
            return IndexBounds.derive(filter, fields, ordering, multikey);
        }

        BsonDocument explain(IndexBounds bounds) {
            return bounds.explain(fields, ordering);
        }
    }

    private static Key index(String key, boolean multikey) {
        BsonDocument pattern = ExtendedJson.parse(key);
        return new Key(List.copyOf(pattern.keySet()), Ordering.fromKeyPattern(pattern), multikey);
    }

    private static BsonDocument bounds(String filter, String key) {
        Key index = index(key, false);
        return index.explain(index.derive(ExtendedJson.parse(filter)));
    }

    @Test
    void equalityIsAPoint() {
        assertThat(bounds("{country: 'FR'}", "{country: 1}")).isEqualTo(ExtendedJson.parse("{country: ['[\"FR\", \"FR\"]']}"));
        assertThat(bounds("{a: {$eq: 5}}", "{a: 1}")).isEqualTo(ExtendedJson.parse("{a: ['[5, 5]']}"));
        assertThat(bounds("{a: null}", "{a: 1}")).isEqualTo(ExtendedJson.parse("{a: ['[null, null]']}"));
    }

    @Test
    void rangesStayWithinTheirTypeBracket() {
        assertThat(bounds("{a: {$gt: 5}}", "{a: 1}")).isEqualTo(ExtendedJson.parse("{a: ['(5, inf.0]']}"));
        assertThat(bounds("{a: {$lte: 5}}", "{a: 1}")).isEqualTo(ExtendedJson.parse("{a: ['[-inf.0, 5]']}"));
        assertThat(bounds("{a: {$gte: 2, $lt: 10}}", "{a: 1}")).isEqualTo(ExtendedJson.parse("{a: ['[2, 10)']}"));
        assertThat(bounds("{$and: [{a: {$gte: 1}}, {a: {$lte: 3}}]}", "{a: 1}")).isEqualTo(ExtendedJson.parse("{a: ['[1, 3]']}"));
        assertThat(bounds("{a: {$lt: 'm'}}", "{a: 1}")).isEqualTo(ExtendedJson.parse("{a: ['[\"\", \"m\")']}"));
        assertThat(bounds("{a: {$gt: 'm'}}", "{a: 1}")).isEqualTo(ExtendedJson.parse("{a: ['(\"m\", {})']}"));
    }

    @Test
    void inIsSortedPoints() {
        assertThat(bounds("{a: {$in: [3, 1, 2, 1.0]}}", "{a: 1}")).isEqualTo(ExtendedJson.parse("{a: ['[1, 1]', '[2, 2]', '[3, 3]']}"));
        assertThat(index("{a: 1}", false).derive(ExtendedJson.parse("{a: {$in: []}}")).ranges()).isEmpty();
        assertThat(bounds("{a: {$in: [1, 5], $gt: 2}}", "{a: 1}")).isEqualTo(ExtendedJson.parse("{a: ['[5, 5]']}"));
    }

    @Test
    void unusablePredicatesLeaveTheFieldUnbounded() {
        for (String filter : List.of("{a: {$ne: 3}}", "{a: [1, 2]}", "{a: /x/}", "{$or: [{a: 1}, {a: 2}]}", "{b: 1}", "{a: {$exists: true}}")) {
            IndexBounds b = index("{a: 1}", false).derive(ExtendedJson.parse(filter));
            assertThat(b.bounded()).as(filter).isFalse();
            assertThat(index("{a: 1}", false).explain(b)).as(filter).isEqualTo(ExtendedJson.parse("{a: ['[MinKey, MaxKey]']}"));
        }
    }

    @Test
    void multikeyRangesAreNotIntersected() {
        // MongoDB's doc: {ratings: {$gte: 3, $lte: 6}} on a multikey index uses one bound only
        Key multikey = index("{ratings: 1}", true);
        assertThat(multikey.explain(multikey.derive(ExtendedJson.parse("{ratings: {$gte: 3, $lte: 6}}"))))
                .isEqualTo(ExtendedJson.parse("{ratings: ['[3, inf.0]']}"));
    }

    @Test
    void compoundBoundsWithADescendingField() {
        assertThat(bounds("{a: 1, b: {$gt: 5}}", "{a: 1, b: -1}"))
                .isEqualTo(ExtendedJson.parse("{a: ['[1, 1]'], b: ['[inf.0, 5)']}"));
        assertThat(bounds("{a: {$gt: 1}, b: 2}", "{a: 1, b: 1}"))
                .isEqualTo(ExtendedJson.parse("{a: ['(1, inf.0]'], b: ['[MinKey, MaxKey]']}"));
        assertThat(bounds("{b: 2}", "{a: 1, b: 1}"))
                .isEqualTo(ExtendedJson.parse("{a: ['[MinKey, MaxKey]'], b: ['[MinKey, MaxKey]']}"));
    }

    @Test
    void keyRangesHoldExactlyTheMatchingKeys() {
        Ordering ascDesc = Ordering.fromKeyPattern(ExtendedJson.parse("{a: 1, b: -1}"));
        IndexBounds b = index("{a: 1, b: -1}", false).derive(ExtendedJson.parse("{a: 1, b: {$gt: 5}}"));
        assertThat(contains(b, KeyString.encode(List.of(i(1), i(6)), ascDesc))).isTrue();
        assertThat(contains(b, KeyString.encode(List.of(i(1), new org.bson.BsonDouble(1e300)), ascDesc))).isTrue();
        assertThat(contains(b, KeyString.encode(List.of(i(1), i(5)), ascDesc))).isFalse();
        assertThat(contains(b, KeyString.encode(List.of(i(1), i(4)), ascDesc))).isFalse();
        assertThat(contains(b, KeyString.encode(List.of(i(2), i(6)), ascDesc))).isFalse();
        assertThat(contains(b, KeyString.encode(List.of(i(1), new BsonString("z")), ascDesc))).isFalse();

        Ordering two = Ordering.allAscending(2);
        IndexBounds prefix = index("{a: 1, b: 1}", false).derive(ExtendedJson.parse("{a: {$gt: 1}}"));
        assertThat(contains(prefix, KeyString.encode(List.of(i(1), i(100)), two))).isFalse();
        assertThat(contains(prefix, KeyString.encode(List.of(i(2), new BsonString("x")), two))).isTrue();

        IndexBounds points = index("{a: 1, b: 1}", false).derive(ExtendedJson.parse("{a: {$in: [1, 3]}, b: 'x'}"));
        assertThat(points.ranges()).hasSize(2);
        assertThat(contains(points, KeyString.encode(List.of(i(3), new BsonString("x")), two))).isTrue();
        assertThat(contains(points, KeyString.encode(List.of(i(2), new BsonString("x")), two))).isFalse();
        assertThat(contains(points, KeyString.encode(List.of(i(3), new BsonString("xy")), two))).isFalse();
    }

    private static boolean contains(IndexBounds b, byte[] key) {
        return b.ranges().stream().anyMatch(r -> KeyString.compare(r.low(), key) <= 0 && KeyString.compare(key, r.high()) < 0);
    }

    private static BsonValue i(int v) {
        return new BsonInt32(v);
    }
}
