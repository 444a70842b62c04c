package dev.shardstore.engine.aggregate.expression;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.engine.query.TypeNames;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.List;
import java.util.Map;
import org.bson.BsonDateTime;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonNull;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * Arithmetic expression operators (MongoDB manual, "Arithmetic Expression Operators"):
 * {@code $add $subtract $multiply $divide $mod $abs $ceil $floor $round $trunc}. A null or missing operand
 * makes the result null; types promote as {@link Numbers} describes; {@code $divide} answers a double (a
 * decimal for decimal operands). {@code $add} takes at most one date and then answers a date;
 * {@code $subtract} answers a date for date − number and milliseconds (long) for date − date. {@code $round}
 * rounds half to even, {@code $trunc} towards zero, both to an optional number of decimal places.
 *
 * <p>Errors: TypeMismatch (14) {@code "$add only supports numeric or date types, not string"}; BadValue (2)
 * for a division by zero ({@code "can't $divide by zero"}) and a modulo by zero.
 */
final class Arithmetic {
    static final Map<String, OperatorParser> OPERATORS = Map.of(
            "$add", (name, arg, p) -> add(Operands.list(arg, p)),
            "$multiply", (name, arg, p) -> fold(name, Operands.list(arg, p), Numbers.MULTIPLY),
            "$subtract", (name, arg, p) -> subtract(Operands.exactly(name, arg, p, 2)),
            "$divide", (name, arg, p) -> binary(name, Operands.exactly(name, arg, p, 2), Arithmetic::divide),
            "$mod", (name, arg, p) -> binary(name, Operands.exactly(name, arg, p, 2), Arithmetic::mod),
            "$abs", (name, arg, p) -> rounding(name, Operands.exactly(name, arg, p, 1), null),
            "$ceil", (name, arg, p) -> rounding(name, Operands.exactly(name, arg, p, 1), RoundingMode.CEILING),
            "$floor", (name, arg, p) -> rounding(name, Operands.exactly(name, arg, p, 1), RoundingMode.FLOOR),
            "$round", (name, arg, p) -> rounding(name, Operands.between(name, arg, p, 1, 2), RoundingMode.HALF_EVEN),
            "$trunc", (name, arg, p) -> rounding(name, Operands.between(name, arg, p, 1, 2), RoundingMode.DOWN));

    private Arithmetic() {}

    private interface Binary {
        BsonValue apply(String name, BsonValue a, BsonValue b);
    }

    private static Expression add(List<Expression> operands) {
        return variables -> {
            BsonValue sum = new BsonInt32(0);
            BsonDateTime date = null;
            for (Expression operand : operands) {
                BsonValue value = operand.evaluate(variables);
                if (Operands.nullish(value)) {
                    return BsonNull.VALUE;
                }
                if (value.isDateTime()) {
                    if (date != null) {
                        throw new CommandException(ErrorCode.TypeMismatch, "only one date allowed in an $add expression");
                    }
                    date = value.asDateTime();
                } else {
                    sum = Numbers.apply(Numbers.ADD, sum, number("$add", value, true));
                }
            }
            return date == null ? sum : new BsonDateTime(date.getValue() + Math.round(Numbers.toDouble(sum)));
        };
    }

    private static Expression fold(String name, List<Expression> operands, Numbers.Op op) {
        return variables -> {
            BsonValue result = new BsonInt32(1);
            for (Expression operand : operands) {
                BsonValue value = operand.evaluate(variables);
                if (Operands.nullish(value)) {
                    return BsonNull.VALUE;
                }
                result = Numbers.apply(op, result, number(name, value, false));
            }
            return result;
        };
    }

    private static Expression subtract(List<Expression> operands) {
        return binary("$subtract", operands, (name, a, b) -> {
            if (a.isDateTime() && b.isDateTime()) {
                return new BsonInt64(a.asDateTime().getValue() - b.asDateTime().getValue());
            }
            if (a.isDateTime() && Numbers.isNumber(b)) {
                return new BsonDateTime(a.asDateTime().getValue() - Math.round(Numbers.toDouble(b)));
            }
            return Numbers.apply(Numbers.SUBTRACT, number(name, a, true), number(name, b, true));
        });
    }

    private static Expression binary(String name, List<Expression> operands, Binary op) {
        return variables -> {
            BsonValue a = operands.get(0).evaluate(variables);
            BsonValue b = operands.get(1).evaluate(variables);
            if (Operands.nullish(a) || Operands.nullish(b)) {
                return BsonNull.VALUE;
            }
            return op.apply(name, a, b);
        };
    }

    private static BsonValue divide(String name, BsonValue a, BsonValue b) {
        number(name, a, false);
        number(name, b, false);
        if (Numbers.toDouble(b) == 0) {
            throw new CommandException(ErrorCode.BadValue, "can't $divide by zero");
        }
        if (a.isDecimal128() || b.isDecimal128()) {
            return Numbers.decimal(Numbers.toBigDecimal(a).divide(Numbers.toBigDecimal(b), MathContext.DECIMAL128));
        }
        return new BsonDouble(Numbers.toDouble(a) / Numbers.toDouble(b));
    }

    private static BsonValue mod(String name, BsonValue a, BsonValue b) {
        number(name, a, false);
        number(name, b, false);
        if (Numbers.toDouble(b) == 0) {
            throw new CommandException(ErrorCode.BadValue, "can't $mod by zero");
        }
        return switch (Numbers.wider(a.getBsonType(), b.getBsonType())) {
            case DECIMAL128 -> Numbers.decimal(Numbers.toBigDecimal(a).remainder(Numbers.toBigDecimal(b)));
            case DOUBLE -> new BsonDouble(Numbers.toDouble(a) % Numbers.toDouble(b));
            case INT64 -> new BsonInt64(a.asNumber().longValue() % b.asNumber().longValue());
            default -> new BsonInt32(a.asNumber().intValue() % b.asNumber().intValue());
        };
    }

    /** {@code $abs} when {@code mode} is null, otherwise rounding to the optional places operand. */
    private static Expression rounding(String name, List<Expression> operands, @Nullable RoundingMode mode) {
        return variables -> {
            BsonValue value = operands.get(0).evaluate(variables);
            BsonValue places = operands.size() > 1 ? operands.get(1).evaluate(variables) : new BsonInt32(0);
            if (Operands.nullish(value) || Operands.nullish(places)) {
                return BsonNull.VALUE;
            }
            number(name, value, false);
            if (mode == null) {
                return abs(value);
            }
            int scale = (int) Numbers.toDouble(number(name, places, false));
            BigDecimal rounded = Numbers.toBigDecimal(value).setScale(scale, mode);
            return switch (value.getBsonType()) {
                case DECIMAL128 -> Numbers.decimal(rounded);
                case DOUBLE -> new BsonDouble(rounded.doubleValue());
                case INT64 -> new BsonInt64(rounded.longValue());
                default -> Numbers.integral(rounded.longValue());
            };
        };
    }

    private static BsonValue abs(BsonValue value) {
        return switch (value.getBsonType()) {
            case DECIMAL128 -> Numbers.decimal(Numbers.toBigDecimal(value).abs());
            case DOUBLE -> new BsonDouble(Math.abs(value.asDouble().getValue()));
            case INT64 -> value.asInt64().getValue() == Long.MIN_VALUE
                    ? new BsonDouble(-(double) Long.MIN_VALUE) : new BsonInt64(Math.abs(value.asInt64().getValue()));
            default -> Numbers.integral(Math.abs((long) value.asInt32().getValue()));
        };
    }

    private static BsonValue number(String name, BsonValue value, boolean orDate) {
        if (!Numbers.isNumber(value)) {
            throw new CommandException(ErrorCode.TypeMismatch, name + " only supports numeric" + (orDate ? " or date" : "")
                    + " types, not " + TypeNames.of(value.getBsonType()));
        }
        return value;
    }
}
