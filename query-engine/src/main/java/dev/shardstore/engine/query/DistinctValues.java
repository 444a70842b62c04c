package dev.shardstore.engine.query;

import dev.shardstore.contracts.bson.BsonOrder;
import dev.shardstore.contracts.bson.Collation;
import java.util.List;
import java.util.NavigableSet;
import java.util.TreeSet;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * The distinct values of one dotted path over documents, as MongoDB's {@code distinct} (MongoDB manual,
 * "distinct"): the path traverses arrays as a query does; a field that holds an array contributes each of its
 * elements (an element that is itself an array is one value); missing fields contribute nothing, null does.
 * Values equal in BSON order ({@code 1}, {@code 1.0}; under a collation {@code "a"}, {@code "A"} at strength 2) count once, the first one seen kept; {@link #values()}
 * lists them in BSON order. Not thread-safe.
 */
public final class DistinctValues {
    private final List<String> path;
    private final NavigableSet<BsonValue> values;

    /** @param key the dotted path */
    public DistinctValues(String key) {
        this(key, Collation.SIMPLE);
    }

    /**
     * @param key the dotted path
     * @param collation values equal under it count once (the first seen kept), as MongoDB's distinct with a collation
     */
    public DistinctValues(String key, Collation collation) {
        this.path = Paths.split(key);
        this.values = new TreeSet<>((a, b) -> BsonOrder.compare(a, b, collation));
    }

    /** Adds the values {@code doc} holds at the path. */
    public void add(BsonDocument doc) {
        for (BsonValue value : Paths.resolve(doc, path, Paths.Mode.WHOLE_ARRAY)) {
            if (value == null) {
                continue;
            }
            if (value.isArray()) {
                value.asArray().forEach(values::add);
            } else {
                values.add(value);
            }
        }
    }

    /** The distinct values so far, in BSON order. */
    public List<BsonValue> values() {
        return List.copyOf(values);
    }
}
