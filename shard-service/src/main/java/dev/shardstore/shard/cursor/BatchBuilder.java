package dev.shardstore.shard.cursor;

import dev.shardstore.contracts.bson.BsonBytes;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonDocument;

/**
 * Collects one batch under MongoDB's two caps: a number of documents ({@code batchSize}) and
 * {@value #MAX_BATCH_BYTES} bytes of documents, where the first document always fits so that a
 * cursor over large documents still advances.
 */
final class BatchBuilder {
    /** A reply's document bytes stay within the maximum BSON object size, as MongoDB's batches do. */
    static final int MAX_BATCH_BYTES = BsonBytes.MAX_DOCUMENT_SIZE;

    private final long maxDocuments;
    private final List<BsonDocument> documents = new ArrayList<>();
    private long bytes;

    BatchBuilder(long maxDocuments) {
        this.maxDocuments = maxDocuments;
    }

    /** True when the batch holds {@code maxDocuments} documents. */
    boolean isFull() {
        return documents.size() >= maxDocuments;
    }

    /** Whether a document of {@code size} bytes may still join the batch. */
    boolean fits(int size) {
        return documents.isEmpty() || bytes + size <= MAX_BATCH_BYTES;
    }

    void add(BsonDocument document, int size) {
        documents.add(document);
        bytes += size;
    }

    List<BsonDocument> documents() {
        return documents;
    }

    /** The encoded size of a document that has no stored bytes (a projection, a catalog entry). */
    static int sizeOf(BsonDocument document) {
        return BsonBytes.encode(document).length;
    }
}
