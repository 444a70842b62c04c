package dev.shardstore.contracts.sharding;

import java.util.Objects;
import org.bson.BsonDocument;

/**
 * A chunk's range {@code [min, max)} of shard key values, bounds in pattern shape ({@code {country: "FR",
 * name: MinKey}}); hashed components are hash values. BSON shape: {@code {min: {...}, max: {...}}}.
 *
 * @param min inclusive lower bound (copied)
 * @param max exclusive upper bound (copied)
 */
public record ChunkRange(BsonDocument min, BsonDocument max) {
    public ChunkRange {
        min = Objects.requireNonNull(min, "min").clone();
        max = Objects.requireNonNull(max, "max").clone();
    }

    @Override
    public BsonDocument min() {
        return min.clone();
    }

    @Override
    public BsonDocument max() {
        return max.clone();
    }

    public BsonDocument toBson() {
        return new BsonDocument("min", min.clone()).append("max", max.clone());
    }

    @Override
    public String toString() {
        return "[" + min.toJson() + ", " + max.toJson() + ")";
    }
}
