package dev.shardstore.engine.aggregate.expression;

import dev.shardstore.contracts.hash.BsonHasher;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.engine.query.TypeNames;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Map;
import org.bson.BsonBoolean;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonInvalidOperationException;
import org.bson.BsonNull;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.BsonType;
import org.bson.BsonValue;
import org.bson.types.ObjectId;
import org.jspecify.annotations.Nullable;

/**
 * Type conversion expression operators (MongoDB manual, "$convert"): {@code $convert: {input, to, onError?,
 * onNull?}} with {@code to} a type name ({@code "double" "string" "objectId" "bool" "date" "int" "long"
 * "decimal"}) or its number, the shorthands {@code $toInt $toLong $toDouble $toString $toDate}, and
 * {@code $toHashedIndexKey}. Null or
 * missing input gives null (or {@code onNull}). Rules: numbers convert when the value fits (doubles truncate
 * towards zero); strings parse as base-10 integers for int/long, as numbers for double/decimal, as ISO-8601
 * for date, as 24 hex digits for objectId; booleans give 0/1 and numbers give booleans by non-zero; dates give
 * their epoch milliseconds as long/double and ISO-8601 strings; numbers give dates as epoch milliseconds.
 *
 * <p>Errors: ConversionFailure (241) for a value that does not convert, unless {@code onError} is given;
 * BadValue (2) for an unknown target type.
 */
final class Conversions {
    static final Map<String, OperatorParser> OPERATORS = Map.of(
            "$convert", Conversions::convert,
            "$toInt", shorthand(BsonType.INT32),
            "$toLong", shorthand(BsonType.INT64),
            "$toDouble", shorthand(BsonType.DOUBLE),
            "$toString", shorthand(BsonType.STRING),
            "$toDate", shorthand(BsonType.DATE_TIME),
            "$toHashedIndexKey", Conversions::hashedIndexKey);

    private static final Map<String, BsonType> TARGETS = Map.of("double", BsonType.DOUBLE, "string", BsonType.STRING,
            "objectId", BsonType.OBJECT_ID, "bool", BsonType.BOOLEAN, "date", BsonType.DATE_TIME, "int", BsonType.INT32,
            "long", BsonType.INT64, "decimal", BsonType.DECIMAL128);

    private Conversions() {}

    /**
     * {@code $toHashedIndexKey: <expression>}: the value's hash as a hashed index or hashed shard key stores
     * it (MongoDB's function, see {@link BsonHasher}), as a long; a missing value hashes as null, as a hashed
     * index stores it.
     */
    private static Expression hashedIndexKey(String name, BsonValue arg, ExpressionParser parser) {
        Expression input = Operands.exactly(name, arg, parser, 1).getFirst();
        return variables -> {
            BsonValue value = input.evaluate(variables);
            return new BsonInt64(BsonHasher.hash64(value == null ? BsonNull.VALUE : value));
        };
    }

    private static OperatorParser shorthand(BsonType target) {
        return (name, arg, parser) -> {
            Expression input = Operands.exactly(name, arg, parser, 1).getFirst();
            return variables -> {
                BsonValue value = input.evaluate(variables);
                return Operands.nullish(value) ? BsonNull.VALUE : to(target, value);
            };
        };
    }

    private static Expression convert(String name, BsonValue arg, ExpressionParser parser) {
        BsonDocument named = Operands.named(name, arg);
        Expression input = parser.parse(Operands.required(name, named, "input"));
        Expression to = parser.parse(Operands.required(name, named, "to"));
        Expression onError = named.containsKey("onError") ? parser.parse(named.get("onError")) : null;
        Expression onNull = named.containsKey("onNull") ? parser.parse(named.get("onNull")) : variables -> BsonNull.VALUE;
        return variables -> {
            BsonType target = target(to.evaluate(variables));
            BsonValue value = input.evaluate(variables);
            if (Operands.nullish(value)) {
                return onNull.evaluate(variables);
            }
            try {
                return to(target, value);
            } catch (CommandException e) {
                if (onError == null || e.code() != ErrorCode.ConversionFailure) {
                    throw e;
                }
                return onError.evaluate(variables);
            }
        };
    }

    private static BsonType target(@Nullable BsonValue to) {
        BsonType named = to != null && to.isString() ? TARGETS.get(to.asString().getValue()) : null;
        if (named != null) {
            return named;
        }
        if (Numbers.isNumber(to)) {
            BsonType type = BsonType.findByValue((int) Numbers.toDouble(to));
            if (TARGETS.containsValue(type)) {
                return type;
            }
        }
        throw new CommandException(ErrorCode.BadValue, "Unknown type name: " + (to == null ? "missing" : to.toString()));
    }

    /** {@code value} (neither null nor missing) converted to {@code target}. */
    static BsonValue to(BsonType target, BsonValue value) {
        try {
            return switch (target) {
                case INT32 -> {
                    long l = toLong(value);
                    if (l != (int) l) {
                        throw failure(value, target, "value out of range");
                    }
                    yield new BsonInt32((int) l);
                }
                case INT64 -> new BsonInt64(toLong(value));
                case DOUBLE -> new BsonDouble(value.isString() ? Double.parseDouble(value.asString().getValue()) : toBigDecimal(value).doubleValue());
                case DECIMAL128 -> value.isDecimal128() ? value : Numbers.decimal(value.isString()
                        ? new BigDecimal(value.asString().getValue()) : toBigDecimal(value));
                case STRING -> new BsonString(string(value));
                case BOOLEAN -> BsonBoolean.valueOf(!Numbers.isNumber(value) && !value.isBoolean() || Booleans.truthy(value));
                case DATE_TIME -> new BsonDateTime(switch (value.getBsonType()) {
                    case STRING -> Instant.parse(value.asString().getValue()).toEpochMilli();
                    case OBJECT_ID -> value.asObjectId().getValue().getTimestamp() * 1000L;
                    case DATE_TIME -> value.asDateTime().getValue();
                    default -> toBigDecimal(value).longValue();
                });
                case OBJECT_ID -> value.isObjectId() ? value : new BsonObjectId(new ObjectId(value.asString().getValue()));
                default -> throw new IllegalArgumentException(target.name());
            };
        } catch (DateTimeParseException | ArithmeticException
                 | BsonInvalidOperationException | IllegalArgumentException e) {
            throw failure(value, target, e.getMessage());
        }
    }

    private static long toLong(BsonValue value) {
        return switch (value.getBsonType()) {
            case STRING -> Long.parseLong(value.asString().getValue());
            case DATE_TIME -> value.asDateTime().getValue();
            case INT32, INT64, BOOLEAN -> toBigDecimal(value).longValueExact();
            default -> {
                BigDecimal exact = toBigDecimal(value);
                yield exact.setScale(0, RoundingMode.DOWN).longValueExact();
            }
        };
    }

    /** A numeric, boolean or date value as an exact number; NaN and infinities fail. */
    private static BigDecimal toBigDecimal(BsonValue value) {
        return switch (value.getBsonType()) {
            case BOOLEAN -> value.asBoolean().getValue() ? BigDecimal.ONE : BigDecimal.ZERO;
            case DATE_TIME -> BigDecimal.valueOf(value.asDateTime().getValue());
            case DOUBLE -> {
                double d = value.asDouble().getValue();
                if (Double.isNaN(d) || Double.isInfinite(d)) {
                    throw new ArithmeticException("Attempt to convert NaN or infinity value to integer");
                }
                yield new BigDecimal(d);
            }
            case INT32, INT64, DECIMAL128 -> Numbers.toBigDecimal(value);
            default -> throw new IllegalArgumentException("Unsupported conversion from " + TypeNames.of(value.getBsonType()));
        };
    }

    private static String string(BsonValue value) {
        return switch (value.getBsonType()) {
            case STRING -> value.asString().getValue();
            case INT32, INT64 -> Long.toString(value.asNumber().longValue());
            case DOUBLE -> {
                double d = value.asDouble().getValue();
                yield d == Math.rint(d) && !Double.isInfinite(d) && Math.abs(d) < 1e15 ? Long.toString((long) d) : Double.toString(d);
            }
            case DECIMAL128 -> value.asDecimal128().getValue().toString();
            case BOOLEAN -> Boolean.toString(value.asBoolean().getValue());
            case OBJECT_ID -> value.asObjectId().getValue().toHexString();
            case DATE_TIME -> Instant.ofEpochMilli(value.asDateTime().getValue()).toString();
            default -> throw new IllegalArgumentException("Unsupported conversion from " + TypeNames.of(value.getBsonType()));
        };
    }

    private static CommandException failure(BsonValue value, BsonType target, @Nullable String reason) {
        return new CommandException(ErrorCode.ConversionFailure, "Failed to parse " + TypeNames.of(target) + " from "
                + TypeNames.of(value.getBsonType()) + " " + value + (reason == null ? "" : ": " + reason));
    }
}
