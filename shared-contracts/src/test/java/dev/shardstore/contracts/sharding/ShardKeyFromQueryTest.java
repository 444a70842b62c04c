package dev.shardstore.contracts.sharding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.hash.BsonHasher;
import java.util.Optional;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonMaxKey;
import org.bson.BsonMinKey;
import org.bson.BsonNull;
import org.bson.BsonString;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link ShardKeyPattern#extractShardKeyFromQuery}, the one shard key extraction of the router's targeting and the
 * config service's split/moveChunk {@code find}, against MongoDB's {@code extractShardKeyFromQuery}: including the
 * cases the copies it replaces disagreed on (an operator document beside {@code $eq}, two equalities on one path, an
 * equality inside an equality on a prefix, a {@code $}-named field inside a document value, a query given as raw
 * equalities with operators).
 */
class ShardKeyFromQueryTest {
    private static final ShardKeyPattern X = ShardKeyPattern.of(json("{x: 1}"));
    private static final ShardKeyPattern COMPOUND = ShardKeyPattern.of(json("{a: 1, 'b.c': 1}"));
    private static final ShardKeyPattern HASHED = ShardKeyPattern.of(json("{region: 1, 'u.id': 'hashed'}"));

    private static BsonDocument json(String json) {
        return ExtendedJson.parse(json);
    }

    private static Optional<BsonDocument> key(ShardKeyPattern pattern, String query) {
        return pattern.extractShardKeyFromQuery(json(query));
    }

    @Test
    void aPlainValueAndEqAreEqualities() {
        assertThat(key(X, "{x: 5, other: 'y'}")).contains(json("{x: 5}"));
        assertThat(key(X, "{x: {$eq: 5}}")).contains(json("{x: 5}"));
        assertThat(key(X, "{x: {$eq: 5, $lt: 9}}")).as("an $eq AND-ed with other operators still pins the key").contains(json("{x: 5}"));
        assertThat(key(X, "{x: {$gt: 5}}")).isEmpty();
        assertThat(key(X, "{x: {$in: [5, 6]}}")).isEmpty();
        assertThat(key(X, "{x: {$ne: 5}}")).isEmpty();
        assertThat(key(X, "{x: {$not: {$eq: 5}}}")).isEmpty();
        assertThat(key(X, "{other: 5}")).isEmpty();
        assertThat(key(X, "{}")).isEmpty();
    }

    @Test
    void nullMinKeyAndMaxKeyAreShardKeyValues() {
        assertThat(key(X, "{x: null}")).contains(new BsonDocument("x", BsonNull.VALUE));
        assertThat(key(X, "{x: {$eq: null}}")).contains(new BsonDocument("x", BsonNull.VALUE));
        assertThat(key(X, "{x: {$minKey: 1}}")).contains(new BsonDocument("x", new BsonMinKey()));
        assertThat(key(X, "{x: {$eq: {$maxKey: 1}}}")).contains(new BsonDocument("x", new BsonMaxKey()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"{x: [1, 2]}", "{x: {$eq: [1]}}", "{x: {$regularExpression: {pattern: '^a', options: ''}}}",
            "{x: {$regex: '^a'}}", "{x: {$eq: {$regularExpression: {pattern: '^a', options: ''}}}}",
            "{x: {y: {$gt: 1}}}", "{x: {$eq: {y: 1, $z: 2}}}"})
    void arraysRegularExpressionsAndOperatorDocumentsAreNoShardKeyValue(String query) {
        assertThat(key(X, query)).isEmpty();
    }

    @Test
    void aDocumentWithoutDollarNamesIsAValue() {
        assertThat(key(X, "{x: {y: 1}}")).contains(json("{x: {y: 1}}"));
        assertThat(key(X, "{x: {$eq: {y: {z: 1}}}}")).contains(json("{x: {y: {z: 1}}}"));
    }

    @Test
    void andAtAnyDepthIsSearched() {
        assertThat(key(COMPOUND, "{$and: [{a: 1}, {'b.c': 2}]}")).contains(json("{a: 1, 'b.c': 2}"));
        assertThat(key(COMPOUND, "{a: 1, $and: [{$and: [{'b.c': {$eq: 2}}]}]}")).contains(json("{a: 1, 'b.c': 2}"));
        assertThat(key(COMPOUND, "{a: 1, $or: [{'b.c': 2}]}")).as("$or gives no AND-ed equality").isEmpty();
        assertThat(key(COMPOUND, "{a: 1, $nor: [{'b.c': 2}]}")).isEmpty();
        assertThat(key(COMPOUND, "{a: 1, $expr: {$eq: ['$b.c', 2]}}")).isEmpty();
    }

    @Test
    void aPathMatchedTwiceOrBelowAKeyFieldPinsNothing() {
        assertThat(key(X, "{x: 1, $and: [{x: 2}]}")).as("matched twice").isEmpty();
        assertThat(key(X, "{x: 1, $and: [{x: 1}]}")).as("matched twice, even with one value").isEmpty();
        assertThat(key(X, "{x: 1, 'x.y': 2}")).as("an equality below the key field").isEmpty();
        assertThat(key(COMPOUND, "{a: 1, b: {c: 2}, 'b.c': 2}")).as("an equality and one on its prefix").isEmpty();
        assertThat(key(X, "{x: 1, $and: [{x: {$gt: 0}}]}")).as("a range beside it is no second equality").contains(json("{x: 1}"));
    }

    @Test
    void aNestedKeyFieldIsFoundDottedOrInsideAnEqualityOnItsPrefix() {
        assertThat(key(COMPOUND, "{a: 1, 'b.c': 2}")).contains(json("{a: 1, 'b.c': 2}"));
        assertThat(key(COMPOUND, "{a: 1, b: {c: 2, d: 3}}")).contains(json("{a: 1, 'b.c': 2}"));
        assertThat(key(COMPOUND, "{a: 1, b: {$eq: {c: 2}}}")).contains(json("{a: 1, 'b.c': 2}"));
        assertThat(key(COMPOUND, "{a: 1, b: {d: 3}}")).as("the prefix's document lacks the field").isEmpty();
        assertThat(key(COMPOUND, "{a: 1, b: 7}")).isEmpty();
        assertThat(key(COMPOUND, "{a: 1, b: [{c: 2}]}")).as("an array on the way").isEmpty();
        assertThat(key(COMPOUND, "{a: 1, b: {c: [2]}}")).isEmpty();
        assertThat(key(COMPOUND, "{a: 1}")).isEmpty();
    }

    @Test
    void theHashedFieldIsHashedAndEqualitiesFromQueryKeepsItsValue() {
        BsonDocument expected = new BsonDocument("region", new BsonString("eu")).append("u.id", new BsonInt64(BsonHasher.hash64(new BsonInt32(42))));
        assertThat(key(HASHED, "{'u.id': 42, region: 'eu'}")).contains(expected);
        assertThat(key(HASHED, "{u: {id: 42}, region: {$eq: 'eu'}}")).contains(expected);
        assertThat(HASHED.equalitiesFromQuery(json("{'u.id': 42, region: 'eu'}"))).contains(json("{region: 'eu', 'u.id': 42}"));
        assertThat(HASHED.encode(expected)).isEqualTo(HASHED.keyOf(json("{region: 'eu', u: {id: 42}}")));
    }

    @Test
    void requireShardKeyFromQueryNamesWhatIsMissing() {
        assertThat(COMPOUND.requireShardKeyFromQuery(json("{'b.c': 2, a: {$eq: 1}}"))).isEqualTo(json("{a: 1, 'b.c': 2}"));
        assertThatThrownBy(() -> COMPOUND.requireShardKeyFromQuery(json("{a: 1}")))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.ShardKeyNotFound))
                .hasMessageContaining("does not contain shard key field 'b.c'");
        assertThatThrownBy(() -> COMPOUND.requireShardKeyFromQuery(json("{a: [1], 'b.c': 2}")))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.ShardKeyNotFound))
                .hasMessageContaining("field 'a'");
        assertThatThrownBy(() -> X.requireShardKeyFromQuery(json("{x: 1, $and: [{x: 2}]}")))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.ShardKeyNotFound))
                .hasMessageContaining("more than one equality");
    }
}
