package dev.shardstore.contracts.keystring;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.function.Function;
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

/**
 * Random BSON values of every type for the randomized property tests ({@link
 * dev.shardstore.contracts.testing.RandomCases}); every generator takes its randomness from the {@link Random} it
 * is given, so that a seed reproduces the values. Pools are small on purpose, so that two independently drawn
 * values are often equal, equal in a different representation, or neighbours, which is where an order-preserving
 * encoding breaks. Plain integers and longs come with their edge values and in every magnitude
 * ({@link #anyInt}, {@link #anyLong}).
 */
public final class BsonGenerators {
    private static final List<String> STRING_PIECES = List.of(
            "", "\u0000", "\u0001", "\u0002", "a", "b", "\u007F", "\u0080", "é", "\u07FF", "\u0800", "\uD7FF",
            "\uE000", "\uFFFF", "\uD800", "\uDBFF", "\uDC00", "\uDFFF", "\uD800\uDC00", "\uD83D\uDE00", "\uDBFF\uDFFF");
    private static final List<String> TRICKY_STRING_PIECES =
            List.of("\u0000", "\u0001", "a", "\uD800", "\uDC00", "\uE000", "\uD800\uDC00");
    private static final List<String> FIELD_NAMES = List.of("", "a", "b", "ab", "é", "\uE000", "\uD83D\uDE00", "a\u0000");
    private static final List<BsonValue> NUMBER_POOL = numberPool();
    private static final List<BsonValue> SPECIAL_SCALARS = List.of(new BsonMinKey(), new BsonMaxKey(), BsonNull.VALUE,
            new BsonUndefined(), BsonBoolean.TRUE, BsonBoolean.FALSE);
    private static final List<Long> EDGE_LONGS = List.of(0L, 1L, -1L, 2L, -2L, Long.MIN_VALUE, Long.MIN_VALUE + 1,
            Long.MAX_VALUE, Long.MAX_VALUE - 1, (long) Integer.MIN_VALUE, (long) Integer.MAX_VALUE);
    private static final List<Integer> EDGE_INTS =
            List.of(0, 1, -1, 2, -2, Integer.MIN_VALUE, Integer.MIN_VALUE + 1, Integer.MAX_VALUE, Integer.MAX_VALUE - 1);
    private static final List<Double> SPECIAL_DOUBLES = List.of(Double.NaN, Double.POSITIVE_INFINITY,
            Double.NEGATIVE_INFINITY, 0.0, -0.0, Double.MIN_VALUE, -Double.MIN_VALUE, Double.MIN_NORMAL,
            Double.MAX_VALUE, -Double.MAX_VALUE, 0.01, -0.01, 1.0, -1.0);
    private static final List<Long> EDGY_LONGS = List.of(0L, 1L, -1L, Long.MIN_VALUE, Long.MAX_VALUE, 1L << 32);
    private static final List<Byte> EDGE_BYTES = List.of((byte) 0, (byte) 0x7F, (byte) 0x80, (byte) 0xFF);
    private static final List<Byte> BINARY_BYTES = List.of((byte) 0, (byte) 1, (byte) 0x7F, (byte) 0x80, (byte) 0xFF);
    private static final List<Byte> BINARY_SUBTYPES = List.of((byte) 0, (byte) 1, (byte) 5, (byte) 0x80, (byte) 0xFF);
    private static final List<String> REGEX_OPTIONS = List.of("", "i", "im", "s");
    private static final List<String> DB_POINTER_NAMESPACES = List.of("", "a", "b", "ab", "zz", "é", "db.c");
    private static final BigInteger TEN_TO_THE_18 = BigInteger.TEN.pow(18);

    private BsonGenerators() {}

    /** A generator and how often, relative to the others in its list, it is chosen. */
    private record Weighted(int weight, Function<Random, BsonValue> generator) {}

    /** Values of every type, documents and arrays nested up to {@code depth} levels. */
    public static BsonValue value(Random random, int depth) {
        if (depth == 0) {
            return scalar(random);
        }
        return oneOf(random, List.of(
                new Weighted(6, BsonGenerators::scalar),
                new Weighted(2, r -> document(r, depth - 1)),
                new Weighted(2, r -> array(r, depth - 1)),
                new Weighted(1, r -> codeWithScope(r, depth - 1))));
    }

    /** A value of any type but document, array and code with scope. */
    public static BsonValue scalar(Random random) {
        return oneOf(random, List.of(
                new Weighted(8, BsonGenerators::number),
                new Weighted(4, r -> new BsonString(string(r))),
                new Weighted(1, r -> new BsonSymbol(string(r))),
                new Weighted(2, r -> pick(r, SPECIAL_SCALARS)),
                new Weighted(2, BsonGenerators::binary),
                new Weighted(1, r -> new BsonObjectId(objectId(r))),
                new Weighted(1, r -> new BsonDateTime(edgyLong(r))),
                new Weighted(1, r -> new BsonTimestamp(edgyLong(r))),
                new Weighted(1, BsonGenerators::regularExpression),
                new Weighted(1, BsonGenerators::dbPointer),
                new Weighted(1, r -> new BsonJavaScript(string(r)))));
    }

    /** One generator per type bracket, so that a pair drawn from one of them is of the same bracket. */
    public static List<Function<Random, BsonValue>> typeBrackets(int depth) {
        return List.of(
                BsonGenerators::number,
                r -> r.nextBoolean() ? new BsonString(string(r)) : new BsonSymbol(string(r)),
                r -> document(r, depth),
                r -> array(r, depth),
                BsonGenerators::binary,
                r -> new BsonObjectId(objectId(r)),
                r -> r.nextBoolean() ? BsonBoolean.TRUE : BsonBoolean.FALSE,
                r -> new BsonDateTime(edgyLong(r)),
                r -> new BsonTimestamp(edgyLong(r)),
                BsonGenerators::regularExpression,
                BsonGenerators::dbPointer,
                r -> new BsonJavaScript(string(r)),
                r -> codeWithScope(r, depth));
    }

    /**
     * Numbers of all four types: any int and long, doubles with two decimals of any magnitude and the special
     * values, every double bit pattern, random decimals, and (most often) a pool of close values.
     */
    public static BsonValue number(Random random) {
        return oneOf(random, List.of(
                new Weighted(2, r -> new BsonInt32(anyInt(r))),
                new Weighted(2, r -> new BsonInt64(anyLong(r))),
                new Weighted(1, r -> new BsonDouble(twoDecimalsOrSpecial(r))),
                new Weighted(2, r -> new BsonDouble(Double.longBitsToDouble(anyLong(r)))),
                new Weighted(2, BsonGenerators::decimal),
                new Weighted(8, r -> pick(r, NUMBER_POOL))));
    }

    /** Finite decimals: up to 34 digits with any exponent, mostly near zero. */
    public static BsonValue decimal(Random random) {
        BigInteger coefficient;
        if (random.nextBoolean()) {
            coefficient = BigInteger.valueOf(anyLong(random));
        } else {
            long high = longBetween(random, -9_999_999_999_999_999L, 9_999_999_999_999_999L);
            long low = longBetween(random, 0, 999_999_999_999_999_999L);
            coefficient = BigInteger.valueOf(high).multiply(TEN_TO_THE_18).add(BigInteger.valueOf(high < 0 ? -low : low));
        }
        int exponent = random.nextInt(5) < 4 ? random.nextInt(-40, 41) : random.nextInt(-6176, 6112);
        return new BsonDecimal128(new Decimal128(new BigDecimal(coefficient, -exponent)));
    }

    /**
     * Short strings with NULs, 1- to 4-byte UTF-8 characters and lone surrogates; from a few tricky pieces (so
     * that common prefixes are frequent), from many, or of up to three characters of any code unit at all.
     */
    public static String string(Random random) {
        return switch (random.nextInt(3)) {
            case 0 -> joined(random, TRICKY_STRING_PIECES, 3);
            case 1 -> joined(random, STRING_PIECES, 4);
            default -> {
                char[] chars = new char[random.nextInt(4)];
                for (int i = 0; i < chars.length; i++) {
                    chars[i] = (char) random.nextInt(Character.MAX_VALUE + 1);
                }
                yield new String(chars);
            }
        };
    }

    /** Up to three fields of names from a small pool (a repeated name keeps its last value). */
    public static BsonDocument document(Random random, int depth) {
        BsonDocument document = new BsonDocument();
        for (int n = random.nextInt(4); n > 0; n--) {
            String name = pick(random, FIELD_NAMES);
            document.put(name, value(random, depth));
        }
        return document;
    }

    /**
     * Any int: an edge value ({@code 0}, {@code ±1}, {@code ±2}, the extremes and their neighbours) one time in
     * eight, otherwise a random magnitude of a random bit length, so that small and large values are both common.
     */
    public static int anyInt(Random random) {
        if (random.nextInt(8) == 0) {
            return pick(random, EDGE_INTS);
        }
        int bits = random.nextInt(Integer.SIZE + 1);
        int magnitude = bits == 0 ? 0 : random.nextInt() >>> (Integer.SIZE - bits);
        return random.nextBoolean() ? magnitude : -magnitude;
    }

    /** Any long, as {@link #anyInt} draws ints. */
    public static long anyLong(Random random) {
        if (random.nextInt(8) == 0) {
            return pick(random, EDGE_LONGS);
        }
        int bits = random.nextInt(Long.SIZE + 1);
        long magnitude = bits == 0 ? 0 : random.nextLong() >>> (Long.SIZE - bits);
        return random.nextBoolean() ? magnitude : -magnitude;
    }

    /**
     * A double of two decimal places anywhere up to ±{@link Double#MAX_VALUE} in magnitude (its unscaled value of a
     * random bit length), or one time in eight a special value: NaN, the infinities, the zeros, the smallest
     * subnormal and normal values, the extremes.
     */
    public static double twoDecimalsOrSpecial(Random random) {
        if (random.nextInt(8) == 0) {
            return pick(random, SPECIAL_DOUBLES);
        }
        double magnitude = new BigDecimal(new BigInteger(random.nextInt(1031), random), 2).doubleValue();
        return random.nextBoolean() ? magnitude : -magnitude;
    }

    /** A long in {@code [min, max]} ({@code max < Long.MAX_VALUE}): either bound one time in eight each, else uniform. */
    public static long longBetween(Random random, long min, long max) {
        return switch (random.nextInt(8)) {
            case 0 -> min;
            case 1 -> max;
            default -> random.nextLong(min, max + 1);
        };
    }

    /** One element of {@code pool}, uniformly. */
    public static <T> T pick(Random random, List<T> pool) {
        return pool.get(random.nextInt(pool.size()));
    }

    private static BsonValue oneOf(Random random, List<Weighted> choices) {
        int roll = random.nextInt(choices.stream().mapToInt(Weighted::weight).sum());
        for (Weighted choice : choices) {
            roll -= choice.weight();
            if (roll < 0) {
                return choice.generator().apply(random);
            }
        }
        throw new AssertionError("weights are positive");
    }

    private static String joined(Random random, List<String> pieces, int maxPieces) {
        StringBuilder joined = new StringBuilder();
        for (int n = random.nextInt(maxPieces + 1); n > 0; n--) {
            joined.append(pick(random, pieces));
        }
        return joined.toString();
    }

    private static BsonValue array(Random random, int depth) {
        List<BsonValue> elements = new ArrayList<>();
        for (int n = random.nextInt(4); n > 0; n--) {
            elements.add(value(random, depth));
        }
        return new BsonArray(elements);
    }

    private static BsonValue codeWithScope(Random random, int depth) {
        return new BsonJavaScriptWithScope(string(random), document(random, depth));
    }

    private static BsonValue regularExpression(Random random) {
        return new BsonRegularExpression(string(random), pick(random, REGEX_OPTIONS));
    }

    private static BsonValue dbPointer(Random random) {
        return new BsonDbPointer(pick(random, DB_POINTER_NAMESPACES), objectId(random));
    }

    private static BsonValue binary(Random random) {
        byte subtype = pick(random, BINARY_SUBTYPES);
        byte[] data = new byte[random.nextInt(4)];
        for (int i = 0; i < data.length; i++) {
            data[i] = pick(random, BINARY_BYTES);
        }
        return new BsonBinary(subtype, data);
    }

    private static ObjectId objectId(Random random) {
        byte[] id = new byte[12];
        id[0] = pick(random, EDGE_BYTES);
        id[11] = pick(random, EDGE_BYTES);
        return new ObjectId(id);
    }

    private static long edgyLong(Random random) {
        return random.nextBoolean() ? anyLong(random) : pick(random, EDGY_LONGS);
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
