package dev.shardstore.engine.query;

import dev.shardstore.contracts.bson.BsonOrder;
import dev.shardstore.contracts.bson.Collation;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.bson.BsonDocument;
import org.bson.BsonNull;
import org.bson.BsonValue;

/**
 * A parsed sort specification (MongoDB manual, "cursor.sort()", "Comparison/Sort Order"). Immutable and
 * thread-safe.
 *
 * <p>Shape: {@code {<path>: 1 | -1, ...}}; keys are compared in order, each in BSON order
 * ({@link BsonOrder}). A field's sort key follows MongoDB's sort-key generation: of the values the path
 * reaches through arrays ({@link Paths.Mode#SORT_KEY}: array elements, not whole arrays), the smallest for ascending and the
 * largest for descending; a missing field sorts as null; an empty array sorts below null ("A comparison of
 * an empty array considers the empty array as less than a null value or a missing field value").
 *
 * <p>Errors: BadValue (2) for a direction other than 1 or -1 (15975 in MongoDB), an empty spec key, or
 * {@code {$meta: ...}}, which this engine does not support yet.
 */
public final class Sort {
    private final List<Key> keys;
    private final Collation collation;

    private Sort(List<Key> keys, Collation collation) {
        this.keys = keys;
        this.collation = collation;
    }

    /**
     * Parses a sort specification; {@code {}} leaves documents in their order.
     *
     * @throws CommandException BadValue (2) as listed on the class
     */
    public static Sort parse(BsonDocument spec) {
        return parse(spec, Collation.SIMPLE);
    }

    /**
     * Parses a sort specification whose string keys (also inside arrays and documents) order under {@code collation},
     * as a command's {@code collation} makes MongoDB sort.
     *
     * @throws CommandException BadValue (2) as listed on the class
     */
    public static Sort parse(BsonDocument spec, Collation collation) {
        List<Key> keys = new ArrayList<>();
        for (Map.Entry<String, BsonValue> entry : spec.entrySet()) {
            String path = entry.getKey();
            if (path.isEmpty() || Paths.split(path).contains("")) {
                throw new CommandException(ErrorCode.BadValue, "sort field path '" + path + "' contains an empty field name");
            }
            keys.add(new Key(Paths.split(path), direction(path, entry.getValue())));
        }
        return new Sort(List.copyOf(keys), collation);
    }

    /** The order of documents under this sort; documents with equal keys compare as equal. */
    public Comparator<BsonDocument> comparator() {
        return (a, b) -> {
            for (Key key : keys) {
                int c = BsonOrder.compare(key.of(a, collation), key.of(b, collation), collation);
                if (c != 0) {
                    return key.ascending ? c : -c;
                }
            }
            return 0;
        };
    }

    /**
     * Whether the first key is {@code _id} ascending: documents in ascending {@code _id} order are then in this sort's
     * order whatever the later keys (an {@code _id} is unique and never an array, so its sort key is itself). Never
     * under a collation other than the simple one: the {@code _id} order is binary.
     */
    public boolean leadsWithAscendingId() {
        return collation.isSimple() && !keys.isEmpty() && keys.getFirst().ascending && keys.getFirst().path.equals(List.of("_id"));
    }

    private static boolean direction(String path, BsonValue value) {
        if (value.isNumber() || value.isDecimal128()) {
            double d = value.asNumber().doubleValue();
            if (d == 1 || d == -1) {
                return d == 1;
            }
        }
        throw new CommandException(ErrorCode.BadValue,
                "$sort key ordering must be 1 (for ascending) or -1 (for descending): " + Values.element(path, value));
    }

    private record Key(List<String> path, boolean ascending) {
        /** This key's sort value in {@code doc}: the extreme value reached for this direction, or null. */
        BsonValue of(BsonDocument doc, Collation collation) {
            BsonValue extreme = null;
            for (BsonValue value : Paths.resolve(doc, path, Paths.Mode.SORT_KEY)) {
                BsonValue candidate = value == null ? BsonNull.VALUE : value;
                int c = extreme == null ? 0 : BsonOrder.compare(candidate, extreme, collation);
                if (extreme == null || (ascending ? c < 0 : c > 0)) {
                    extreme = candidate;
                }
            }
            return extreme == null ? BsonNull.VALUE : extreme;
        }
    }
}
