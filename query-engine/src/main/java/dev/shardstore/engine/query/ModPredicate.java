package dev.shardstore.engine.query;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.math.BigDecimal;
import java.math.RoundingMode;
import org.bson.BsonValue;
import org.bson.types.Decimal128;
import org.jspecify.annotations.Nullable;

/**
 * {@code $mod: [divisor, remainder]} on one value, as MongoDB's {@code ModMatchExpression} (MongoDB manual,
 * "$mod"): the value is a number whose integer part (truncated towards zero) leaves that remainder; the
 * divisor and remainder are truncated too. Non-numbers, NaN and infinities never match.
 *
 * <p>Errors (BadValue, 2): "malformed mod, needs to be an array", "malformed mod, not enough elements",
 * "malformed mod, too many elements", "malformed mod, divisor not a number", "malformed mod, remainder not a
 * number", "malformed mod, divisor value is invalid" (NaN, infinite), "divisor cannot be 0".
 */
record ModPredicate(long divisor, long remainder) implements ValuePredicate {
    /** @throws CommandException as listed on the class */
    static ModPredicate parse(BsonValue argument) {
        if (!argument.isArray()) {
            throw new CommandException(ErrorCode.BadValue, "malformed mod, needs to be an array");
        }
        if (argument.asArray().size() < 2) {
            throw new CommandException(ErrorCode.BadValue, "malformed mod, not enough elements");
        }
        if (argument.asArray().size() > 2) {
            throw new CommandException(ErrorCode.BadValue, "malformed mod, too many elements");
        }
        long divisor = operand(argument.asArray().get(0), "divisor");
        long remainder = operand(argument.asArray().get(1), "remainder");
        if (divisor == 0) {
            throw new CommandException(ErrorCode.BadValue, "divisor cannot be 0");
        }
        return new ModPredicate(divisor, remainder);
    }

    private static long operand(BsonValue value, String name) {
        if (!isNumeric(value)) {
            throw new CommandException(ErrorCode.BadValue, "malformed mod, " + name + " not a number");
        }
        BigDecimal truncated = truncate(value);
        if (truncated == null) {
            throw new CommandException(ErrorCode.BadValue, "malformed mod, " + name + " value is invalid");
        }
        return truncated.longValue();
    }

    @Override
    public boolean test(@Nullable BsonValue value) {
        if (value == null || !isNumeric(value)) {
            return false;
        }
        BigDecimal truncated = truncate(value);
        return truncated != null && truncated.longValue() % divisor == remainder;
    }

    private static boolean isNumeric(BsonValue value) {
        return value.isNumber() || value.isDecimal128();
    }

    /** The integer part of a number, or {@code null} for NaN and infinities. */
    private static @Nullable BigDecimal truncate(BsonValue value) {
        return switch (value.getBsonType()) {
            case INT32, INT64 -> BigDecimal.valueOf(value.asNumber().longValue());
            case DOUBLE -> {
                double d = value.asDouble().getValue();
                yield Double.isNaN(d) || Double.isInfinite(d) ? null : new BigDecimal(d).setScale(0, RoundingMode.DOWN);
            }
            default -> {
                Decimal128 d = value.asDecimal128().getValue();
                if (d.isNaN() || d.isInfinite()) {
                    yield null;
                }
                try {
                    yield d.bigDecimalValue().setScale(0, RoundingMode.DOWN);
                } catch (ArithmeticException negativeZero) {
                    yield BigDecimal.ZERO;
                }
            }
        };
    }
}
