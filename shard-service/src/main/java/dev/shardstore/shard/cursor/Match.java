package dev.shardstore.shard.cursor;

import dev.shardstore.engine.query.Filter;
import dev.shardstore.shard.storage.StoredDocument;
import java.util.function.Predicate;
import org.bson.BsonDocument;
import org.jspecify.annotations.Nullable;

/**
 * A stored document read as a candidate for a filter, and its decoded form, made on the first call of {@link #document}:
 * a scan whose bounds answer the filter exactly never needs it, and a reply that sends the stored bytes
 * ({@link StoredDocument#raw}) never makes it. Not thread-safe, like the scan that made it.
 */
public final class Match {
    private final StoredDocument stored;
    private @Nullable BsonDocument document;

    /** @param stored the row as read */
    public Match(StoredDocument stored) {
        this.stored = stored;
    }

    /** The row as read. */
    public StoredDocument stored() {
        return stored;
    }

    /** The decoded document (mutable; owned by whoever holds the match). */
    public BsonDocument document() {
        if (document == null) {
            document = stored.decode();
        }
        return document;
    }

    /** Whether the document matches {@code filter} and is {@code visible} (not an orphan for the running command); decodes it. */
    public boolean matches(Filter filter, Predicate<BsonDocument> visible) {
        return filter.matches(document()) && visible.test(document());
    }
}
