package dev.shardstore.shard.migration;

import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.contracts.sharding.ChunkRange;
import dev.shardstore.contracts.sharding.KeyRange;
import dev.shardstore.contracts.sharding.ShardKeyPattern;
import java.time.Instant;
import java.util.Arrays;
import java.util.Objects;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * One range deletion task (table {@code range_deletions}; MongoDB's {@code config.rangeDeletions} document): the
 * documents of {@code range} in collection instance {@code collectionUuid} are orphans of this shard once the task is
 * ready. Immutable.
 *
 * @param id             the migration that created it
 * @param namespace      the collection
 * @param collectionUuid this shard's collection instance (a dropped and re-created collection's task does nothing)
 * @param keyPattern     the shard key
 * @param range          the orphaned range
 * @param pending        true until the migration's decision makes the range this shard's to clean
 * @param side           which side of the migration this shard was
 * @param whenToClean    {@code NOW}, or {@code DELAYED} by {@code orphanCleanupDelaySecs} after it became ready
 * @param readyAt        when it became ready; null while pending
 */
public record RangeDeletionTask(UUID id, Namespace namespace, UUID collectionUuid, ShardKeyPattern keyPattern, ChunkRange range,
        boolean pending, Side side, WhenToClean whenToClean, @Nullable Instant readyAt) {
    public RangeDeletionTask {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(collectionUuid, "collectionUuid");
        Objects.requireNonNull(keyPattern, "keyPattern");
        Objects.requireNonNull(range, "range");
        Objects.requireNonNull(side, "side");
        Objects.requireNonNull(whenToClean, "whenToClean");
        if (Arrays.compareUnsigned(keyPattern.encode(range.min()), keyPattern.encode(range.max())) >= 0) {
            throw new IllegalArgumentException("a range deletion task needs min < max: " + range);
        }
        if (pending != (readyAt == null)) {
            throw new IllegalArgumentException("a task has readyAt exactly when it is not pending");
        }
    }

    /** A new pending task. */
    public static RangeDeletionTask pending(UUID id, Namespace namespace, UUID collectionUuid, ShardKeyPattern keyPattern,
            ChunkRange range, Side side, WhenToClean whenToClean) {
        return new RangeDeletionTask(id, namespace, collectionUuid, keyPattern, range, true, side, whenToClean, null);
    }

    /** The range as KeyStrings. */
    public KeyRange keyRange() {
        return KeyRange.of(keyPattern, range);
    }

    /** Which side of a migration wrote the task. */
    public enum Side {
        /** The donor's copy of the range, to delete after a commit. */
        DONOR,
        /** The recipient's partial copy, to delete after an abort. */
        RECIPIENT
    }

    /** MongoDB's {@code whenToClean}. */
    public enum WhenToClean {
        /** As soon as it is ready. */
        NOW,
        /** {@code orphanCleanupDelaySecs} after it became ready. */
        DELAYED
    }
}
