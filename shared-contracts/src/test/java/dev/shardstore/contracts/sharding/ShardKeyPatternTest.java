package dev.shardstore.contracts.sharding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.bson.BsonOrder;
import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.hash.BsonHasher;
import dev.shardstore.contracts.keystring.KeyString;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonMaxKey;
import org.bson.BsonMinKey;
import org.bson.BsonNull;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Shard key patterns: MongoDB's validity rules, key extraction (dotted, missing, arrays, hashed) and key order. */
class ShardKeyPatternTest {
    private static final ShardKeyPattern COUNTRY_NAME = ShardKeyPattern.of(ShardingFixtures.COUNTRY_NAME_KEY);

    private static ShardKeyPattern pattern(String json) {
        return ShardKeyPattern.of(ExtendedJson.parse(json));
    }

    private static BsonDocument json(String json) {
        return ExtendedJson.parse(json);
    }

    @ParameterizedTest
    @ValueSource(strings = {"{x: 1}", "{x: 1.0}", "{x: {$numberLong: '1'}}", "{_id: 'hashed'}", "{country: 1, name: 1}",
            "{region: 1, _id: 'hashed'}", "{'a.b.c': 1}", "{h: 'hashed', b: 1}"})
    void acceptsRangedAndSingleHashedPatterns(String key) {
        ShardKeyPattern p = pattern(key);
        assertThat(p.pattern()).isEqualTo(json(key));
        assertThat(p.fields()).containsExactlyElementsOf(json(key).keySet());
        assertThat(p.size()).isEqualTo(json(key).size());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '"', value = {"{x: -1}|x", "{x: 2}|x", "{x: 0}|x", "{x: 0.5}|x", "{x: 'text'}|x", "{x: 'HASHED'}|x",
            "{x: true}|x", "{x: {a: 1}}|x", "{x: null}|x", "{x: 1, y: -1}|y", "{x: 'hashed', y: 'x'}|y"})
    void rejectsFieldValuesOtherThanOneOrHashedNamingKeyAndTheField(String key, String field) {
        assertThatThrownBy(() -> pattern(key))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.BadValue))
                .hasMessageContaining("'key'")
                .hasMessageContaining("'" + field + "'")
                .hasMessageContaining("must be 1 or \"hashed\"");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "$x", "a.$b", "a..b", ".a", "a.", "."})
    void rejectsInvalidFieldPathsNamingKeyAndTheField(String field) {
        assertThatThrownBy(() -> ShardKeyPattern.of(new BsonDocument(field, new BsonInt32(1))))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.BadValue))
                .hasMessageContaining("'key'")
                .hasMessageContaining("'" + field + "'");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "{_id: 'hashed'} | {x: 1}           | false",
            "{_id: 'hashed'} | {_id: 1, x: 1}   | true",
            "{x: 1}          | {_id: 1}         | true",
            "{x: 1}          | {x: -1, y: 1}    | true",
            "{x: 'hashed'}   | {x: 1}           | true",
            "{x: 1, y: 1}    | {x: 1}           | false",
            "{x: 1, y: 1}    | {y: 1, x: 1}     | false",
            "{x: 1, y: 1}    | {x: 1, y: 1, z: 1} | true",
            "{'a.b': 1}      | {a: 1}           | false"})
    void aUniqueIndexIsEnforceableOnlyWhenTheShardKeyFieldsLeadIt(String key, String index, boolean compatible) {
        assertThat(pattern(key).isUniqueIndexCompatible(ExtendedJson.parse(index))).isEqualTo(compatible);
    }

    @Test
    void rejectsAnEmptyPatternAndTwoHashedFieldsNamingKey() {
        assertThatThrownBy(() -> pattern("{}"))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.BadValue))
                .hasMessageContaining("'key'");
        assertThatThrownBy(() -> pattern("{a: 'hashed', b: 'hashed'}"))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.BadValue))
                .hasMessageContaining("'key'")
                .hasMessageContaining("at most one hashed");
        assertThatThrownBy(() -> ShardKeyPattern.of(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void patternIsCopiedInAndOut() {
        BsonDocument key = json("{x: 1}");
        ShardKeyPattern p = ShardKeyPattern.of(key);
        key.put("y", new BsonInt32(1));
        p.pattern().put("z", new BsonInt32(1));
        assertThat(p.fields()).containsExactly("x");
    }

    @Test
    void reportsTheHashedField() {
        assertThat(pattern("{x: 1}").hashedField()).isNull();
        assertThat(pattern("{x: 1}").isHashed()).isFalse();
        assertThat(pattern("{_id: 'hashed'}").hashedField()).isEqualTo("_id");
        assertThat(pattern("{_id: 'hashed'}").isHashedPrefix()).isTrue();
        assertThat(pattern("{region: 1, _id: 'hashed'}").hashedField()).isEqualTo("_id");
        assertThat(pattern("{region: 1, _id: 'hashed'}").isHashed()).isTrue();
        assertThat(pattern("{region: 1, _id: 'hashed'}").isHashedPrefix()).isFalse();
        assertThat(ShardKeyPattern.hashedValue()).isEqualTo(new BsonString("hashed"));
    }

    @Test
    void extractsFieldsInPatternOrderFollowingDottedPaths() {
        ShardKeyPattern p = pattern("{'user.address.zip': 1, kind: 1}");
        BsonDocument doc = json("{kind: 'b', other: 1, user: {name: 'n', address: {zip: '75001', city: 'Paris'}}}");
        assertThat(p.extractKey(doc)).isEqualTo(json("{'user.address.zip': '75001', kind: 'b'}"));
        assertThat(List.copyOf(p.extractKey(doc).keySet())).containsExactly("user.address.zip", "kind");
    }

    @ParameterizedTest
    @ValueSource(strings = {"{}", "{a: 1}", "{a: {c: 1}}", "{a: 5}", "{a: 'scalar'}", "{a: null}", "{a: {b: null}}"})
    void aMissingPathOrOneThroughAScalarIsNull(String document) {
        assertThat(pattern("{'a.b': 1}").extractKey(json(document))).isEqualTo(new BsonDocument("a.b", BsonNull.VALUE));
    }

    @ParameterizedTest
    @ValueSource(strings = {"{a: {b: [1, 2]}}", "{a: {b: []}}", "{a: [{b: 1}]}", "{a: []}"})
    void arraysOnTheKeyPathAreShardKeyNotFoundNamingThePath(String document) {
        assertThatThrownBy(() -> pattern("{'a.b': 1}").extractKey(json(document)))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.ShardKeyNotFound))
                .hasMessageContaining("'a.b'")
                .hasMessageContaining("array");
    }

    @Test
    void arraysInAHashedFieldAreShardKeyNotFoundToo() {
        assertThatThrownBy(() -> pattern("{_id: 'hashed'}").extractKey(json("{_id: [1]}")))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.ShardKeyNotFound))
                .hasMessageContaining("'_id'");
    }

    @Test
    void theHashedFieldIsReplacedByBsonHasherHash64() {
        ShardKeyPattern p = pattern("{region: 1, 'u.id': 'hashed'}");
        BsonDocument doc = json("{region: 'eu', u: {id: {$oid: '65f1c0ffee0000000000abcd'}}}");
        long hash = BsonHasher.hash64(new BsonObjectId(new ObjectId("65f1c0ffee0000000000abcd")));
        assertThat(p.extractKey(doc)).isEqualTo(new BsonDocument("region", new BsonString("eu")).append("u.id", new BsonInt64(hash)));
        assertThat(p.keyOf(doc)).isEqualTo(KeyString.encode(List.of(new BsonString("eu"), new BsonInt64(hash)),
                p.ordering()));
    }

    @Test
    void hashedValuesAreMongoDbsPublishedHashes() {
        // Expected values from MongoDB's BSONElementHasher tests (as in BsonHasherTest).
        ShardKeyPattern p = pattern("{_id: 'hashed'}");
        assertThat(p.extractKey(json("{_id: 42}"))).isEqualTo(new BsonDocument("_id", new BsonInt64(-944302157085130861L)));
        assertThat(p.extractKey(json("{_id: 42.123}"))).isEqualTo(new BsonDocument("_id", new BsonInt64(-944302157085130861L)));
        assertThat(p.extractKey(json("{_id: 'abc'}"))).isEqualTo(new BsonDocument("_id", new BsonInt64(8478485326885698097L)));
        assertThat(p.extractKey(json("{other: 1}")))
                .as("a missing hashed field hashes as null")
                .isEqualTo(new BsonDocument("_id", new BsonInt64(2338878944348059895L)));
    }

    @Test
    void keyOfIsTheKeyStringOfTheExtractedKey() {
        BsonDocument doc = json("{name: 'Paris', country: 'FR', pop: 2100000}");
        assertThat(COUNTRY_NAME.keyOf(doc))
                .isEqualTo(KeyString.encode(List.of(new BsonString("FR"), new BsonString("Paris")), COUNTRY_NAME.ordering()))
                .isEqualTo(COUNTRY_NAME.encode(json("{country: 'FR', name: 'Paris'}")));
        assertThat(COUNTRY_NAME.keyOf(json("{name: 1, country: 1.0}")))
                .as("equal numbers of different types make the same key")
                .isEqualTo(COUNTRY_NAME.keyOf(json("{name: {$numberLong: '1'}, country: 1}")));
    }

    @ParameterizedTest
    @ValueSource(strings = {"{name: 'Paris', country: 'FR'}", "{country: 'FR'}", "{country: 'FR', name: 'Paris', pop: 1}", "{x: 1}", "{}"})
    void encodeRejectsKeysNotInPatternShape(String key) {
        assertThatThrownBy(() -> COUNTRY_NAME.encode(json(key)))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.BadValue))
                .hasMessageContaining("does not match the shard key pattern");
    }

    @Test
    void keyOrderIsTheBsonOrderOfTheExtractedKeys() {
        Random random = new Random(20261121);
        ShardKeyPattern p = pattern("{a: 1, 'b.c': 1}");
        List<BsonDocument> docs = new ArrayList<>();
        for (int i = 0; i < 400; i++) {
            BsonDocument doc = new BsonDocument();
            if (random.nextInt(8) != 0) {
                doc.append("a", randomValue(random));
            }
            if (random.nextInt(8) != 0) {
                doc.append("b", random.nextInt(6) == 0 ? randomValue(random) : new BsonDocument("c", randomValue(random)));
            }
            docs.add(doc);
        }
        for (int i = 0; i < 4000; i++) {
            BsonDocument d1 = docs.get(random.nextInt(docs.size()));
            BsonDocument d2 = docs.get(random.nextInt(docs.size()));
            BsonDocument k1 = p.extractKey(d1);
            BsonDocument k2 = p.extractKey(d2);
            assertThat(Integer.signum(Arrays.compareUnsigned(p.keyOf(d1), p.keyOf(d2))))
                    .as("%s vs %s", k1.toJson(), k2.toJson())
                    .isEqualTo(Integer.signum(BsonOrder.compare(k1, k2)));
        }
    }

    @Test
    void globalMinAndMaxEncodeBelowAndAboveEveryKey() {
        Random random = new Random(42);
        ShardKeyPattern p = pattern("{a: 1, b: 1}");
        assertThat(p.globalMin()).isEqualTo(json("{a: {$minKey: 1}, b: {$minKey: 1}}"));
        assertThat(p.globalMax()).isEqualTo(json("{a: {$maxKey: 1}, b: {$maxKey: 1}}"));
        byte[] min = p.encode(p.globalMin());
        byte[] max = p.encode(p.globalMax());
        List<BsonDocument> keys = new ArrayList<>(List.of(json("{a: {$minKey: 1}, b: null}"), json("{a: {$maxKey: 1}, b: null}"),
                json("{a: null, b: {$maxKey: 1}}"), json("{a: {$minKey: 1}, b: {$maxKey: 1}}")));
        for (int i = 0; i < 300; i++) {
            keys.add(new BsonDocument("a", randomValue(random)).append("b", randomValue(random)));
        }
        for (BsonDocument key : keys) {
            // the random values include MinKey and MaxKey, so a key may be a global bound itself
            assertThat(Integer.signum(Arrays.compareUnsigned(min, p.encode(key)))).as(key.toJson())
                    .isEqualTo(key.equals(p.globalMin()) ? 0 : -1);
            assertThat(Integer.signum(Arrays.compareUnsigned(p.encode(key), max))).as(key.toJson())
                    .isEqualTo(key.equals(p.globalMax()) ? 0 : -1);
            assertThat(p.isGlobalMin(key)).as(key.toJson()).isEqualTo(key.equals(p.globalMin()));
            assertThat(p.isGlobalMax(key)).as(key.toJson()).isEqualTo(key.equals(p.globalMax()));
        }
    }

    @Test
    void aHashedFieldsExtremeIsItsOwnMinKeyOrMaxKeyNotAHash() {
        ShardKeyPattern p = pattern("{region: 1, 'u.id': 'hashed'}");
        assertThat(p.isGlobalMax(json("{region: {$maxKey: 1}, 'u.id': {$maxKey: 1}}"))).isTrue();
        assertThat(p.isGlobalMin(json("{region: {$minKey: 1}, 'u.id': {$minKey: 1}}"))).isTrue();
        assertThat(p.isGlobalMax(json("{region: {$maxKey: 1}, 'u.id': {$numberLong: '9223372036854775807'}}"))).isFalse();
        assertThat(p.isGlobalMin(json("{region: {$minKey: 1}, 'u.id': {$numberLong: '-9223372036854775808'}}"))).isFalse();
    }

    @Test
    void requireShardKeyFromQueryTakesTheKeyFieldsInPatternOrderHashingTheHashedOne() {
        ShardKeyPattern p = pattern("{region: 1, 'u.id': 'hashed'}");
        BsonDocument key = p.requireShardKeyFromQuery(json("{'u.id': 42, other: true, region: 'eu'}"));
        assertThat(key).isEqualTo(new BsonDocument("region", new BsonString("eu")).append("u.id", new BsonInt64(-944302157085130861L)));
        assertThat(p.encode(key)).isEqualTo(p.keyOf(json("{region: 'eu', u: {id: 42}}")));
        assertThat(COUNTRY_NAME.requireShardKeyFromQuery(json("{name: 'Paris', country: 'FR'}")))
                .isEqualTo(COUNTRY_NAME.extractKey(json("{country: 'FR', name: 'Paris'}")));
    }

    @Test
    void requireShardKeyFromQueryNamesTheFirstMissingField() {
        assertThatThrownBy(() -> COUNTRY_NAME.requireShardKeyFromQuery(json("{name: 'Paris'}")))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.ShardKeyNotFound))
                .hasMessageContaining("'country'");
        assertThatThrownBy(() -> COUNTRY_NAME.requireShardKeyFromQuery(json("{country: 'FR'}")))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.ShardKeyNotFound))
                .hasMessageContaining("'name'");
    }

    /** A mix of the types shard keys hold, with many ties across numeric types. */
    private static BsonValue randomValue(Random random) {
        return switch (random.nextInt(9)) {
            case 0 -> new BsonInt32(random.nextInt(7) - 3);
            case 1 -> new BsonInt64(random.nextInt(7) - 3);
            case 2 -> new BsonDouble((random.nextInt(13) - 6) / 2.0);
            case 3 -> new BsonString(List.of("", "a", "ab", "b", "FR", "fr").get(random.nextInt(6)));
            case 4 -> BsonNull.VALUE;
            case 5 -> BsonBoolean.valueOf(random.nextBoolean());
            case 6 -> new BsonObjectId(new ObjectId(new java.util.Date(1_700_000_000_000L + random.nextInt(3) * 1000L), random.nextInt(3)));
            case 7 -> new BsonDocument("k", new BsonInt32(random.nextInt(3)));
            default -> random.nextBoolean() ? new BsonMinKey() : new BsonMaxKey();
        };
    }

    @Test
    void documentKeyHoldsTheShardKeyValuesUnhashedThenTheId() {
        BsonDocument doc = json("{_id: 7, name: 'Lyon', pop: 5, country: 'FR', a: {b: 3}}");

        assertThat(COUNTRY_NAME.documentKey(doc)).isEqualTo(json("{country: 'FR', name: 'Lyon', _id: 7}"));
        assertThat(pattern("{_id: 'hashed'}").documentKey(doc)).isEqualTo(json("{_id: 7}"));
        assertThat(pattern("{country: 1, _id: 'hashed'}").documentKey(doc)).isEqualTo(json("{country: 'FR', _id: 7}"));
        assertThat(pattern("{'a.b': 1, missing: 1}").documentKey(doc)).isEqualTo(json("{'a.b': 3, missing: null, _id: 7}"));
        assertThatThrownBy(() -> COUNTRY_NAME.documentKey(json("{_id: 1, country: ['FR']}")))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.ShardKeyNotFound));
    }
}
