package dev.shardstore.shard.migration;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

/**
 * Chunk migration and range deletion settings of one shard ({@code shardstore.shard.migration.*}; MongoDB's server
 * parameters where one exists).
 *
 * @param orphanCleanupDelay         how long a donor's range deletion task waits after the commit before its documents are
 *                                   deleted, for queries on the old owner to finish (MongoDB's {@code orphanCleanupDelaySecs},
 *                                   900 s); {@code _waitForDelete} and a recipient's task (after an abort) do not wait
 * @param rangeDeleterBatchSize      documents deleted per batch (MongoDB's {@code rangeDeleterBatchSize}), at least 1; 1000
 *                                   by measurement (docs/benchmarks.md "Chunk migration": 2.8 times the rate of batches of
 *                                   100, and larger batches gain little while holding their rows and the collection lock
 *                                   longer)
 * @param rangeDeleterBatchDelay     pause between two batches (MongoDB's {@code rangeDeleterBatchDelayMS}, 20 ms)
 * @param cloneBatchBytes            about how many bytes of documents one {@code _migrateClone} page carries (cut after the
 *                                   document that reaches it), at least 1 byte and at most 8 MB (replies stay well under
 *                                   16 MB); 1 MB by measurement (docs/benchmarks.md "Chunk migration": with two writers a
 *                                   move of 11.5 MB cloned in 2.2 s in pages of 1 MB, 2.7 s in pages of 4 MB, whose fewer
 *                                   pages overlap less)
 * @param cloneWriters               how many {@code _migrateClone} pages a recipient writes at once (each in its own unit of
 *                                   work, on its own connection), at least 1; 2 by measurement (docs/benchmarks.md "Chunk
 *                                   migration"). MongoDB's {@code chunkMigrationConcurrency} set the recipient's inserter
 *                                   threads the same way.
 * @param rangeDeleterWaitTimeout    how long a recipient waits for its own overlapping range deletion tasks before it
 *                                   refuses the incoming range (MongoDB's {@code receiveChunkWaitForRangeDeleterTimeoutMS},
 *                                   10 s)
 * @param recoveryRetryInterval      how often unfinished migrations (a peer that did not answer) are retried
 * @param statusPollInterval         how often the donor asks the recipient for its state while it clones and catches up
 */
@ConfigurationProperties("shardstore.shard.migration")
public record MigrationProperties(
        @DefaultValue("900s") Duration orphanCleanupDelay,
        @DefaultValue("1000") int rangeDeleterBatchSize,
        @DefaultValue("20ms") Duration rangeDeleterBatchDelay,
        @DefaultValue("1MB") DataSize cloneBatchBytes,
        @DefaultValue("2") int cloneWriters,
        @DefaultValue("10s") Duration rangeDeleterWaitTimeout,
        @DefaultValue("2s") Duration recoveryRetryInterval,
        @DefaultValue("50ms") Duration statusPollInterval) {
    /** The largest {@code clone-batch-bytes}: a page and its framing stay far below BSON's 16 MB reply limit. */
    static final DataSize MAX_CLONE_BATCH = DataSize.ofMegabytes(8);

    public MigrationProperties {
        if (rangeDeleterBatchSize < 1) {
            throw new IllegalArgumentException("shardstore.shard.migration.range-deleter-batch-size must be at least 1, was "
                    + rangeDeleterBatchSize);
        }
        if (cloneWriters < 1) {
            throw new IllegalArgumentException("shardstore.shard.migration.clone-writers must be at least 1, was " + cloneWriters);
        }
        if (cloneBatchBytes.toBytes() < 1 || cloneBatchBytes.toBytes() > MAX_CLONE_BATCH.toBytes()) {
            throw new IllegalArgumentException("shardstore.shard.migration.clone-batch-bytes must be between 1B and " + MAX_CLONE_BATCH
                    + ", was " + cloneBatchBytes);
        }
        if (orphanCleanupDelay.isNegative() || rangeDeleterBatchDelay.isNegative()) {
            throw new IllegalArgumentException("shardstore.shard.migration delays must not be negative");
        }
    }
}
