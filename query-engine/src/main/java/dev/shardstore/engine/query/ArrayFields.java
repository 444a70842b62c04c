package dev.shardstore.engine.query;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.util.List;
import java.util.function.Function;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/** The current elements of a field an array update operator ({@code $push $addToSet $pull $pullAll}) works on. */
final class ArrayFields {
    private ArrayFields() {}

    /**
     * The elements of {@code existing}; empty when it is missing.
     *
     * @param notArray the operator's BadValue (2) message for a field that is not an array, given that field's value
     * @throws CommandException BadValue (2) with that message
     */
    static List<BsonValue> require(@Nullable BsonValue existing, Function<BsonValue, String> notArray) {
        if (existing == null) {
            return List.of();
        }
        if (!existing.isArray()) {
            throw new CommandException(ErrorCode.BadValue, notArray.apply(existing));
        }
        return existing.asArray().getValues();
    }
}
