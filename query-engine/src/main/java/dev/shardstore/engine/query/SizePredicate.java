package dev.shardstore.engine.query;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * {@code $size} on one value, as MongoDB's {@code SizeMatchExpression} (MongoDB manual, "$size"): the value
 * is an array of exactly that many elements. Used with {@link Paths.Mode#WHOLE_ARRAY}, so an array nested
 * in the field's array is not counted in its place.
 *
 * <p>Errors (BadValue, 2): "$size needs a number", "$size must be a whole number", "$size may not be negative".
 */
record SizePredicate(int size) implements ValuePredicate {
    /** @throws CommandException as listed on the class */
    static SizePredicate parse(BsonValue argument) {
        if (!argument.isNumber() && !argument.isDecimal128()) {
            throw new CommandException(ErrorCode.BadValue, "$size needs a number");
        }
        double size = argument.isDecimal128() ? argument.asDecimal128().doubleValue() : argument.asNumber().doubleValue();
        if (size != Math.rint(size) || Double.isInfinite(size)) {
            throw new CommandException(ErrorCode.BadValue, "$size must be a whole number");
        }
        if (size < 0) {
            throw new CommandException(ErrorCode.BadValue, "$size may not be negative");
        }
        return new SizePredicate(size > Integer.MAX_VALUE ? Integer.MAX_VALUE : (int) size);
    }

    @Override
    public boolean test(@Nullable BsonValue value) {
        return value != null && value.isArray() && value.asArray().size() == size;
    }
}
