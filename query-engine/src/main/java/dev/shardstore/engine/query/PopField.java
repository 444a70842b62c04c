package dev.shardstore.engine.query;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * {@code $pop: {a: 1 | -1}} (MongoDB manual, "$pop"): removes the last (1) or first (-1) element; a missing
 * field or an empty array is left alone.
 *
 * <p>Errors: FailedToParse (9) "Expected a number in: a: "x""; BadValue (2) "$pop expects 1 or -1, found: 2";
 * TypeMismatch (14) "Path 'a' contains an element of non-array type 'int'" when applied to a non-array.
 *
 * @param path the update path, for messages
 * @param first whether the first element is removed
 */
record PopField(String path, boolean first) implements UpdateOperation {
    /** @throws CommandException as listed on the class */
    static PopField parse(String path, BsonValue argument) {
        if (!argument.isNumber() && !argument.isDecimal128()) {
            throw new CommandException(ErrorCode.FailedToParse, "Expected a number in: " + Values.element(path, argument));
        }
        double direction = argument.isDecimal128() ? argument.asDecimal128().doubleValue() : argument.asNumber().doubleValue();
        if (direction != 1 && direction != -1) {
            throw new CommandException(ErrorCode.BadValue, "$pop expects 1 or -1, found: " + argument.asNumber().doubleValue());
        }
        return new PopField(path, direction < 0);
    }

    @Override
    public boolean createsPath() {
        return false;
    }

    @Override
    public void apply(Slot slot, @Nullable BsonValue existing, UpdateContext context) {
        if (existing == null) {
            return;
        }
        if (!existing.isArray()) {
            throw new CommandException(ErrorCode.TypeMismatch, "Path '" + path + "' contains an element of non-array type '"
                    + TypeNames.of(existing.getBsonType()) + "'");
        }
        if (existing.asArray().isEmpty()) {
            return;
        }
        List<BsonValue> elements = new ArrayList<>(existing.asArray().getValues());
        elements.remove(first ? 0 : elements.size() - 1);
        slot.set(new BsonArray(elements));
    }
}
