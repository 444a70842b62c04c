package dev.shardstore.shard.cursor;

import dev.shardstore.support.operation.OperationContext;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.bson.BsonDocument;

/**
 * A cursor over results already computed in memory: a sorted result, a lookup by {@code _id}, the
 * catalog entries of listCollections. Each document is shaped (projected) when it is handed out.
 */
public final class ListCursor implements ShardCursor {
    private final List<BsonDocument> documents;
    private final UnaryOperator<BsonDocument> shape;
    private int next;

    /**
     * @param documents the results in order (copied)
     * @param shape     applied to each document as it is returned, e.g. a projection
     */
    public ListCursor(List<BsonDocument> documents, UnaryOperator<BsonDocument> shape) {
        this.documents = new ArrayList<>(documents);
        this.shape = shape;
    }

    @Override
    public Batch next(OperationContext opCtx, long maxDocuments) {
        BatchBuilder batch = new BatchBuilder(maxDocuments);
        while (!batch.isFull() && next < documents.size()) {
            BsonDocument out = shape.apply(documents.get(next));
            int size = BatchBuilder.sizeOf(out);
            if (!batch.fits(size)) {
                break;
            }
            batch.add(out, size);
            documents.set(next++, null);
        }
        return new Batch(batch.documents(), next == documents.size());
    }
}
