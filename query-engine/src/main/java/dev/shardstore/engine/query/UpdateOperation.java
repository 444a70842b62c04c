package dev.shardstore.engine.query;

import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/** What one update operator does to the field at the end of its path (a leaf of the {@link UpdateTree}). */
interface UpdateOperation {
    /**
     * Whether the operator creates missing fields and intermediate documents along its path ({@code $set},
     * {@code $inc}); one that does not ({@code $unset}) is a no-op when the path does not exist.
     */
    boolean createsPath();

    /**
     * Applies the operator to {@code slot}, whose current value is {@code existing} ({@code null} when missing).
     */
    void apply(Slot slot, @Nullable BsonValue existing, UpdateContext context);
}
