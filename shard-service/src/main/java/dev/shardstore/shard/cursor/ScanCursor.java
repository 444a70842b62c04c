package dev.shardstore.shard.cursor;

import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.shard.storage.StoredDocument;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.bson.BsonDocument;
import org.jspecify.annotations.Nullable;

/**
 * A cursor that pages through a collection by keyset on the {@code _id} KeyString as batches are
 * requested, so an unsorted find holds neither a connection nor its results between getMores. Applies
 * the find's {@code skip} and {@code limit} and shapes (projects) each returned document.
 */
final class ScanCursor implements ShardCursor {
    private final MatchingScan scan;
    private final @Nullable UnaryOperator<BsonDocument> projection;
    private final boolean asStored;
    private long toSkip;
    private long limitLeft;

    /**
     * @param projection null to return documents whole
     * @param asStored   return unprojected documents as read-only views of their stored bytes ({@link StoredDocument#raw}),
     *                   for a reply that only encodes them; else as decoded, mutable documents
     * @param limit      most documents to return over the cursor's life; 0 for no limit
     */
    ScanCursor(MatchingScan scan, @Nullable UnaryOperator<BsonDocument> projection, boolean asStored, long skip, long limit) {
        this.scan = scan;
        this.asStored = asStored;
        this.projection = projection;
        this.toSkip = skip;
        this.limitLeft = limit == 0 ? Long.MAX_VALUE : limit;
    }

    @Override
    public Batch next(OperationContext opCtx, long maxDocuments) {
        scan.within(opCtx);
        BatchBuilder batch = new BatchBuilder(Math.min(maxDocuments, limitLeft));
        while (!batch.isFull()) {
            Optional<Match> match = scan.peek();
            if (match.isEmpty()) {
                break;
            }
            if (toSkip > 0) {
                toSkip--;
                scan.consume();
                continue;
            }
            BsonDocument out = projection != null ? projection.apply(match.get().document())
                    : asStored ? match.get().stored().raw() : match.get().document();
            int size = projection != null ? BatchBuilder.sizeOf(out) : match.get().stored().size();
            if (!batch.fits(size)) {
                break;
            }
            batch.add(out, size);
            scan.consume();
            limitLeft--;
        }
        scan.release();
        return new Batch(batch.documents(), limitLeft == 0 || scan.knownExhausted());
    }
}
