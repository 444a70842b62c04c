package dev.shardstore.shard.cursor;

import dev.shardstore.support.operation.OperationContext;

/**
 * The server side of one query's results, handed out in batches by find/getMore. Implementations
 * hold no database connection between batches. Called by one thread at a time.
 */
public interface ShardCursor {
    /**
     * The next batch: at most {@code maxDocuments} documents and at most 16 MiB of them (a first
     * document larger than that is returned alone).
     *
     * @param opCtx        the operation asking for the batch (find, aggregate or getMore), whose deadline the read keeps
     * @param maxDocuments 0 returns an empty batch without reading
     */
    Batch next(OperationContext opCtx, long maxDocuments);

    /**
     * Releases what the cursor holds besides memory (the spill files of a sorted result); called when it is exhausted,
     * killed, reaped or fails, and idempotent. Nothing by default.
     */
    default void close() {}
}
