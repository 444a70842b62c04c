package dev.shardstore.contracts.keystring;

import java.util.Collections;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonNumber;
import org.bson.BsonValue;

/**
 * The direction of each component of a compound key, as given by an index key pattern such as
 * {@code {a: 1, b: -1}}. A descending component sorts in reverse BSON order.
 *
 * @param directions one per key component, at least one; copied, so the record is immutable
 */
public record Ordering(List<Direction> directions) {
    /** The direction of one key component. */
    public enum Direction {
        ASCENDING,
        DESCENDING
    }

    /** @throws IllegalArgumentException if {@code directions} is empty */
    public Ordering {
        directions = List.copyOf(directions);
        if (directions.isEmpty()) {
            throw new IllegalArgumentException("a key has at least one component");
        }
    }

    /** {@code n} ascending components, as in a shard key or a single-field index. */
    public static Ordering allAscending(int n) {
        return new Ordering(Collections.nCopies(n, Direction.ASCENDING));
    }

    public static Ordering of(Direction... directions) {
        return new Ordering(List.of(directions));
    }

    /**
     * The ordering of an index key pattern, by MongoDB's rule ({@code Ordering::make}): a field whose
     * value is a negative number is descending, every other field ({@code 1}, {@code "hashed"},
     * {@code "text"}, ...) ascending.
     *
     * @throws IllegalArgumentException if the pattern is empty
     */
    public static Ordering fromKeyPattern(BsonDocument keyPattern) {
        return new Ordering(keyPattern.values().stream().map(Ordering::directionOf).toList());
    }

    private static Direction directionOf(BsonValue value) {
        return value instanceof BsonNumber n && n.doubleValue() < 0 ? Direction.DESCENDING : Direction.ASCENDING;
    }

    public int size() {
        return directions.size();
    }

    public boolean isDescending(int component) {
        return directions.get(component) == Direction.DESCENDING;
    }
}
