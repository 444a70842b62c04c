package dev.shardstore.shard.storage;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.keystring.KeyString;
import dev.shardstore.contracts.keystring.Ordering;
import dev.shardstore.engine.query.Filter;
import dev.shardstore.engine.query.Paths;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import dev.shardstore.contracts.hash.BsonHasher;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonNull;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * MongoDB's index key generation for one index: per key field the values its path reaches (index-key
 * view of arrays: an array yields each element, an empty array {@code undefined}, a missing field
 * {@code null}), one key per combination, duplicates within a document dropped. A sparse index skips
 * documents missing every key field; a partial index skips documents not matching its filter. Two
 * array-valued key fields in one document are refused (CannotIndexParallelArrays, 171). A hashed field
 * ({@code {a: "hashed"}}) stores {@link BsonHasher#hash64} of its value (of null when missing) as a NumberLong,
 * as MongoDB's hashed indexes do, and refuses arrays (BadValue). An index with a non-simple collation stores every
 * string of a key (also nested, also the value a hashed field hashes) as its collation key
 * ({@link dev.shardstore.contracts.bson.Collation#indexKey}), as MongoDB's KeyString with a collator does.
 */
public final class IndexKeys {
    private final IndexSpec spec;
    private final List<List<String>> paths = new ArrayList<>();
    private final Ordering ordering;
    private final @Nullable Filter partial;
    /** Position of the hashed field in the key, or -1. */
    private final int hashed;

    public IndexKeys(IndexSpec spec) {
        this.spec = spec;
        spec.fields().forEach(f -> paths.add(Paths.split(f)));
        this.hashed = spec.hashedField() == null ? -1 : spec.fields().indexOf(spec.hashedField());
        this.ordering = spec.ordering();
        this.partial = spec.partial() == null ? null : Filter.parse(spec.partial());
    }

    /** One key of a document: its KeyString and the values it was made of (for error messages). */
    public record Key(byte[] bytes, List<BsonValue> values) {}

    /** The document's keys (empty when the index leaves it out) and whether it is multikey. */
    public record Keys(List<Key> keys, boolean multikey) {}

    public Keys of(BsonDocument doc) {
        if (partial != null && !partial.matches(doc)) {
            return new Keys(List.of(), false);
        }
        List<List<BsonValue>> perField = new ArrayList<>();
        boolean allMissing = true;
        int arrays = 0;
        for (int field = 0; field < paths.size(); field++) {
            List<String> path = paths.get(field);
            if (field == hashed) {
                BsonValue value = hashedValue(doc, path);
                allMissing &= value == null;
                perField.add(List.of(new BsonInt64(BsonHasher.hash64(value == null ? BsonNull.VALUE : spec.collation().indexKey(value)))));
                continue;
            }
            List<BsonValue> values = Paths.resolve(doc, path, Paths.Mode.SORT_KEY);
            List<BsonValue> normalized = new ArrayList<>();
            for (BsonValue v : values) {
                if (v != null) {
                    allMissing = false;
                }
                normalized.add(v == null ? BsonNull.VALUE : v);
            }
            if (normalized.isEmpty()) {
                normalized.add(BsonNull.VALUE);
            }
            if (normalized.size() > 1 || reachesArray(doc, path)) {
                arrays++;
            }
            perField.add(normalized);
        }
        if (spec.sparse() && allMissing) {
            return new Keys(List.of(), false);
        }
        if (arrays > 1) {
            throw new CommandException(ErrorCode.CannotIndexParallelArrays, "cannot index parallel arrays "
                    + String.join(", ", spec.fields()));
        }
        Map<ByteBuffer, Key> keys = new LinkedHashMap<>();
        combine(perField, 0, new ArrayList<>(), keys);
        return new Keys(new ArrayList<>(keys.values()), arrays > 0);
    }

    private void combine(List<List<BsonValue>> perField, int i, List<BsonValue> prefix, Map<ByteBuffer, Key> out) {
        if (i == perField.size()) {
            byte[] bytes = KeyString.encode(prefix.stream().map(spec.collation()::indexKey).toList(), ordering);
            out.putIfAbsent(ByteBuffer.wrap(bytes), new Key(bytes, List.copyOf(prefix)));
            return;
        }
        for (BsonValue v : perField.get(i)) {
            prefix.add(v);
            combine(perField, i + 1, prefix, out);
            prefix.removeLast();
        }
    }

    /**
     * The value a hashed field's path reaches, null when missing.
     *
     * @throws CommandException BadValue when the path meets an array (MongoDB: "hashed indexes do not currently
     *                          support array values")
     */
    private @Nullable BsonValue hashedValue(BsonDocument doc, List<String> path) {
        if (reachesArray(doc, path)) {
            throw new CommandException(ErrorCode.BadValue, "hashed indexes do not currently support array values: field '"
                    + String.join(".", path) + "' of index " + spec.name());
        }
        List<BsonValue> values = Paths.resolve(doc, path, Paths.Mode.SORT_KEY);
        return values.isEmpty() ? null : values.getFirst();
    }

    /** Whether the path meets an array anywhere (so the field is multikey even with a single element). */
    private static boolean reachesArray(BsonValue value, List<String> path) {
        BsonValue current = value;
        for (String component : path) {
            if (current == null) {
                return false;
            }
            if (current.isArray()) {
                return true;
            }
            if (!current.isDocument()) {
                return false;
            }
            current = current.asDocument().get(component);
        }
        return current != null && current.isArray();
    }
}
