package dev.shardstore.engine.query;

import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * {@code $unset}: removes the field; an array element becomes null instead; a missing field is a no-op
 * (MongoDB manual, "$unset").
 */
record UnsetField() implements UpdateOperation {
    @Override
    public boolean createsPath() {
        return false;
    }

    @Override
    public void apply(Slot slot, @Nullable BsonValue existing, UpdateContext context) {
        if (existing != null) {
            slot.remove();
        }
    }
}
