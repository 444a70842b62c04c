package dev.shardstore.shard.query;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.math.BigDecimal;
import java.math.MathContext;
import org.bson.BsonDecimal128;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonValue;
import org.bson.types.Decimal128;

/**
 * {@code $inc}: adds to a number, or creates the field with the increment (MongoDB manual, "$inc"; the
 * arithmetic is MongoDB's {@code SafeNum}): int + int is an int unless it overflows, then a long; long
 * arithmetic that overflows is BadValue; anything with a double is a double; anything with a decimal is a
 * decimal (a double converted to 15 significant digits first).
 *
 * @param path the full update path, for messages
 * @param amount the increment, a number
 */
record IncField(String path, BsonValue amount) implements UpdateOperation {
    /** @throws CommandException TypeMismatch (14) when the increment is not a number */
    IncField {
        if (!amount.isNumber() && !amount.isDecimal128()) {
            throw new CommandException(ErrorCode.TypeMismatch,
                    "Cannot increment with non-numeric argument: " + Values.element(path, amount));
        }
    }

    @Override
    public boolean createsPath() {
        return true;
    }

    /** @throws CommandException TypeMismatch (14) when the field holds a non-number */
    @Override
    public void apply(Slot slot, BsonValue existing) {
        if (existing == null) {
            slot.set(amount);
            return;
        }
        if (!existing.isNumber() && !existing.isDecimal128()) {
            throw new CommandException(ErrorCode.TypeMismatch, "Cannot apply $inc to a value of non-numeric type. The field '"
                    + path + "' has non-numeric type " + TypeNames.of(existing.getBsonType()));
        }
        slot.set(add(existing, amount));
    }

    private static BsonValue add(BsonValue a, BsonValue b) {
        if (a.isDecimal128() || b.isDecimal128()) {
            return new BsonDecimal128(addDecimals(decimal(a), decimal(b)));
        }
        if (a.isDouble() || b.isDouble()) {
            return new BsonDouble(a.asNumber().doubleValue() + b.asNumber().doubleValue());
        }
        if (a.isInt32() && b.isInt32()) {
            long sum = (long) a.asInt32().getValue() + b.asInt32().getValue();
            return sum == (int) sum ? new BsonInt32((int) sum) : new BsonInt64(sum);
        }
        try {
            return new BsonInt64(Math.addExact(a.asNumber().longValue(), b.asNumber().longValue()));
        } catch (ArithmeticException overflow) {
            throw new CommandException(ErrorCode.BadValue,
                    "Failed to apply $inc operations to current value (" + a.asNumber().longValue() + "): long overflow");
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

    private static Decimal128 addDecimals(Decimal128 a, Decimal128 b) {
        if (a.isNaN() || b.isNaN()) {
            return Decimal128.NaN;
        }
        if (a.isInfinite() || b.isInfinite()) {
            boolean opposite = a.isInfinite() && b.isInfinite() && a.isNegative() != b.isNegative();
            return opposite ? Decimal128.NaN : (a.isInfinite() ? a : b);
        }
        return new Decimal128(exact(a).add(exact(b), MathContext.DECIMAL128));
    }

    private static BigDecimal exact(Decimal128 d) {
        try {
            return d.bigDecimalValue();
        } catch (ArithmeticException negativeZero) {
            return BigDecimal.ZERO;
        }
    }
}
