package dev.shardstore.contracts.keystring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.bson.BsonOrder;
import dev.shardstore.contracts.keystring.Ordering.Direction;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;
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
import org.bson.BsonUndefined;
import org.bson.BsonValue;
import org.bson.types.Decimal128;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Hand-picked edge cases: BsonOrder and KeyString must both give the expected order. */
class KeyStringTest {

    static Stream<Arguments> edgeCases() {
        return Stream.of(
                // numbers: specials and zeros
                less("NaN below -Infinity", dbl(Double.NaN), dbl(Double.NEGATIVE_INFINITY)),
                equal("double NaN == decimal NaN", dbl(Double.NaN), dec("NaN")),
                equal("decimal -NaN == double NaN", dec("-NaN"), dbl(Double.NaN)),
                equal("-0.0 == int 0", dbl(-0.0), int32(0)),
                equal("decimal -0E+3 == 0.0", dec("-0E+3"), dbl(0.0)),
                equal("decimal 0E-6176 == long 0", dec("0E-6176"), int64(0)),
                less("-Infinity below decimal -9.99...E+6144", dbl(Double.NEGATIVE_INFINITY),
                        dec("-9.999999999999999999999999999999999E+6144")),
                equal("decimal -Infinity == double -Infinity", dec("-Infinity"), dbl(Double.NEGATIVE_INFINITY)),
                less("decimal max below +Infinity", dec("9.999999999999999999999999999999999E+6144"),
                        dbl(Double.POSITIVE_INFINITY)),
                // numbers: integers against doubles around 2^53, 2^63, 2^64
                greater("long 2^53+1 above double 2^53", int64((1L << 53) + 1), dbl(0x1p53)),
                equal("long 2^53 == double 2^53", int64(1L << 53), dbl(0x1p53)),
                less("Long.MAX_VALUE below double 9.223372036854775807E18 (= 2^63)", int64(Long.MAX_VALUE),
                        dbl(9.223372036854775807E18)),
                equal("Long.MIN_VALUE == double -2^63", int64(Long.MIN_VALUE), dbl(-0x1p63)),
                less("-2^63-1 (decimal) below Long.MIN_VALUE", dec("-9223372036854775809"), int64(Long.MIN_VALUE)),
                less("2^64-1 (decimal) below double 2^64", dec("18446744073709551615"), dbl(0x1p64)),
                less("2^64-0.5 (decimal) below 2^64", dec("18446744073709551615.5"), dec("18446744073709551616")),
                equal("decimal 1.8446744073709551616E+19 == double 2^64", dec("1.8446744073709551616E+19"), dbl(0x1p64)),
                less("int 255 below int 256 (one more byte)", int32(255), int32(256)),
                less("-256 below -255", int32(-256), int32(-255)),
                // numbers: decimal128 against double and int
                equal("decimal 1.00 == int 1 == double 1.0", dec("1.00"), dbl(1.0)),
                equal("decimal 1E+2 == long 100", dec("1E+2"), int64(100)),
                less("decimal 0.1 below double 0.1", dec("0.1"), dbl(0.1)),
                greater("decimal 0.3 above double 0.3", dec("0.3"), dbl(0.3)),
                equal("decimal 0.5 == double 0.5", dec("0.5"), dbl(0.5)),
                less("-1.5 below -1.25", dbl(-1.5), dec("-1.25")),
                less("1 below 1.000000000000000000000000000000001", int32(1), dec("1.000000000000000000000000000000001")),
                less("0.99999999999999999 below 1", dec("0.99999999999999999"), int32(1)),
                less("decimal 1E-6176 below Double.MIN_VALUE", dec("1E-6176"), dbl(Double.MIN_VALUE)),
                less("-Double.MIN_VALUE below decimal -1E-6176", dbl(-Double.MIN_VALUE), dec("-1E-6176")),
                greater("decimal 1E+6144 above Double.MAX_VALUE", dec("1E+6144"), dbl(Double.MAX_VALUE)),
                // brackets
                less("MinKey below Undefined", new BsonMinKey(), new BsonUndefined()),
                less("Undefined below null", new BsonUndefined(), BsonNull.VALUE),
                less("null below NaN", BsonNull.VALUE, dbl(Double.NaN)),
                less("MinKey below empty string", new BsonMinKey(), str("")),
                less("null below empty string", BsonNull.VALUE, str("")),
                less("+Infinity below empty string", dbl(Double.POSITIVE_INFINITY), str("")),
                // strings
                less("'a' below 'a\\0'", str("a"), str("a\u0000")),
                less("'a\\0' below 'a\\1'", str("a\u0000"), str("a\u0001")),
                less("'a\\1' below 'a\\2'", str("a\u0001"), str("a\u0002")),
                less("'a\\0' below 'a\\0\\0'", str("a\u0000"), str("a\u0000\u0000")),
                equal("Symbol == String", new BsonSymbol("x"), str("x")),
                less("'Z' below 'a' (no collation)", str("Z"), str("a")),
                less("U+FFFF below U+10000", str("\uFFFF"), str("\uD800\uDC00")),
                less("U+E000 below U+1F600", str("\uE000"), str("\uD83D\uDE00")),
                less("lone surrogate U+D800 below U+E000", str("\uD800"), str("\uE000")),
                less("lone surrogate below a pair starting with it", str("\uD800x"), str("\uD800\uDC00")),
                less("highest string below empty document", str("\uDBFF\uDFFF"), new BsonDocument()),
                // documents
                less("{} below {a: MinKey}", new BsonDocument(), doc("a", new BsonMinKey())),
                greater("{a: 'x'} above {b: 1}: type bracket before field name", doc("a", str("x")), doc("b", int32(1))),
                less("{a: 1} below {b: 1}: field name before value", doc("a", int32(1)), doc("b", int32(1))),
                less("{a: 2} below {b: 1}", doc("a", int32(2)), doc("b", int32(1))),
                less("{a: 1} below {a: 1, b: 0}: shorter first", doc("a", int32(1)), doc("a", int32(1)).append("b", int32(0))),
                less("{a: 1, b: 2} below {a: 2}", doc("a", int32(1)).append("b", int32(2)), doc("a", int32(2))),
                equal("{a: 1} == {a: 1.0}", doc("a", int32(1)), doc("a", dbl(1.0))),
                less("{'': 5} below {a: 1}", doc("", int32(5)), doc("a", int32(1))),
                less("{a: 1} below {'a\\0': 1}", doc("a", int32(1)), doc("a\u0000", int32(1))),
                less("{a: {b: 1}} below {a: {b: 1, c: 1}}", doc("a", doc("b", int32(1))),
                        doc("a", doc("b", int32(1)).append("c", int32(1)))),
                less("{a: {}} below {a: []}", doc("a", new BsonDocument()), doc("a", new BsonArray())),
                less("document below empty array", doc("z", new BsonMaxKey()), new BsonArray()),
                // arrays
                less("[] below [MinKey]", new BsonArray(), arr(new BsonMinKey())),
                less("[1, 2] below [1, 2, 0]", arr(int32(1), int32(2)), arr(int32(1), int32(2), int32(0))),
                less("[1, 'a'] below [1, {}]", arr(int32(1), str("a")), arr(int32(1), new BsonDocument())),
                less("[[1]] below [[1, 1]]", arr(arr(int32(1))), arr(arr(int32(1), int32(1)))),
                less("[[1, 1]] below [[2]]", arr(arr(int32(1), int32(1))), arr(arr(int32(2)))),
                equal("[1, [2.0]] == [1.0, [2]]", arr(int32(1), arr(dbl(2.0))), arr(dbl(1.0), arr(int32(2)))),
                less("array below BinData", arr(new BsonMaxKey()), bin(0, new byte[0])),
                // BinData, ObjectId, Boolean, Date, Timestamp
                less("BinData length before subtype", bin(0xFF, new byte[] {9}), bin(0, new byte[] {0, 0})),
                less("BinData length before content", bin(0, new byte[] {(byte) 0xFF}), bin(0, new byte[] {0, 0})),
                less("BinData subtype before content", bin(0, new byte[] {(byte) 0xFF}), bin(1, new byte[] {0})),
                less("BinData bytes unsigned", bin(0, new byte[] {0x7F}), bin(0, new byte[] {(byte) 0x80})),
                less("ObjectId bytes unsigned", oid("7f0000000000000000000000"), oid("800000000000000000000000")),
                less("false below true", BsonBoolean.FALSE, BsonBoolean.TRUE),
                less("Date -1 below Date 0 (signed)", new BsonDateTime(-1), new BsonDateTime(0)),
                less("Date MIN below Date MAX", new BsonDateTime(Long.MIN_VALUE), new BsonDateTime(Long.MAX_VALUE)),
                less("Timestamp 2^63-1 below 2^63 (unsigned)", new BsonTimestamp(Long.MAX_VALUE), new BsonTimestamp(Long.MIN_VALUE)),
                less("Timestamp (t=1) below Timestamp (t=2, i=0)", new BsonTimestamp(1, 99), new BsonTimestamp(2, 0)),
                less("Date below Timestamp", new BsonDateTime(Long.MAX_VALUE), new BsonTimestamp(0)),
                // RegEx, DBPointer, JavaScript
                less("RegEx by pattern first", new BsonRegularExpression("a", "m"), new BsonRegularExpression("b", "")),
                less("RegEx then by options", new BsonRegularExpression("a", "i"), new BsonRegularExpression("a", "m")),
                less("DBPointer: shorter namespace first", ptr("b"), ptr("aa")),
                greater("DBPointer: 'é' above 'ab' (same UTF-8 length, bytes)", ptr("é"), ptr("ab")),
                less("JavaScript below JavaScript with scope", new BsonJavaScript("z"), cws("", new BsonDocument())),
                less("code with scope: code first", cws("a", doc("z", int32(1))), cws("b", new BsonDocument())),
                less("code with scope: then scope", cws("a", doc("x", int32(1))), cws("a", doc("x", int32(2)))),
                less("code with scope below MaxKey", cws("z", doc("z", new BsonMaxKey())), new BsonMaxKey()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("edgeCases")
    void ordersEdgeCaseAsBsonOrderAndMongoDb(String description, BsonValue a, BsonValue b, int expected) {
        assertThat(Integer.signum(BsonOrder.compare(a, b))).as("BsonOrder").isEqualTo(expected);
        assertThat(Integer.signum(BsonOrder.compare(b, a))).as("BsonOrder reversed").isEqualTo(-expected);
        byte[] x = KeyString.encode(a);
        byte[] y = KeyString.encode(b);
        assertThat(Integer.signum(KeyString.compare(x, y))).as("KeyString").isEqualTo(expected);
        if (expected == 0) {
            assertThat(x).as("equal values encode identically").isEqualTo(y);
        }
    }

    /** The format is persistent (stored keys): these bytes must not change by accident. */
    @Test
    void encodesToTheDocumentedBytes() {
        assertThat(hex(int32(1))).isEqualTo("2c0100");
        assertThat(hex(int64(-1))).isEqualTo("28feff");
        assertThat(hex(dbl(1.0))).isEqualTo("2c0100");
        assertThat(hex(int32(256))).isEqualTo("2d010000");
        assertThat(hex(dbl(1.5))).isEqualTo("2c013300");
        assertThat(hex(dbl(0.5))).isEqualTo("2b80003300");
        assertThat(hex(dec("1E+20"))).isEqualTo("3480150b00");
        assertThat(hex(dbl(-0.0))).isEqualTo("2a");
        assertThat(hex(dbl(Double.NaN))).isEqualTo("1e");
        assertThat(hex(str("ab"))).isEqualTo("3c616200");
        assertThat(hex(str("\u0000\u0001"))).isEqualTo("3c0101010200");
        assertThat(hex(doc("a", int32(1)))).isEqualTo("461e61002c010000");
        assertThat(hex(arr(BsonBoolean.TRUE))).isEqualTo("506e0100");
        assertThat(hex(new BsonMinKey())).isEqualTo("0a");
        assertThat(hex(new BsonMaxKey())).isEqualTo("f0");
    }

    @Test
    void compoundKeyIsTheConcatenationWithDescendingComponentsInverted() {
        byte[] a = KeyString.encode(int32(1));
        byte[] b = KeyString.encode(str("x"));
        byte[] invertedB = b.clone();
        for (int i = 0; i < invertedB.length; i++) {
            invertedB[i] = (byte) ~invertedB[i];
        }
        assertThat(KeyString.encode(List.of(int32(1), str("x")), Ordering.allAscending(2))).isEqualTo(concat(a, b));
        assertThat(KeyString.encode(List.of(int32(1), str("x")), Ordering.of(Direction.ASCENDING, Direction.DESCENDING)))
                .isEqualTo(concat(a, invertedB));
        assertThat(KeyString.encode(List.of(int32(1)), Ordering.allAscending(1))).isEqualTo(a);
    }

    @Test
    void descendingComponentSortsInReverse() {
        Ordering ordering = Ordering.of(Direction.ASCENDING, Direction.DESCENDING);
        byte[] oneB = KeyString.encode(List.of(int32(1), str("b")), ordering);
        byte[] oneA = KeyString.encode(List.of(int32(1), str("a")), ordering);
        byte[] oneAWithNul = KeyString.encode(List.of(int32(1), str("a\u0000")), ordering);
        byte[] twoZ = KeyString.encode(List.of(int32(2), str("z")), ordering);
        assertThat(Stream.of(twoZ, oneA, oneAWithNul, oneB).sorted(KeyString::compare))
                .containsExactly(oneB, oneAWithNul, oneA, twoZ);
    }

    @Test
    void minKeyAndMaxKeyBoundEveryValue() {
        List<BsonValue> samples = List.of(new BsonMinKey(), BsonNull.VALUE, dbl(Double.NaN), str(""), new BsonDocument(),
                arr(new BsonMaxKey()), bin(0, new byte[0]), BsonBoolean.TRUE, new BsonTimestamp(-1), new BsonMaxKey());
        for (BsonValue v : samples) {
            assertThat(KeyString.compare(KeyString.minKey(), KeyString.encode(v))).as("%s", v).isLessThanOrEqualTo(0);
            assertThat(KeyString.compare(KeyString.encode(v), KeyString.maxKey())).as("%s", v).isLessThanOrEqualTo(0);
        }
        assertThat(KeyString.minKey()).isEqualTo(KeyString.encode(new BsonMinKey()));
        assertThat(KeyString.maxKey()).isEqualTo(KeyString.encode(new BsonMaxKey()));
    }

    @Test
    void orderingBoundsAreMinKeyAndMaxKeyInEachDirection() {
        Ordering ordering = Ordering.of(Direction.ASCENDING, Direction.DESCENDING);
        assertThat(KeyString.minKey(ordering))
                .isEqualTo(KeyString.encode(List.of(new BsonMinKey(), new BsonMaxKey()), ordering));
        assertThat(KeyString.maxKey(ordering))
                .isEqualTo(KeyString.encode(List.of(new BsonMaxKey(), new BsonMinKey()), ordering));
        byte[] key = KeyString.encode(List.of(str("k"), int32(7)), ordering);
        assertThat(KeyString.compare(KeyString.minKey(ordering), key)).isNegative();
        assertThat(KeyString.compare(key, KeyString.maxKey(ordering))).isNegative();
    }

    @Test
    void rejectsMismatchedOrderingAndNullValues() {
        assertThatThrownBy(() -> KeyString.encode(List.of(int32(1)), Ordering.allAscending(2)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("1 components but the ordering 2");
        assertThatThrownBy(() -> KeyString.encode((BsonValue) null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> KeyString.encode(Arrays.asList(int32(1), null), Ordering.allAscending(2)))
                .isInstanceOf(NullPointerException.class);
    }

    @Test
    void returnsAFreshArrayEachTime() {
        byte[] min = KeyString.minKey();
        min[0] = 0;
        assertThat(KeyString.minKey()).isEqualTo(new byte[] {0x0A});
    }

    private static Arguments less(String description, BsonValue a, BsonValue b) {
        return Arguments.of(description, a, b, -1);
    }

    private static Arguments greater(String description, BsonValue a, BsonValue b) {
        return Arguments.of(description, a, b, 1);
    }

    private static Arguments equal(String description, BsonValue a, BsonValue b) {
        return Arguments.of(description, a, b, 0);
    }

    private static BsonValue int32(int v) {
        return new BsonInt32(v);
    }

    private static BsonValue int64(long v) {
        return new BsonInt64(v);
    }

    private static BsonValue dbl(double v) {
        return new BsonDouble(v);
    }

    private static BsonValue dec(String v) {
        return new BsonDecimal128(Decimal128.parse(v));
    }

    private static BsonValue str(String v) {
        return new BsonString(v);
    }

    private static BsonDocument doc(String name, BsonValue value) {
        return new BsonDocument(name, value);
    }

    private static BsonValue arr(BsonValue... values) {
        return new BsonArray(List.of(values));
    }

    private static BsonValue bin(int subtype, byte[] data) {
        return new BsonBinary((byte) subtype, data);
    }

    private static BsonValue oid(String hex) {
        return new BsonObjectId(new ObjectId(hex));
    }

    private static BsonValue ptr(String namespace) {
        return new BsonDbPointer(namespace, new ObjectId("000000000000000000000000"));
    }

    private static BsonValue cws(String code, BsonDocument scope) {
        return new BsonJavaScriptWithScope(code, scope);
    }

    private static String hex(BsonValue v) {
        return HexFormat.of().formatHex(KeyString.encode(v));
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] result = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, result, a.length, b.length);
        return result;
    }
}
