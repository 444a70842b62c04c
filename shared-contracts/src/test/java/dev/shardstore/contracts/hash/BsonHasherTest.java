package dev.shardstore.contracts.hash;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.Stream;
import org.bson.BsonArray;
import org.bson.BsonBinary;
import org.bson.BsonBinarySubType;
import org.bson.BsonBoolean;
import org.bson.BsonDateTime;
import org.bson.BsonDbPointer;
import org.bson.BsonDecimal128;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonJavaScript;
import org.bson.BsonJavaScriptWithScope;
import org.bson.BsonMaxKey;
import org.bson.BsonMinKey;
import org.bson.BsonNull;
import org.bson.BsonObjectId;
import org.bson.BsonRegularExpression;
import org.bson.BsonString;
import org.bson.BsonSymbol;
import org.bson.BsonUndefined;
import org.bson.BsonValue;
import org.bson.types.Decimal128;
import org.bson.types.ObjectId;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * MongoDB's published test vectors for its hashed-index hash (the expected values of MongoDB's
 * BSONElementHasher unit tests, seed 0): our hash must give the same 64-bit value for the same BSON value.
 */
class BsonHasherTest {
    private static final byte[] SIX_BYTES = {0, 1, 2, 3, 4, 6};
    private static final byte[] UUID_BYTES = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
    private static final ObjectId OID = new ObjectId("010203040506070809101112");

    static Stream<Arguments> mongoVectors() {
        return Stream.of(
                Arguments.of(new BsonInt32(42), -944302157085130861L),
                Arguments.of(new BsonDouble(42.123), -944302157085130861L),
                Arguments.of(new BsonInt64(42), -944302157085130861L),
                Arguments.of(new BsonInt32(0), 4854801880128277513L),
                Arguments.of(new BsonDouble(0.456), 4854801880128277513L),
                Arguments.of(new BsonDouble(Double.NaN), 4854801880128277513L),
                Arguments.of(new BsonInt32(1), 5902408780260971510L),
                Arguments.of(new BsonDouble(1.987), 5902408780260971510L),
                Arguments.of(new BsonInt32(-1), 1140205862565771219L),
                Arguments.of(new BsonDouble(-1.789), 1140205862565771219L),
                Arguments.of(new BsonInt32(Integer.MIN_VALUE), 6165898260261354870L),
                Arguments.of(new BsonDouble(Integer.MIN_VALUE), 6165898260261354870L),
                Arguments.of(new BsonInt32(Integer.MAX_VALUE), 1143184177162245883L),
                Arguments.of(new BsonDouble(Double.MAX_VALUE), 921523596458303250L),
                Arguments.of(new BsonInt64(Long.MAX_VALUE), 921523596458303250L),
                Arguments.of(new BsonDouble(-Double.MAX_VALUE), 4532067210535695462L),
                Arguments.of(new BsonInt64(Long.MIN_VALUE), 4532067210535695462L),
                Arguments.of(new BsonMinKey(), 7961148599568647290L),
                Arguments.of(new BsonMaxKey(), 5504842513779440750L),
                Arguments.of(new BsonUndefined(), 40158834000849533L),
                Arguments.of(BsonNull.VALUE, 2338878944348059895L),
                Arguments.of(new BsonString("abc"), 8478485326885698097L),
                Arguments.of(new BsonSymbol("abc"), 8478485326885698097L),
                Arguments.of(new BsonString(""), 2049396243249673340L),
                Arguments.of(new BsonDocument("a", new BsonString("abc")).append("b", new BsonInt64(123)), 4771603801758380216L),
                Arguments.of(new BsonDocument(), 7980500913326740417L),
                Arguments.of(new BsonArray(List.of(new BsonString("bar"), new BsonString("baz"), new BsonString("qux"))), -2938911267422831539L),
                Arguments.of(new BsonArray(), 8849948234993459283L),
                Arguments.of(new BsonBinary(BsonBinarySubType.BINARY, SIX_BYTES), 7252465090394235301L),
                Arguments.of(new BsonBinary(BsonBinarySubType.USER_DEFINED, SIX_BYTES), 5736670452907618262L),
                Arguments.of(new BsonBinary(BsonBinarySubType.UUID_STANDARD, UUID_BYTES), 6084661258071355978L),
                Arguments.of(new BsonObjectId(OID), -5588663249627035708L),
                Arguments.of(new BsonObjectId(new ObjectId("000000000000000000000000")), -4293118519463489418L),
                Arguments.of(BsonBoolean.TRUE, 6405873908747105701L),
                Arguments.of(BsonBoolean.FALSE, 6289544573401934092L),
                Arguments.of(new BsonDateTime(0x5566778811223344L), 4476222765095560467L),
                Arguments.of(new BsonDateTime(0), -1178696894582842035L),
                Arguments.of(new BsonRegularExpression("mongodb"), -7275792090268217043L),
                Arguments.of(new BsonRegularExpression(".*", "i"), 7095855029187981886L),
                Arguments.of(new BsonDbPointer("c", OID), 940175826736461384L),
                Arguments.of(new BsonDbPointer("db.c", OID), 2426768198104018194L),
                Arguments.of(new BsonJavaScript("func f() { return 1; }"), 6861638109178014270L),
                Arguments.of(new BsonJavaScriptWithScope("func f() { return 1; }", new BsonDocument("c", BsonBoolean.TRUE)), 501342939894575968L));
    }

    @ParameterizedTest(name = "{0} hashes to {1}")
    @MethodSource("mongoVectors")
    void matchesMongoDbsTestVectors(BsonValue value, long expected) {
        assertThat(BsonHasher.hash64(value)).isEqualTo(expected);
    }

    static Stream<Arguments> sameHash() {
        return Stream.of(
                Arguments.of(new BsonDocument("a", new BsonInt32(3)).append("b", new BsonArray(List.of(new BsonDouble(3.1), new BsonDocument("c", new BsonInt32(3))))),
                        new BsonDocument("a", new BsonDouble(3.1)).append("b", new BsonArray(List.of(new BsonInt32(3), new BsonDocument("c", new BsonDouble(3.0)))))),
                Arguments.of(new BsonDecimal128(Decimal128.parse("42.9")), new BsonInt32(42)),
                Arguments.of(new BsonDecimal128(Decimal128.parse("-0")), new BsonInt32(0)),
                Arguments.of(new BsonDouble(Double.POSITIVE_INFINITY), new BsonInt64(Long.MAX_VALUE)));
    }

    @ParameterizedTest
    @MethodSource("sameHash")
    void numbersAreSquashedToLongsEverywhereInTheValue(BsonValue a, BsonValue b) {
        assertThat(BsonHasher.hash64(a)).isEqualTo(BsonHasher.hash64(b));
    }

    @ParameterizedTest
    @MethodSource("differentHash")
    void structurallyDifferentValuesHashDifferently(BsonValue a, BsonValue b) {
        assertThat(BsonHasher.hash64(a)).isNotEqualTo(BsonHasher.hash64(b));
    }

    static Stream<Arguments> differentHash() {
        return Stream.of(
                Arguments.of(new BsonString("3"), new BsonRegularExpression("3")),
                Arguments.of(new BsonDocument("0", new BsonInt32(0)).append("1", new BsonInt32(1)), new BsonArray(List.of(new BsonInt32(0), new BsonInt32(1)))),
                Arguments.of(new BsonDocument("a", new BsonDocument()).append("b", new BsonInt32(1)), new BsonDocument("a", new BsonDocument("b", new BsonInt32(1)))),
                Arguments.of(new BsonMinKey(), new BsonMaxKey()),
                Arguments.of(new BsonInt64(Long.MAX_VALUE), new BsonDouble(Long.MAX_VALUE / 2)));
    }
}
