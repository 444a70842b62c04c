package dev.shardstore.contracts.bson;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.keystring.BsonGenerators;
import dev.shardstore.contracts.testing.RandomCases;
import java.util.Arrays;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonBinary;
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
import org.bson.BsonTimestamp;
import org.bson.BsonType;
import org.bson.BsonUndefined;
import org.bson.BsonValue;
import org.bson.io.BasicOutputBuffer;
import org.bson.types.Decimal128;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;

/**
 * BsonOrder against MongoDB's documented comparison/sort order ("Comparison/Sort Order" in the
 * MongoDB manual) and the server's {@code compareElementValues}.
 */
class BsonOrderTest {

    /** Groups in ascending order; values within a group are equal. */
    private static final List<List<BsonValue>> LADDER = List.of(
            List.of(new BsonMinKey()),
            List.of(new BsonUndefined()),
            List.of(BsonNull.VALUE),
            List.of(new BsonDouble(Double.NaN), new BsonDecimal128(Decimal128.NaN)),
            List.of(new BsonDouble(Double.NEGATIVE_INFINITY), new BsonDecimal128(Decimal128.NEGATIVE_INFINITY)),
            List.of(new BsonInt64(Long.MIN_VALUE), new BsonDouble(-0x1p63)),
            List.of(new BsonInt32(-1), new BsonDecimal128(Decimal128.parse("-1.0"))),
            List.of(new BsonInt32(0), new BsonDouble(-0.0), new BsonDecimal128(Decimal128.NEGATIVE_ZERO)),
            List.of(new BsonDecimal128(Decimal128.parse("0.1"))),
            List.of(new BsonDouble(0.1)),
            List.of(new BsonInt32(1), new BsonInt64(1), new BsonDouble(1.0), new BsonDecimal128(Decimal128.parse("1.00"))),
            List.of(new BsonInt64(Long.MAX_VALUE)),
            List.of(new BsonDouble(0x1p63)),
            List.of(new BsonDouble(Double.POSITIVE_INFINITY), new BsonDecimal128(Decimal128.POSITIVE_INFINITY)),
            List.of(new BsonString(""), new BsonSymbol("")),
            List.of(new BsonString("A")),
            List.of(new BsonString("a"), new BsonSymbol("a")),
            List.of(new BsonString("a\u0000")),
            List.of(new BsonString("ab")),
            List.of(new BsonString("\uD800")),
            List.of(new BsonString("\uFFFF")),
            List.of(new BsonString("\uD83D\uDE00")),
            List.of(new BsonDocument()),
            List.of(new BsonDocument("a", new BsonInt32(1)), new BsonDocument("a", new BsonDouble(1.0))),
            List.of(new BsonDocument("a", new BsonInt32(1)).append("b", BsonNull.VALUE)),
            List.of(new BsonDocument("b", new BsonInt32(0))),
            List.of(new BsonDocument("a", new BsonString(""))),
            List.of(new BsonArray()),
            List.of(new BsonArray(List.of(new BsonInt32(1)))),
            List.of(new BsonArray(List.of(new BsonInt32(1), new BsonInt32(0)))),
            List.of(new BsonArray(List.of(new BsonInt32(2)))),
            List.of(new BsonBinary((byte) 0xFF, new byte[] {1})),
            List.of(new BsonBinary((byte) 0, new byte[] {0, 0})),
            List.of(new BsonBinary((byte) 0, new byte[] {0, (byte) 0x80})),
            List.of(new BsonBinary((byte) 1, new byte[] {0, 0})),
            List.of(new BsonObjectId(new ObjectId("000000000000000000000000"))),
            List.of(new BsonObjectId(new ObjectId("ff0000000000000000000000"))),
            List.of(BsonBoolean.FALSE),
            List.of(BsonBoolean.TRUE),
            List.of(new BsonDateTime(Long.MIN_VALUE)),
            List.of(new BsonDateTime(0)),
            List.of(new BsonTimestamp(0)),
            List.of(new BsonTimestamp(Long.MAX_VALUE)),
            List.of(new BsonTimestamp(-1)),
            List.of(new BsonRegularExpression("a", "")),
            List.of(new BsonRegularExpression("a", "i")),
            List.of(new BsonRegularExpression("b", "")),
            List.of(new BsonDbPointer("ab", new ObjectId("000000000000000000000000"))),
            List.of(new BsonDbPointer("ab", new ObjectId("ff0000000000000000000000"))),
            List.of(new BsonDbPointer("zz", new ObjectId("000000000000000000000000"))),
            List.of(new BsonDbPointer("é", new ObjectId("000000000000000000000000"))),
            List.of(new BsonDbPointer("abc", new ObjectId("000000000000000000000000"))),
            List.of(new BsonJavaScript("")),
            List.of(new BsonJavaScript("x")),
            List.of(new BsonJavaScriptWithScope("", new BsonDocument())),
            List.of(new BsonJavaScriptWithScope("", new BsonDocument("a", new BsonInt32(1)))),
            List.of(new BsonJavaScriptWithScope("x", new BsonDocument())),
            List.of(new BsonMaxKey()));

    @Test
    void followsMongoDbComparisonOrder() {
        for (int i = 0; i < LADDER.size(); i++) {
            for (int j = 0; j < LADDER.size(); j++) {
                for (BsonValue a : LADDER.get(i)) {
                    for (BsonValue b : LADDER.get(j)) {
                        assertThat(Integer.signum(BsonOrder.compare(a, b)))
                                .as("%s vs %s", a, b)
                                .isEqualTo(Integer.compare(i, j));
                    }
                }
            }
        }
    }

    @Test
    void typeRanksAreMongoDbCanonicalTypes() {
        assertThat(BsonOrder.typeRank(BsonType.INT32)).isEqualTo(BsonOrder.typeRank(BsonType.DECIMAL128));
        assertThat(BsonOrder.typeRank(BsonType.SYMBOL)).isEqualTo(BsonOrder.typeRank(BsonType.STRING));
        assertThat(BsonOrder.typeRank(BsonType.MIN_KEY)).isEqualTo(-1);
        assertThat(BsonOrder.typeRank(BsonType.MAX_KEY)).isEqualTo(127);
    }

    /** Two strings, compared in this order. */
    private record TwoStrings(String a, String b) {}

    /**
     * MongoDB compares strings as the UTF-8 bytes the driver wrote: BsonOrder must agree, lone surrogates too
     * (seeded random strings, {@link RandomCases}).
     */
    @Test
    void stringOrderIsTheByteOrderOfTheBsonLibrarysUtf8() {
        RandomCases.check(2000, r -> new TwoStrings(BsonGenerators.string(r), BsonGenerators.string(r)),
                strings -> assertThat(Integer.signum(BsonOrder.compareStrings(strings.a(), strings.b())))
                        .isEqualTo(Integer.signum(Arrays.compareUnsigned(utf8(strings.a()), utf8(strings.b())))));
    }

    private static byte[] utf8(String s) {
        BasicOutputBuffer out = new BasicOutputBuffer();
        out.writeString(s); // int32 length, bytes, NUL
        byte[] bytes = out.toByteArray();
        return Arrays.copyOfRange(bytes, Integer.BYTES, bytes.length - 1);
    }
}
