package dev.shardstore.engine.query;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import org.bson.BsonDateTime;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * {@code $currentDate} (MongoDB manual, "$currentDate"): sets the field to the update's time, a date for
 * {@code true} or {@code {$type: "date"}}, a timestamp (seconds, increment 1) for {@code {$type: "timestamp"}}.
 *
 * <p>Errors (BadValue, 2): "The '$type' string field is required to be 'date' or 'timestamp'"; any other
 * argument "... is not valid type for $currentDate. Please use a boolean ('true') or a $type expression
 * ({$type: 'timestamp/date'})."
 *
 * @param timestamp whether a timestamp rather than a date is set
 */
record CurrentDateField(boolean timestamp) implements UpdateOperation {
    /** @throws CommandException as listed on the class */
    static CurrentDateField parse(String path, BsonValue argument) {
        if (argument.isBoolean()) {
            return new CurrentDateField(false);
        }
        if (argument.isDocument() && argument.asDocument().size() == 1 && argument.asDocument().containsKey("$type")) {
            BsonValue type = argument.asDocument().get("$type");
            if (type.isString() && (type.asString().getValue().equals("date") || type.asString().getValue().equals("timestamp"))) {
                return new CurrentDateField(type.asString().getValue().equals("timestamp"));
            }
            throw new CommandException(ErrorCode.BadValue, "The '$type' string field is required to be 'date' or"
                    + " 'timestamp': " + Values.element("$currentDate", Values.copy(argument)));
        }
        throw new CommandException(ErrorCode.BadValue, Values.element(path, argument) + " is not valid type for"
                + " $currentDate. Please use a boolean ('true') or a $type expression ({$type: 'timestamp/date'}).");
    }

    @Override
    public boolean createsPath() {
        return true;
    }

    @Override
    public void apply(Slot slot, @Nullable BsonValue existing, UpdateContext context) {
        slot.set(timestamp
                ? new BsonTimestamp((int) context.now().getEpochSecond(), 1)
                : new BsonDateTime(context.now().toEpochMilli()));
    }
}
