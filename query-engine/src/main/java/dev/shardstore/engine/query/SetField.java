package dev.shardstore.engine.query;

import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * {@code $set}: replaces the value, or creates the field (MongoDB manual, "$set"); and {@code $setOnInsert},
 * which does the same only on the insert side of an upsert and is a no-op otherwise (MongoDB manual,
 * "$setOnInsert").
 *
 * @param value the new value
 * @param onInsertOnly whether this is {@code $setOnInsert}
 */
record SetField(BsonValue value, boolean onInsertOnly) implements UpdateOperation {
    @Override
    public boolean createsPath() {
        return true;
    }

    @Override
    public void apply(Slot slot, @Nullable BsonValue existing, UpdateContext context) {
        if (!onInsertOnly || context.inserting()) {
            slot.set(Values.copy(value));
        }
    }
}
