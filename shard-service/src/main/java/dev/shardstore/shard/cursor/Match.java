package dev.shardstore.shard.cursor;

import dev.shardstore.shard.storage.StoredDocument;
import org.bson.BsonDocument;
import org.jspecify.annotations.Nullable;

/**
 * A stored document that matched a filter, and its decoded form. A scan whose bounds answer the filter exactly never
 * needs the decoded form, so it is then made on the first call of {@link #document}; a reply that sends the stored bytes
 * ({@link StoredDocument#raw}) never makes it. Not thread-safe, like the scan that made it.
 */
public final class Match {
    private final StoredDocument stored;
    private @Nullable BsonDocument document;

    /**
     * @param stored  the row as read
     * @param decoded its decoded document, or null to decode it when first asked
     */
    public Match(StoredDocument stored, @Nullable BsonDocument decoded) {
        this.stored = stored;
        this.document = decoded;
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
}
