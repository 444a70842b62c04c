package dev.shardstore.support.parameter;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.util.Objects;
import org.bson.BsonBoolean;
import org.bson.BsonDouble;
import org.bson.BsonInt64;
import org.bson.BsonValue;

/**
 * One server parameter (MongoDB manual, "MongoDB Server Parameters"): its MongoDB name, its type, its default and,
 * for a number, its inclusive bounds. Settable at start-up ({@code shardstore.set-parameter.<name>=<value>}, what
 * {@code ./cluster up --set-parameter} passes) and at run time ({@code setParameter}).
 *
 * @param name         MongoDB's name, e.g. {@code internalQueryMaxBlockingSortMemoryUsageBytes}
 * @param type         {@link Type#LONG} (answered as a 64-bit integer) or {@link Type#BOOLEAN}
 * @param defaultValue the value before anything sets it, of {@code type} and within the bounds
 * @param min          the least value of a {@link Type#LONG}; ignored for a boolean
 * @param max          the greatest value of a {@link Type#LONG}; ignored for a boolean
 * @param description  what it limits and in which unit, for {@code getParameter: {showDetails: true}} and the docs
 */
public record ServerParameter(String name, Type type, BsonValue defaultValue, long min, long max, String description) {
    /** The value types parameters have here. */
    public enum Type { LONG, BOOLEAN }

    public ServerParameter {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(description, "description");
        if (min > max) {
            throw new IllegalArgumentException(name + ": min " + min + " > max " + max);
        }
        if (!defaultValue.equals(parse(name, type, min, max, defaultValue))) {
            throw new IllegalArgumentException(name + ": default " + defaultValue + " is not a canonical value");
        }
    }

    /** A 64-bit integer parameter within {@code [min, max]}. */
    public static ServerParameter ofLong(String name, long defaultValue, long min, long max, String description) {
        return new ServerParameter(name, Type.LONG, new BsonInt64(defaultValue), min, max, description);
    }

    /** A boolean parameter. */
    public static ServerParameter ofBoolean(String name, boolean defaultValue, String description) {
        return new ServerParameter(name, Type.BOOLEAN, BsonBoolean.valueOf(defaultValue), 0, 0, description);
    }

    /**
     * {@code value} as this parameter stores it: a whole number of any numeric type (a double only when whole) as an
     * int64, a boolean as itself.
     *
     * @throws CommandException BadValue (2) for a value of another type or outside the bounds, naming the parameter
     */
    public BsonValue parse(BsonValue value) {
        return parse(name, type, min, max, value);
    }

    /**
     * A start-up value given as text ({@code true}/{@code false}, a decimal integer), checked as {@link #parse(BsonValue)}.
     *
     * @throws CommandException BadValue (2) as {@link #parse(BsonValue)}
     */
    public BsonValue parseText(String text) {
        String trimmed = text.trim();
        if (type == Type.BOOLEAN) {
            return switch (trimmed) {
                case "true", "1" -> BsonBoolean.TRUE;
                case "false", "0" -> BsonBoolean.FALSE;
                default -> throw badValue("a boolean (true or false)", trimmed);
            };
        }
        try {
            return parse(new BsonInt64(Long.parseLong(trimmed)));
        } catch (NumberFormatException e) {
            throw badValue("an integer", trimmed);
        }
    }

    private static BsonValue parse(String name, Type type, long min, long max, BsonValue value) {
        return switch (type) {
            case BOOLEAN -> {
                if (value.isBoolean()) {
                    yield value;
                }
                // MongoDB takes a number for a bool parameter too (non-zero is true)
                if (value.isNumber()) {
                    yield BsonBoolean.valueOf(value.asNumber().doubleValue() != 0);
                }
                throw new CommandException(ErrorCode.BadValue, "Invalid value for parameter " + name + ": " + value
                        + " is not a boolean");
            }
            case LONG -> {
                long number;
                if (value.isInt32() || value.isInt64()) {
                    number = value.asNumber().longValue();
                } else if (value.isDouble() && value.asDouble().getValue() == Math.rint(value.asDouble().getValue())
                        && Math.abs(value.asDouble().getValue()) < 0x1p63) {
                    number = (long) ((BsonDouble) value).getValue();
                } else {
                    throw new CommandException(ErrorCode.BadValue, "Invalid value for parameter " + name + ": " + value
                            + " is not a whole number");
                }
                if (number < min || number > max) {
                    throw new CommandException(ErrorCode.BadValue, "Invalid value for parameter " + name + ": " + number
                            + " is not in [" + min + ", " + max + "]");
                }
                yield new BsonInt64(number);
            }
        };
    }

    private CommandException badValue(String expected, String text) {
        return new CommandException(ErrorCode.BadValue, "Invalid value for parameter " + name + ": '" + text + "' is not " + expected);
    }
}
