package dev.shardstore.contracts.keystring;

import java.math.BigDecimal;
import java.math.BigInteger;
import org.bson.BsonValue;
import org.bson.types.Decimal128;

/**
 * The KeyString encoding of numbers: one canonical form per mathematical value, whatever the BSON
 * type (int32, int64, double, decimal128), ordered as {@code BsonOrder.compareNumbers} orders them.
 *
 * <p>The first byte is a class, in ascending order: NaN, -Infinity, negative large, negative
 * integer part of 8..1 bytes, negative small, zero, positive small, positive integer part of 1..8
 * bytes, positive large, +Infinity. NaN, the infinities and zero are that byte alone. The other
 * classes write the magnitude {@code m} (a body); for negative numbers every body byte is inverted,
 * which reverses the order of the (prefix-free) bodies.
 * <ul>
 *   <li>integer part ({@code 1 <= m < 2^64}): {@code floor(m)} big-endian in the class's 1..8 bytes
 *       (leading byte non-zero), then the decimal digits of the fraction;</li>
 *   <li>small ({@code 0 < m < 1}) and large ({@code m >= 2^64}): {@code m = 0.d1d2... x 10^e} with
 *       {@code d1 != 0}, written as {@code e + 0x8000} in 2 bytes, then the digits {@code d1d2...}.</li>
 * </ul>
 * Digits have trailing zeros removed and are written in pairs, a pair {@code p} (a last single digit
 * {@code d} counts as {@code 10d}) as the byte {@code p + 1}, then a terminating {@code 0x00}; so a
 * shorter digit string sorts before any longer one it starts. Every double and decimal128 has a
 * finite decimal expansion, which makes the digits exact: 1.00 (decimal), 1 (int) and 1.0 (double)
 * are the same bytes.
 *
 * <p>Int32, int64 and integral doubles below 2^64 take the integer path, and doubles with at most
 * 59 binary fraction digits (every fractional double from 1/128 up) get their decimal digits by long
 * arithmetic; only the other doubles and decimal128 values go through {@link BigDecimal}.
 */
final class NumberEncoder {
    /** The lowest number class, also the rank byte of numbers inside documents. */
    static final int NAN = 0x1E;
    private static final int NEGATIVE_INFINITY = 0x1F;
    private static final int NEGATIVE_LARGE = 0x20;
    private static final int NEGATIVE_INTEGER_1_BYTE = 0x28; // 0x21 for 8 bytes
    private static final int NEGATIVE_SMALL = 0x29;
    private static final int ZERO = 0x2A;
    private static final int POSITIVE_SMALL = 0x2B;
    private static final int POSITIVE_INTEGER_1_BYTE = 0x2C; // 0x33 for 8 bytes
    private static final int POSITIVE_LARGE = 0x34;
    /** The highest number class. */
    static final int POSITIVE_INFINITY = 0x35;

    private static final int EXPONENT_BIAS = 0x8000;
    /** Fractions of up to this many bits times 10 still fit in a long. */
    private static final int MAX_LONG_FRACTION_BITS = 59;
    private static final int DIGITS_END = 0x00;
    private static final BigDecimal TWO_TO_THE_64 = new BigDecimal(BigInteger.ONE.shiftLeft(Long.SIZE));

    private NumberEncoder() {}

    static void write(ByteSink out, BsonValue number) {
        switch (number.getBsonType()) {
            case INT32 -> writeLong(out, number.asInt32().getValue());
            case INT64 -> writeLong(out, number.asInt64().getValue());
            case DOUBLE -> writeDouble(out, number.asDouble().getValue());
            case DECIMAL128 -> writeDecimal128(out, number.asDecimal128().getValue());
            default -> throw new IllegalArgumentException("not a number: " + number.getBsonType());
        }
    }

    private static void writeLong(ByteSink out, long v) {
        if (v == 0) {
            out.write(ZERO);
        } else {
            writeInteger(out, v < 0, Math.abs(v), ""); // abs(Long.MIN_VALUE) is 2^63 read unsigned
        }
    }

    private static void writeDouble(ByteSink out, double d) {
        double magnitude = Math.abs(d);
        if (Double.isNaN(d)) {
            out.write(NAN);
        } else if (Double.isInfinite(d)) {
            out.write(d > 0 ? POSITIVE_INFINITY : NEGATIVE_INFINITY);
        } else if (d == 0) {
            out.write(ZERO); // -0.0 too
        } else if (magnitude < 0x1p64 && magnitude == Math.floor(magnitude)) {
            // Doubles from 2^63 on are multiples of 2^11, so halving before the cast is exact.
            long unsigned = magnitude < 0x1p63 ? (long) magnitude : (long) (magnitude / 2) << 1;
            writeInteger(out, d < 0, unsigned, "");
        } else {
            int fractionBits = fractionBits(magnitude); // not positive for the integers from 2^64 on
            if (fractionBits > 0 && fractionBits <= MAX_LONG_FRACTION_BITS) {
                writeShortFraction(out, d < 0, magnitude, fractionBits);
            } else {
                writeFinite(out, d < 0, new BigDecimal(magnitude));
            }
        }
    }

    private static void writeDecimal128(ByteSink out, Decimal128 d) {
        if (d.isNaN()) {
            out.write(NAN);
        } else if (d.isInfinite()) {
            out.write(d.isNegative() ? NEGATIVE_INFINITY : POSITIVE_INFINITY);
        } else {
            // Clearing the sign bit first: bigDecimalValue() rejects negative zero, which equals 0 here.
            BigDecimal magnitude = Decimal128.fromIEEE754BIDEncoding(d.getHigh() & Long.MAX_VALUE, d.getLow()).bigDecimalValue();
            if (magnitude.signum() == 0) {
                out.write(ZERO);
            } else {
                writeFinite(out, d.isNegative(), magnitude);
            }
        }
    }

    /** The number of binary digits after the point of a positive finite double: 1..1074 unless it is an integer. */
    private static int fractionBits(double magnitude) {
        long bits = Double.doubleToRawLongBits(magnitude);
        int biasedExponent = (int) (bits >>> 52);
        long significand = bits & 0xF_FFFF_FFFF_FFFFL | (biasedExponent == 0 ? 0 : 1L << 52);
        return 1075 - Math.max(biasedExponent, 1) - Long.numberOfTrailingZeros(significand);
    }

    /**
     * A non-integral double of {@code bits} (at most {@link #MAX_LONG_FRACTION_BITS}) fraction bits:
     * {@code m = scaled / 2^bits} has exactly {@code bits} decimal fraction digits, the last a 5, the
     * same digits {@link #writeFinite} would find.
     */
    private static void writeShortFraction(ByteSink out, boolean negative, double magnitude, int bits) {
        long scaled = (long) Math.scalb(magnitude, bits); // exact: an integer below 2^53
        long mask = (1L << bits) - 1;
        long fraction = scaled & mask;
        StringBuilder digits = new StringBuilder(bits);
        for (int i = 0; i < bits; i++) {
            fraction *= 10;
            digits.append((char) ('0' + (fraction >>> bits)));
            fraction &= mask;
        }
        long integerPart = scaled >>> bits;
        if (integerPart > 0) {
            writeInteger(out, negative, integerPart, digits);
        } else {
            int zeros = 0;
            while (digits.charAt(zeros) == '0') {
                zeros++;
            }
            writeScientific(out, negative, negative ? NEGATIVE_SMALL : POSITIVE_SMALL, -zeros, digits.substring(zeros));
        }
    }

    /** A finite non-zero number given by its sign and exact positive magnitude. */
    private static void writeFinite(ByteSink out, boolean negative, BigDecimal magnitude) {
        BigDecimal m = magnitude.stripTrailingZeros();
        String digits = m.unscaledValue().toString();
        int exponent = digits.length() - m.scale(); // m = 0.<digits> x 10^exponent
        if (exponent <= 0) {
            writeScientific(out, negative, negative ? NEGATIVE_SMALL : POSITIVE_SMALL, exponent, digits);
        } else if (exponent > 20 || m.compareTo(TWO_TO_THE_64) >= 0) {
            writeScientific(out, negative, negative ? NEGATIVE_LARGE : POSITIVE_LARGE, exponent, digits);
        } else {
            String fraction = exponent < digits.length() ? digits.substring(exponent) : "";
            writeInteger(out, negative, m.toBigInteger().longValue(), fraction);
        }
    }

    /** {@code unsignedIntegerPart} is at least 1 and read as unsigned; {@code fractionDigits} has no trailing zero. */
    private static void writeInteger(ByteSink out, boolean negative, long unsignedIntegerPart, CharSequence fractionDigits) {
        int length = (Long.SIZE - Long.numberOfLeadingZeros(unsignedIntegerPart) + Byte.SIZE - 1) / Byte.SIZE;
        out.write(negative ? NEGATIVE_INTEGER_1_BYTE - (length - 1) : POSITIVE_INTEGER_1_BYTE + (length - 1));
        int body = out.size();
        out.writeLowBytes(unsignedIntegerPart, length);
        writeDigits(out, fractionDigits);
        if (negative) {
            out.invertFrom(body);
        }
    }

    private static void writeScientific(ByteSink out, boolean negative, int numberClass, int exponent, String digits) {
        out.write(numberClass);
        int body = out.size();
        out.writeLowBytes(exponent + EXPONENT_BIAS, 2);
        writeDigits(out, digits);
        if (negative) {
            out.invertFrom(body);
        }
    }

    private static void writeDigits(ByteSink out, CharSequence digits) {
        for (int i = 0; i < digits.length(); i += 2) {
            int high = digits.charAt(i) - '0';
            int low = i + 1 < digits.length() ? digits.charAt(i + 1) - '0' : 0;
            out.write(high * 10 + low + 1);
        }
        out.write(DIGITS_END);
    }
}
