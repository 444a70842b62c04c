package dev.shardstore.engine.query;

import dev.shardstore.contracts.bson.BsonOrder;
import dev.shardstore.contracts.bson.Collation;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * {@code $min} and {@code $max} (MongoDB manual, "$min", "$max"): replace the field when the given value is
 * less (greater) than the current one in BSON order, across types too ({@code $min: {a: null}} replaces a
 * number); a missing field is created with the value.
 *
 * Strings compare under the statement's collation (MongoDB's {@code CompareNode} takes the collator).
 *
 * @param max whether this is {@code $max}
 * @param value the value to compare with
 * @param collation the statement's collation
 */
record CompareField(boolean max, BsonValue value, Collation collation) implements UpdateOperation {
    @Override
    public boolean createsPath() {
        return true;
    }

    @Override
    public void apply(Slot slot, @Nullable BsonValue existing, UpdateContext context) {
        int c = existing == null ? 0 : BsonOrder.compare(value, existing, collation);
        if (existing == null || (max ? c > 0 : c < 0)) {
            slot.set(Values.copy(value));
        }
    }
}
