package dev.shardstore.shard.cursor;

import java.util.Optional;
import java.util.function.UnaryOperator;
import org.bson.BsonDocument;

/**
 * A cursor that pages through a collection by keyset on the {@code _id} KeyString as batches are
 * requested, so an unsorted find holds neither a connection nor its results between getMores. Applies
 * the find's {@code skip} and {@code limit} and shapes (projects) each returned document.
 */
final class ScanCursor implements ShardCursor {
    private final MatchingScan scan;
    private final UnaryOperator<BsonDocument> projection;
    private final boolean projects;
    private long toSkip;
    private long limitLeft;

    /**
     * @param projection null to return documents as stored
     * @param limit      most documents to return over the cursor's life; 0 for no limit
     */
    ScanCursor(MatchingScan scan, UnaryOperator<BsonDocument> projection, long skip, long limit) {
        this.scan = scan;
        this.projects = projection != null;
        this.projection = projects ? projection : UnaryOperator.identity();
        this.toSkip = skip;
        this.limitLeft = limit == 0 ? Long.MAX_VALUE : limit;
    }

    @Override
    public Batch next(long maxDocuments) {
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
            BsonDocument out = projection.apply(match.get().document());
            int size = projects ? BatchBuilder.sizeOf(out) : match.get().stored().size();
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
