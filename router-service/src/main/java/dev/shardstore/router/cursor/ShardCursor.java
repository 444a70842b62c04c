package dev.shardstore.router.cursor;

import java.util.List;
import org.bson.BsonDocument;

/**
 * The rest of one shard's cursor, as a router cursor reads it (mongos's remote cursor of the
 * {@code AsyncResultsMerger}): further batches on demand, and a kill. Implementations need not be thread-safe;
 * the router cursor using one serialises its calls.
 */
public interface ShardCursor {
    /** The shard holding the cursor. */
    String shardId();

    /** Whether the shard has closed the cursor (its last reply carried id 0), or it was killed. */
    boolean exhausted();

    /**
     * The shard's next batch ({@code getMore}); only called while not {@link #exhausted()}.
     *
     * @param batchSize the {@code batchSize} to ask for; 0 for the shard's default
     * @throws dev.shardstore.contracts.error.CommandException the shard's error (CursorNotFound, ...) or a
     *                                                         transport error; the cursor counts as exhausted
     */
    List<BsonDocument> getMore(int batchSize);

    /** Kills the shard cursor when it is still open; never throws (a failure is only logged). */
    void kill();
}
