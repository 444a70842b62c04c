package dev.shardstore.contracts.sharding;

import dev.shardstore.contracts.bson.BsonOrder;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.util.Iterator;
import java.util.Objects;
import org.bson.BsonDocument;

/**
 * A chunk's range {@code [min, max)} of shard key values, bounds in pattern shape ({@code {country: "FR",
 * name: MinKey}}); hashed components are hash values. BSON shape: {@code {min: {...}, max: {...}}}.
 *
 * <p>As MongoDB's {@code ChunkRange::validate}: both bounds non-empty, with the same field names in the same
 * order, and {@code min < max} in BSON order (field by field; an empty range would own no key, and a table
 * made of such ranges could not be told apart from a gap). Whether the fields are the shard key's is checked
 * where the pattern is known ({@link RoutingTable}).
 *
 * @param min inclusive lower bound (copied)
 * @param max exclusive upper bound (copied)
 */
public record ChunkRange(BsonDocument min, BsonDocument max) {
    /**
     * @throws CommandException BadValue naming {@code min} or {@code max} when a bound is empty, the bounds have
     *                          different fields, or {@code min} is not below {@code max}
     */
    public ChunkRange {
        min = Objects.requireNonNull(min, "min").clone();
        max = Objects.requireNonNull(max, "max").clone();
        if (min.isEmpty() || max.isEmpty()) {
            throw new CommandException(ErrorCode.BadValue, "chunk range bound '" + (min.isEmpty() ? "min" : "max") + "' must not be empty");
        }
        if (!sameFields(min, max)) {
            throw new CommandException(ErrorCode.BadValue, "chunk range 'min' " + min.toJson() + " and 'max' " + max.toJson()
                    + " must have the same fields in the same order");
        }
        if (BsonOrder.compare(min, max) >= 0) {
            throw new CommandException(ErrorCode.BadValue, "chunk range 'min' " + min.toJson() + " must be less than 'max' " + max.toJson());
        }
    }

    /**
     * Reads {@link #toBson()}'s shape (also the {@code chunkRange} argument of the merge commit).
     *
     * @throws IllegalArgumentException naming the malformed document
     */
    public static ChunkRange fromBson(BsonDocument doc) {
        try {
            return new ChunkRange(doc.getDocument("min"), doc.getDocument("max"));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("malformed chunk range " + doc.toJson() + ": " + e.getMessage(), e);
        }
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

    /** Whether {@code a} and {@code b} have the same field names in the same order (also the shard key's shape check). */
    static boolean sameFields(BsonDocument a, BsonDocument b) {
        if (a.size() != b.size()) {
            return false;
        }
        Iterator<String> other = b.keySet().iterator();
        for (String field : a.keySet()) {
            if (!field.equals(other.next())) {
                return false;
            }
        }
        return true;
    }
}
