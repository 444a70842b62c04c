package dev.shardstore.router.cursor;

import dev.shardstore.contracts.bson.BsonBytes;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.bson.BsonDocument;

/**
 * A router cursor: the client-visible id and the stream of documents behind it (a merge of shard cursors or
 * results computed on the router). Batches are cut at the requested size or, without one, at 16 MiB of
 * documents (MongoDB's getMore limit). Thread-safe: calls on one cursor are serialised.
 */
public final class RouterCursor {
    /** The most bytes of documents one batch carries when no batch size is given (BSONObjMaxUserSize). */
    static final int MAX_BATCH_BYTES = BsonBytes.MAX_DOCUMENT_SIZE;

    private final long id;
    private final String db;
    private final String collection;
    private final DocumentStream stream;
    private volatile long lastUsedNanos = System.nanoTime();

    /**
     * @param id         the id the client sees (never 0)
     * @param db         database of the cursor's namespace
     * @param collection collection of the cursor's namespace ({@code $cmd.listCollections} for that command)
     * @param stream     the documents still to return
     */
    RouterCursor(long id, String db, String collection, DocumentStream stream) {
        if (id == 0) {
            throw new IllegalArgumentException("cursor ids are never 0");
        }
        this.id = id;
        this.db = Objects.requireNonNull(db, "db");
        this.collection = Objects.requireNonNull(collection, "collection");
        this.stream = Objects.requireNonNull(stream, "stream");
    }

    public long id() {
        return id;
    }

    public String db() {
        return db;
    }

    public String collection() {
        return collection;
    }

    public String ns() {
        return db + "." + collection;
    }

    long lastUsedNanos() {
        return lastUsedNanos;
    }

    /**
     * The next batch of {@code stream}: up to {@code batchSize} documents, or with {@code batchSize} 0 as many
     * as fit in {@link #MAX_BATCH_BYTES} (at least one).
     */
    static List<BsonDocument> batch(DocumentStream stream, int batchSize) {
        List<BsonDocument> batch = new ArrayList<>();
        long bytes = 0;
        while (batchSize == 0 || batch.size() < batchSize) {
            BsonDocument next = stream.next(batchSize == 0 ? 0 : batchSize - batch.size());
            if (next == null) {
                break;
            }
            batch.add(next);
            if (batchSize == 0) {
                bytes += BsonBytes.encode(next).length;
                if (bytes >= MAX_BATCH_BYTES) {
                    break;
                }
            }
        }
        return batch;
    }

    /** The next batch (see {@link #batch}); marks the cursor used. */
    synchronized List<BsonDocument> nextBatch(int batchSize) {
        lastUsedNanos = System.nanoTime();
        return batch(stream, batchSize);
    }

    /** Whether the cursor is known to have nothing more. */
    synchronized boolean exhausted() {
        return stream.exhausted();
    }

    /** Kills what remains (the shard cursors still open). */
    synchronized void kill() {
        stream.close();
    }
}
