package dev.shardstore.shard.query;

import org.bson.BsonValue;

/** {@code $set}: replaces the value, or creates the field (MongoDB manual, "$set"). */
record SetField(BsonValue value) implements UpdateOperation {
    @Override
    public boolean createsPath() {
        return true;
    }

    @Override
    public void apply(Slot slot, BsonValue existing) {
        slot.set(Values.copy(value));
    }
}
