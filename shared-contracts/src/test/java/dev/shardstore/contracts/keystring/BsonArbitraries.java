package dev.shardstore.contracts.keystring;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;
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

/**
 * Generators of BSON values of every type for the property tests. Pools are small on purpose, so
 * that two independently drawn values are often equal, equal in a different representation, or
 * neighbours, which is where an order-preserving encoding breaks.
 */
public final class BsonArbitraries {
    private static final List<String> STRING_PIECES = List.of(
            "", "\u0000", "\u0001", "\u0002", "a", "b", "\u007F", "\u0080", "é", "\u07FF", "\u0800", "\uD7FF",
            "\uE000", "\uFFFF", "\uD800", "\uDBFF", "\uDC00", "\uDFFF", "\uD800\uDC00", "\uD83D\uDE00", "\uDBFF\uDFFF");
    private static final List<String> TRICKY_STRING_PIECES =
            List.of("\u0000", "\u0001", "a", "\uD800", "\uDC00", "\uE000", "\uD800\uDC00");
    private static final List<String> FIELD_NAMES = List.of("", "a", "b", "ab", "é", "\uE000", "\uD83D\uDE00", "a\u0000");
    private static final List<BsonValue> NUMBER_POOL = numberPool();

    private BsonArbitraries() {}

    /** Values of every type, documents and arrays nested up to {@code depth} levels. */
    public static Arbitrary<BsonValue> values(int depth) {
        if (depth == 0) {
            return scalars();
        }
        return Arbitraries.frequencyOf(
                Tuple.of(6, scalars()),
                Tuple.of(2, documents(depth - 1).map(BsonValue.class::cast)),
                Tuple.of(2, arrays(depth - 1)),
                Tuple.of(1, codeWithScope(depth - 1)));
    }

    public static Arbitrary<BsonValue> scalars() {
        return Arbitraries.frequencyOf(
                Tuple.of(8, numbers()),
                Tuple.of(4, strings().map(BsonString::new)),
                Tuple.of(1, strings().map(BsonSymbol::new)),
                Tuple.of(2, Arbitraries.of(new BsonMinKey(), new BsonMaxKey(), BsonNull.VALUE, new BsonUndefined(),
                        BsonBoolean.TRUE, BsonBoolean.FALSE)),
                Tuple.of(2, binaries()),
                Tuple.of(1, objectIds().map(BsonObjectId::new)),
                Tuple.of(1, edgyLongs().map(BsonDateTime::new)),
                Tuple.of(1, edgyLongs().map(BsonTimestamp::new)),
                Tuple.of(1, regularExpressions()),
                Tuple.of(1, dbPointers()),
                Tuple.of(1, strings().map(BsonJavaScript::new)));
    }

    /** One generator per type bracket, so that a pair drawn from one of them is of the same bracket. */
    public static List<Arbitrary<BsonValue>> typeBrackets(int depth) {
        return List.of(
                numbers(),
                Arbitraries.oneOf(strings().map(BsonString::new), strings().map(BsonSymbol::new)),
                documents(depth).map(BsonValue.class::cast),
                arrays(depth),
                binaries(),
                objectIds().map(BsonObjectId::new),
                Arbitraries.of(BsonBoolean.TRUE, BsonBoolean.FALSE),
                edgyLongs().map(BsonDateTime::new),
                edgyLongs().map(BsonTimestamp::new),
                regularExpressions(),
                dbPointers(),
                strings().map(BsonJavaScript::new),
                codeWithScope(depth));
    }

    /** Numbers of all four types: edge cases, every double bit pattern, random decimals, and a pool of close values. */
    public static Arbitrary<BsonValue> numbers() {
        return Arbitraries.frequencyOf(
                Tuple.of(2, Arbitraries.integers().map(BsonInt32::new)),
                Tuple.of(2, Arbitraries.longs().map(BsonInt64::new)),
                Tuple.of(1, Arbitraries.doubles().withStandardSpecialValues().map(BsonDouble::new)),
                Tuple.of(2, Arbitraries.longs().map(bits -> new BsonDouble(Double.longBitsToDouble(bits)))),
                Tuple.of(2, decimals()),
                Tuple.of(8, Arbitraries.of(NUMBER_POOL)));
    }

    /**
     * Finite decimals: up to 34 digits with any exponent, mostly near zero. Coefficients are built
     * from longs, not {@code Arbitraries.bigIntegers()}, whose shrinking is too slow to bear.
     */
    public static Arbitrary<BsonValue> decimals() {
        BigInteger tenToThe18 = BigInteger.TEN.pow(18);
        Arbitrary<BigInteger> coefficients = Arbitraries.oneOf(
                Arbitraries.longs().map(BigInteger::valueOf),
                Combinators.combine(
                                Arbitraries.longs().between(-9_999_999_999_999_999L, 9_999_999_999_999_999L),
                                Arbitraries.longs().between(0, 999_999_999_999_999_999L))
                        .as((high, low) -> BigInteger.valueOf(high).multiply(tenToThe18)
                                .add(BigInteger.valueOf(high < 0 ? -low : low))));
        Arbitrary<Integer> exponents = Arbitraries.frequencyOf(
                Tuple.of(4, Arbitraries.integers().between(-40, 40)),
                Tuple.of(1, Arbitraries.integers().between(-6176, 6111)));
        return Combinators.combine(coefficients, exponents)
                .as((coefficient, exponent) -> new BsonDecimal128(new Decimal128(new BigDecimal(coefficient, -exponent))));
    }

    /**
     * Short strings with NULs, 1- to 4-byte UTF-8 characters and lone surrogates; from a few tricky
     * pieces (so that common prefixes are frequent), from many, or of any characters at all.
     */
    public static Arbitrary<String> strings() {
        return Arbitraries.oneOf(
                Arbitraries.of(TRICKY_STRING_PIECES).list().ofMaxSize(3).map(pieces -> String.join("", pieces)),
                Arbitraries.of(STRING_PIECES).list().ofMaxSize(4).map(pieces -> String.join("", pieces)),
                Arbitraries.strings().all().ofMaxLength(3));
    }

    public static Arbitrary<BsonDocument> documents(int depth) {
        return Combinators.combine(Arbitraries.of(FIELD_NAMES), values(depth)).as(Map::entry).list().ofMaxSize(3)
                .map(elements -> {
                    BsonDocument document = new BsonDocument();
                    elements.forEach(e -> document.put(e.getKey(), e.getValue()));
                    return document;
                });
    }

    private static Arbitrary<BsonValue> arrays(int depth) {
        return values(depth).list().ofMaxSize(3).map(BsonArray::new);
    }

    private static Arbitrary<BsonValue> codeWithScope(int depth) {
        return Combinators.combine(strings(), documents(depth)).as(BsonJavaScriptWithScope::new);
    }

    private static Arbitrary<BsonValue> regularExpressions() {
        return Combinators.combine(strings(), Arbitraries.of("", "i", "im", "s")).as(BsonRegularExpression::new);
    }

    private static Arbitrary<BsonValue> dbPointers() {
        return Combinators.combine(Arbitraries.of("", "a", "b", "ab", "zz", "é", "db.c"), objectIds()).as(BsonDbPointer::new);
    }

    private static Arbitrary<BsonValue> binaries() {
        Arbitrary<Byte> bytes = Arbitraries.of((byte) 0, (byte) 1, (byte) 0x7F, (byte) 0x80, (byte) 0xFF);
        return Combinators.combine(Arbitraries.of((byte) 0, (byte) 1, (byte) 5, (byte) 0x80, (byte) 0xFF), bytes.list().ofMaxSize(3))
                .as((subtype, data) -> {
                    byte[] array = new byte[data.size()];
                    for (int i = 0; i < array.length; i++) {
                        array[i] = data.get(i);
                    }
                    return new BsonBinary(subtype, array);
                });
    }

    private static Arbitrary<ObjectId> objectIds() {
        Arbitrary<Byte> edge = Arbitraries.of((byte) 0, (byte) 0x7F, (byte) 0x80, (byte) 0xFF);
        return Combinators.combine(edge, edge).as((first, last) -> {
            byte[] id = new byte[12];
            id[0] = first;
            id[11] = last;
            return new ObjectId(id);
        });
    }

    private static Arbitrary<Long> edgyLongs() {
        return Arbitraries.oneOf(Arbitraries.longs(), Arbitraries.of(0L, 1L, -1L, Long.MIN_VALUE, Long.MAX_VALUE, 1L << 32));
    }

    /** A value equal to {@code value} in BSON order but built differently: other numeric types, Symbol for String. */
    public static BsonValue equivalent(BsonValue value, Random random) {
        return switch (value.getBsonType()) {
            case INT32, INT64, DOUBLE, DECIMAL128 -> {
                List<BsonValue> equals = representations(value);
                yield equals.get(random.nextInt(equals.size()));
            }
            case STRING, SYMBOL -> {
                String text = value.isString() ? value.asString().getValue() : value.asSymbol().getSymbol();
                yield random.nextBoolean() ? new BsonString(text) : new BsonSymbol(text);
            }
            case DOCUMENT -> equivalentDocument(value.asDocument(), random);
            case ARRAY -> new BsonArray(value.asArray().stream().map(v -> equivalent(v, random)).toList());
            case JAVASCRIPT_WITH_SCOPE -> new BsonJavaScriptWithScope(
                    value.asJavaScriptWithScope().getCode(), equivalentDocument(value.asJavaScriptWithScope().getScope(), random));
            default -> value;
        };
    }

    private static BsonDocument equivalentDocument(BsonDocument document, Random random) {
        BsonDocument copy = new BsonDocument();
        document.forEach((name, v) -> copy.put(name, equivalent(v, random)));
        return copy;
    }

    /** Every value of every numeric type equal to {@code number} in BSON order (itself included). */
    public static List<BsonValue> representations(BsonValue number) {
        double approximate = number.asNumber().doubleValue();
        if (Double.isNaN(approximate)) {
            return List.of(new BsonDouble(Double.NaN), new BsonDouble(Double.longBitsToDouble(0xFFF8000000000001L)),
                    new BsonDecimal128(Decimal128.NaN), new BsonDecimal128(Decimal128.NEGATIVE_NaN));
        }
        boolean infinite = number.isDecimal128() ? number.asDecimal128().getValue().isInfinite() : Double.isInfinite(approximate);
        if (infinite) {
            boolean positive = approximate > 0;
            return List.of(new BsonDouble(positive ? Double.POSITIVE_INFINITY : Double.NEGATIVE_INFINITY),
                    new BsonDecimal128(positive ? Decimal128.POSITIVE_INFINITY : Decimal128.NEGATIVE_INFINITY));
        }
        return representations(exactValue(number));
    }

    /** Every BSON number whose value is exactly {@code x}. */
    public static List<BsonValue> representations(BigDecimal x) {
        List<BsonValue> result = new ArrayList<>();
        if (x.signum() == 0) {
            result.addAll(List.of(new BsonInt32(0), new BsonInt64(0), new BsonDouble(0.0), new BsonDouble(-0.0),
                    new BsonDecimal128(Decimal128.POSITIVE_ZERO), new BsonDecimal128(Decimal128.NEGATIVE_ZERO),
                    new BsonDecimal128(Decimal128.parse("-0E-6176")), new BsonDecimal128(Decimal128.parse("0E+6111"))));
            return result;
        }
        BigDecimal stripped = x.stripTrailingZeros();
        if (stripped.scale() <= 0 && stripped.precision() - stripped.scale() <= 19
                && stripped.toBigInteger().bitLength() < Long.SIZE) {
            long l = stripped.longValue();
            if (l == (int) l) {
                result.add(new BsonInt32((int) l));
            }
            result.add(new BsonInt64(l));
        }
        double d = x.doubleValue();
        if (!Double.isInfinite(d) && new BigDecimal(d).compareTo(x) == 0) {
            result.add(new BsonDouble(d));
        }
        for (int extraZeros : new int[] {0, 1, 5}) {
            decimal128(stripped.setScale(stripped.scale() + extraZeros)).ifPresent(result::add);
        }
        return result;
    }

    /** {@code x} as a decimal128 with {@code x}'s exponent, if it has at most 34 digits and is in range. */
    public static Optional<BsonValue> decimal128(BigDecimal x) {
        int exponent = -x.scale();
        boolean fits = x.precision() <= 34 && exponent >= -6176 && exponent + x.precision() - 1 <= 6144;
        return fits ? Optional.of(new BsonDecimal128(new Decimal128(x))) : Optional.empty();
    }

    /** The exact value of a finite number. */
    public static BigDecimal exactValue(BsonValue number) {
        return switch (number.getBsonType()) {
            case INT32 -> BigDecimal.valueOf(number.asInt32().getValue());
            case INT64 -> BigDecimal.valueOf(number.asInt64().getValue());
            case DOUBLE -> new BigDecimal(number.asDouble().getValue());
            case DECIMAL128 -> {
                Decimal128 d = number.asDecimal128().getValue();
                BigDecimal magnitude = Decimal128.fromIEEE754BIDEncoding(d.getHigh() & Long.MAX_VALUE, d.getLow()).bigDecimalValue();
                yield d.isNegative() ? magnitude.negate() : magnitude;
            }
            default -> throw new IllegalArgumentException(number.getBsonType().toString());
        };
    }

    /**
     * Seeds at every boundary of the number encoding (byte lengths, 2^53, 2^63, 2^64, 2^-7, the double and
     * decimal128 extremes), their neighbours as doubles, as 34-digit decimals and as integers ±1,
     * both signs, in every type that holds them exactly; plus NaN, the infinities and the zeros.
     */
    private static List<BsonValue> numberPool() {
        List<BigDecimal> seeds = new ArrayList<>(Stream.of(
                "1", "2", "0.5", "0.1", "1.5", "255", "256", "65535", "65536", "4294967296", "9007199254740992",
                "9223372036854775807", "18446744073709551615", "18446744073709551615.5", "1E+19", "1E+20",
                "1E-5", "0.99999999999999999", "1E+6144", "1E-6176", "9.999999999999999999999999999999999E+6144")
                .map(BigDecimal::new).toList());
        Stream.of(0.1, 1e19, 0x1p64, 0x1p63, 0x1p53, 0x1p-7, 0x1p-8, Double.MAX_VALUE, Double.MIN_VALUE, Double.MIN_NORMAL, 1e-300)
                .map(BigDecimal::new).forEach(seeds::add);
        List<BsonValue> pool = new ArrayList<>();
        for (BigDecimal seed : seeds) {
            for (BigDecimal near : neighbours(seed)) {
                pool.addAll(representations(near));
                pool.addAll(representations(near.negate()));
            }
        }
        pool.addAll(representations(BigDecimal.ZERO));
        pool.addAll(representations(new BsonDouble(Double.NaN)));
        pool.addAll(representations(new BsonDouble(Double.POSITIVE_INFINITY)));
        pool.addAll(representations(new BsonDouble(Double.NEGATIVE_INFINITY)));
        return List.copyOf(pool);
    }

    private static List<BigDecimal> neighbours(BigDecimal x) {
        List<BigDecimal> result = new ArrayList<>(List.of(x, x.add(BigDecimal.ONE), x.subtract(BigDecimal.ONE)));
        BigDecimal rounded = x.round(MathContext.DECIMAL128);
        result.addAll(List.of(rounded, rounded.add(rounded.ulp()), rounded.subtract(rounded.ulp())));
        double d = x.doubleValue();
        for (double near : new double[] {d, Math.nextUp(d), Math.nextDown(d)}) {
            if (Double.isFinite(near)) {
                result.add(new BigDecimal(near));
            }
        }
        return result;
    }
}
