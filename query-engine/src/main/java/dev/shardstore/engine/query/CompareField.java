package dev.shardstore.engine.query;

import dev.shardstore.contracts.bson.BsonOrder;
import org.bson.BsonValue;

/**
 * {@code $min} and {@code $max} (MongoDB manual, "$min", "$max"): replace the field when the given value is
 * less (greater) than the current one in BSON order, across types too ({@code $min: {a: null}} replaces a
 * number); a missing field is created with the value.
 *
 * @param max whether this is {@code $max}
 * @param value the value to compare with
 */
record CompareField(boolean max, BsonValue value) implements UpdateOperation {
    @Override
    public boolean createsPath() {
        return true;
    }

    @Override
    public void apply(Slot slot, BsonValue existing, UpdateContext context) {
        int c = existing == null ? 0 : BsonOrder.compare(value, existing);
        if (existing == null || (max ? c > 0 : c < 0)) {
            slot.set(Values.copy(value));
        }
    }
}
