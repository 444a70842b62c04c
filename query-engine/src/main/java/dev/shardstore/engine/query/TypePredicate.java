package dev.shardstore.engine.query;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.bson.BsonType;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * {@code $type} on one value, as MongoDB's {@code TypeMatchExpression} (MongoDB manual, "$type"): the value
 * has one of the listed BSON types. Types are given by alias ({@code "string"}, {@code "objectId"}, ...,
 * see {@link TypeNames}), by {@code "number"} (int, long, double, decimal) or by numeric code (1–19,
 * -1 minKey, 127 maxKey), alone or as an array of them. With implicit array traversal, {@code {a: {$type:
 * "string"}}} matches an array holding a string and {@code {$type: "array"}} matches the array itself;
 * a missing field matches nothing.
 *
 * <p>Errors: TypeMismatch (14) "type must be represented as a number or a string"; BadValue (2)
 * "Unknown type name alias: foo", "Invalid numerical type code: 100", "$type must match at least one type".
 */
record TypePredicate(Set<BsonType> types) implements ValuePredicate {
    private static final Set<BsonType> NUMBERS =
            EnumSet.of(BsonType.INT32, BsonType.INT64, BsonType.DOUBLE, BsonType.DECIMAL128);

    /** @throws CommandException as listed on the class */
    static TypePredicate parse(BsonValue argument) {
        List<BsonValue> specs = argument.isArray() ? argument.asArray().getValues() : List.of(argument);
        if (specs.isEmpty()) {
            throw new CommandException(ErrorCode.BadValue, "$type must match at least one type");
        }
        Set<BsonType> types = EnumSet.noneOf(BsonType.class);
        specs.forEach(spec -> types.addAll(typesOf(spec)));
        return new TypePredicate(types);
    }

    private static Set<BsonType> typesOf(BsonValue spec) {
        if (spec.isString()) {
            String alias = spec.asString().getValue();
            if (alias.equals("number")) {
                return NUMBERS;
            }
            for (BsonType type : BsonType.values()) {
                if (type != BsonType.END_OF_DOCUMENT && TypeNames.of(type).equals(alias)) {
                    return EnumSet.of(type);
                }
            }
            throw new CommandException(ErrorCode.BadValue, "Unknown type name alias: " + alias);
        }
        if (spec.isNumber() || spec.isDecimal128()) {
            double code = spec.isDecimal128() ? spec.asDecimal128().doubleValue() : spec.asNumber().doubleValue();
            int integral = (int) code;
            if (integral == code) {
                for (BsonType type : BsonType.values()) {
                    if (type != BsonType.END_OF_DOCUMENT && code(type) == integral) {
                        return EnumSet.of(type);
                    }
                }
            }
            throw new CommandException(ErrorCode.BadValue, "Invalid numerical type code: " + spec.asNumber().doubleValue());
        }
        throw new CommandException(ErrorCode.TypeMismatch, "type must be represented as a number or a string");
    }

    /** MongoDB's numeric type code: the BSON type byte, except minKey, which is -1. */
    private static int code(BsonType type) {
        return type == BsonType.MIN_KEY ? -1 : type.getValue();
    }

    @Override
    public boolean test(@Nullable BsonValue value) {
        return value != null && types.contains(value.getBsonType());
    }
}
