package dev.shardstore.engine.aggregate.expression;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.function.BinaryOperator;
import java.util.function.DoubleBinaryOperator;
import java.util.function.LongBinaryOperator;
import org.bson.BsonDecimal128;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonType;
import org.bson.BsonValue;
import org.bson.types.Decimal128;
import org.jspecify.annotations.Nullable;

/**
 * MongoDB's numeric type promotion for arithmetic (MongoDB manual, "$add", "$multiply"): the result has the
 * widest operand type of int &lt; long &lt; double &lt; decimal; an int result that overflows becomes a long,
 * a long result that overflows becomes a double.
 */
public final class Numbers {
    /**
     * One binary arithmetic operation in each representation.
     *
     * @param longs    exact long arithmetic, throwing {@link ArithmeticException} on overflow
     * @param doubles  double arithmetic
     * @param decimals decimal arithmetic
     */
    record Op(LongBinaryOperator longs, DoubleBinaryOperator doubles, BinaryOperator<BigDecimal> decimals) {}

    static final Op ADD = new Op(Math::addExact, Double::sum, BigDecimal::add);
    static final Op MULTIPLY = new Op(Math::multiplyExact, (a, b) -> a * b, BigDecimal::multiply);
    static final Op SUBTRACT = new Op(Math::subtractExact, (a, b) -> a - b, BigDecimal::subtract);

    private Numbers() {}

    /** {@code a + b} with type promotion, as {@code $add} and {@code $sum} compute it; both must be numbers. */
    public static BsonValue add(BsonValue a, BsonValue b) {
        return apply(ADD, a, b);
    }

    /** Whether {@code value} is an int, long, double or decimal. */
    @Contract("null -> false")
    public static boolean isNumber(@Nullable BsonValue value) {
        return value != null && (value.isNumber() || value.isDecimal128());
    }

    /** {@code a op b} with type promotion; both must be numbers. */
    static BsonValue apply(Op op, BsonValue a, BsonValue b) {
        BsonType wide = wider(a.getBsonType(), b.getBsonType());
        if (wide == BsonType.DECIMAL128) {
            return decimal(op.decimals().apply(toBigDecimal(a), toBigDecimal(b)));
        }
        if (wide == BsonType.DOUBLE) {
            return new BsonDouble(op.doubles().applyAsDouble(toDouble(a), toDouble(b)));
        }
        try {
            long result = op.longs().applyAsLong(a.asNumber().longValue(), b.asNumber().longValue());
            return wide == BsonType.INT32 && result == (int) result ? new BsonInt32((int) result) : new BsonInt64(result);
        } catch (ArithmeticException overflow) {
            return new BsonDouble(op.doubles().applyAsDouble(toDouble(a), toDouble(b)));
        }
    }

    /** The wider of two numeric types. */
    static BsonType wider(BsonType a, BsonType b) {
        return rank(a) >= rank(b) ? a : b;
    }

    private static int rank(BsonType type) {
        return switch (type) {
            case INT32 -> 0;
            case INT64 -> 1;
            case DOUBLE -> 2;
            default -> 3;
        };
    }

    /** The value as a double (decimals rounded). */
    public static double toDouble(BsonValue value) {
        return value.isDecimal128() ? value.asDecimal128().getValue().doubleValue() : value.asNumber().doubleValue();
    }

    /** The exact value as a BigDecimal (doubles by their exact binary value's shortest decimal form). */
    static BigDecimal toBigDecimal(BsonValue value) {
        return switch (value.getBsonType()) {
            case DECIMAL128 -> value.asDecimal128().getValue().bigDecimalValue();
            case DOUBLE -> BigDecimal.valueOf(value.asDouble().getValue());
            default -> BigDecimal.valueOf(value.asNumber().longValue());
        };
    }

    /** A decimal result, rounded to Decimal128's 34 digits. */
    static BsonValue decimal(BigDecimal value) {
        return new BsonDecimal128(new Decimal128(value.round(MathContext.DECIMAL128)));
    }

    /** A long result as the narrowest of int and long. */
    static BsonValue integral(long value) {
        return value == (int) value ? new BsonInt32((int) value) : new BsonInt64(value);
    }
}
