package dev.shardstore.engine.query;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.math.BigDecimal;
import java.math.MathContext;
import java.util.function.BinaryOperator;
import java.util.function.DoubleBinaryOperator;
import java.util.function.LongBinaryOperator;
import org.bson.BsonDecimal128;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonValue;
import org.bson.types.Decimal128;
import org.jspecify.annotations.Nullable;

/**
 * {@code $inc} and {@code $mul} (MongoDB manual, "$inc", "$mul"; the arithmetic is MongoDB's {@code SafeNum}):
 * int op int is an int unless it overflows, then a long; long arithmetic that overflows is BadValue;
 * anything with a double is a double; anything with a decimal is a decimal (a double converted to 15
 * significant digits first). A missing field is created with the increment ({@code $inc}) or with a zero of
 * the multiplier's type ({@code $mul}).
 *
 * @param operator which of the two
 * @param path the full update path, for messages
 * @param operand the increment or multiplier, a number
 */
record ArithmeticField(Operator operator, String path, BsonValue operand) implements UpdateOperation {
    /** The two arithmetic operators: name, verb for messages, and the operation on each numeric type. */
    enum Operator {
        INC("$inc", "increment", Math::addExact, Double::sum, BigDecimal::add),
        MUL("$mul", "multiply", Math::multiplyExact, (a, b) -> a * b, BigDecimal::multiply);

        private final String name;
        private final String verb;
        private final LongBinaryOperator exact;
        private final DoubleBinaryOperator floating;
        private final BinaryOperator<BigDecimal> decimal;

        Operator(String name, String verb, LongBinaryOperator exact, DoubleBinaryOperator floating,
                BinaryOperator<BigDecimal> decimal) {
            this.name = name;
            this.verb = verb;
            this.exact = exact;
            this.floating = floating;
            this.decimal = decimal;
        }
    }

    /** @throws CommandException TypeMismatch (14) when the operand is not a number */
    ArithmeticField {
        if (!isNumeric(operand)) {
            throw new CommandException(ErrorCode.TypeMismatch,
                    "Cannot " + operator.verb + " with non-numeric argument: " + Values.element(path, operand));
        }
    }

    static ArithmeticField inc(String path, BsonValue operand) {
        return new ArithmeticField(Operator.INC, path, operand);
    }

    static ArithmeticField mul(String path, BsonValue operand) {
        return new ArithmeticField(Operator.MUL, path, operand);
    }

    @Override
    public boolean createsPath() {
        return true;
    }

    /** @throws CommandException TypeMismatch (14) when the field holds a non-number */
    @Override
    public void apply(Slot slot, @Nullable BsonValue existing, UpdateContext context) {
        if (existing == null) {
            slot.set(operator == Operator.INC ? operand : compute(zeroOf(operand), operand));
            return;
        }
        if (!isNumeric(existing)) {
            throw new CommandException(ErrorCode.TypeMismatch, "Cannot apply " + operator.name
                    + " to a value of non-numeric type. The field '" + path + "' has non-numeric type "
                    + TypeNames.of(existing.getBsonType()));
        }
        slot.set(compute(existing, operand));
    }

    private static boolean isNumeric(BsonValue value) {
        return value.isNumber() || value.isDecimal128();
    }

    private static BsonValue zeroOf(BsonValue number) {
        return switch (number.getBsonType()) {
            case INT32 -> new BsonInt32(0);
            case INT64 -> new BsonInt64(0);
            case DOUBLE -> new BsonDouble(0);
            default -> new BsonDecimal128(Decimal128.parse("0"));
        };
    }

    private BsonValue compute(BsonValue a, BsonValue b) {
        if (a.isDecimal128() || b.isDecimal128()) {
            return new BsonDecimal128(decimalResult(decimal(a), decimal(b)));
        }
        if (a.isDouble() || b.isDouble()) {
            return new BsonDouble(operator.floating.applyAsDouble(a.asNumber().doubleValue(), b.asNumber().doubleValue()));
        }
        if (a.isInt32() && b.isInt32()) {
            long result = operator.exact.applyAsLong(a.asInt32().getValue(), b.asInt32().getValue()); // fits a long
            return result == (int) result ? new BsonInt32((int) result) : new BsonInt64(result);
        }
        try {
            return new BsonInt64(operator.exact.applyAsLong(a.asNumber().longValue(), b.asNumber().longValue()));
        } catch (ArithmeticException overflow) {
            throw new CommandException(ErrorCode.BadValue, "Failed to apply " + operator.name
                    + " operations to current value (" + a.asNumber().longValue() + "): long overflow");
        }
    }

    private static Decimal128 decimal(BsonValue v) {
        return switch (v.getBsonType()) {
            case DECIMAL128 -> v.asDecimal128().getValue();
            case DOUBLE -> {
                double d = v.asDouble().getValue();
                if (Double.isNaN(d)) {
                    yield Decimal128.NaN;
                }
                if (Double.isInfinite(d)) {
                    yield d > 0 ? Decimal128.POSITIVE_INFINITY : Decimal128.NEGATIVE_INFINITY;
                }
                yield new Decimal128(new BigDecimal(d, new MathContext(15)));
            }
            default -> new Decimal128(v.asNumber().longValue());
        };
    }

    /** NaN and infinities as IEEE 754 for decimals; finite values exactly, rounded to 34 digits. */
    private Decimal128 decimalResult(Decimal128 a, Decimal128 b) {
        if (a.isNaN() || b.isNaN()) {
            return Decimal128.NaN;
        }
        if (a.isInfinite() || b.isInfinite()) {
            return infiniteResult(a, b);
        }
        return new Decimal128(operator.decimal.apply(exact(a), exact(b)).round(MathContext.DECIMAL128));
    }

    private Decimal128 infiniteResult(Decimal128 a, Decimal128 b) {
        if (operator == Operator.INC) {
            boolean opposite = a.isInfinite() && b.isInfinite() && a.isNegative() != b.isNegative();
            return opposite ? Decimal128.NaN : (a.isInfinite() ? a : b);
        }
        Decimal128 finite = a.isInfinite() ? b : a;
        if (!finite.isInfinite() && exact(finite).signum() == 0) {
            return Decimal128.NaN;
        }
        return a.isNegative() != b.isNegative() ? Decimal128.NEGATIVE_INFINITY : Decimal128.POSITIVE_INFINITY;
    }

    private static BigDecimal exact(Decimal128 d) {
        try {
            return d.bigDecimalValue();
        } catch (ArithmeticException negativeZero) {
            return BigDecimal.ZERO;
        }
    }
}
