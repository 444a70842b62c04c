package dev.shardstore.shard.migration;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Chunk migration and range deletion settings of one shard ({@code shardstore.shard.migration.*}; MongoDB's server
 * parameters where one exists).
 *
 * @param orphanCleanupDelay         how long a donor's range deletion task waits after the commit before its documents are
 *                                   deleted, for queries on the old owner to finish (MongoDB's {@code orphanCleanupDelaySecs},
 *                                   900 s); {@code _waitForDelete} and a recipient's task (after an abort) do not wait
 * @param rangeDeleterBatchSize      documents deleted per batch (MongoDB's {@code rangeDeleterBatchSize}), at least 1
 * @param rangeDeleterBatchDelay     pause between two batches (MongoDB's {@code rangeDeleterBatchDelayMS}, 20 ms)
 * @param cloneBatchDocuments        most documents one {@code _migrateClone} batch carries (also capped at 8 MB), at least 1
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
        @DefaultValue("1000") int cloneBatchDocuments,
        @DefaultValue("10s") Duration rangeDeleterWaitTimeout,
        @DefaultValue("2s") Duration recoveryRetryInterval,
        @DefaultValue("50ms") Duration statusPollInterval) {
    public MigrationProperties {
        if (rangeDeleterBatchSize < 1 || cloneBatchDocuments < 1) {
            throw new IllegalArgumentException("shardstore.shard.migration.range-deleter-batch-size and clone-batch-documents must be"
                    + " at least 1, were " + rangeDeleterBatchSize + " and " + cloneBatchDocuments);
        }
        if (orphanCleanupDelay.isNegative() || rangeDeleterBatchDelay.isNegative()) {
            throw new IllegalArgumentException("shardstore.shard.migration delays must not be negative");
        }
    }
}
