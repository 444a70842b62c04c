package dev.shardstore.engine.aggregate;

import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/** Reading and setting dotted paths through embedded documents (never through arrays), copy-on-write. */
final class Documents {
    private Documents() {}

    /** The value at {@code path}, or null when a component is missing or not a document. */
    static @Nullable BsonValue get(BsonDocument doc, List<String> path) {
        BsonValue value = doc;
        for (String component : path) {
            if (value == null || !value.isDocument()) {
                return null;
            }
            value = value.asDocument().get(component);
        }
        return value;
    }

    /**
     * A copy of {@code doc} with {@code value} at {@code path}; the documents along the path are copied (or
     * created where missing or not documents), everything else is shared.
     */
    static BsonDocument with(BsonDocument doc, List<String> path, BsonValue value) {
        BsonDocument copy = new BsonDocument();
        copy.putAll(doc);
        String first = path.getFirst();
        if (path.size() == 1) {
            copy.put(first, value);
        } else {
            BsonValue child = doc.get(first);
            BsonDocument base = child != null && child.isDocument() ? child.asDocument() : new BsonDocument();
            copy.put(first, with(base, path.subList(1, path.size()), value));
        }
        return copy;
    }
}
