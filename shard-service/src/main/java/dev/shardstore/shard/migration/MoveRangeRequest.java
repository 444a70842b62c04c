package dev.shardstore.shard.migration;

import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.contracts.sharding.ChunkRange;
import dev.shardstore.contracts.version.ChunkVersion;
import java.util.Objects;

/**
 * What {@code _shardsvrMoveRange} asks of a donor (sent by the config service's {@code _configsvrMoveRange}). Immutable.
 *
 * @param namespace         the collection
 * @param range             exactly one chunk of this shard
 * @param chunkVersion      that chunk's version in the catalog when the config service resolved it
 * @param fromShard         this shard's name (as the catalog knows the owner)
 * @param toShard           the recipient
 * @param waitForDelete     answer only once the donor's orphans are deleted (MongoDB's {@code _waitForDelete}); the
 *                          deletion then does not wait {@code orphanCleanupDelaySecs}
 * @param forceJumbo        move even a range holding more than about {@code maxChunkSizeBytes}
 * @param maxChunkSizeBytes the size above which a range is too big to move without {@code forceJumbo}, positive
 */
public record MoveRangeRequest(Namespace namespace, ChunkRange range, ChunkVersion chunkVersion, String fromShard, String toShard,
        boolean waitForDelete, boolean forceJumbo, long maxChunkSizeBytes) {
    public MoveRangeRequest {
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(range, "range");
        Objects.requireNonNull(chunkVersion, "chunkVersion");
        Objects.requireNonNull(fromShard, "fromShard");
        Objects.requireNonNull(toShard, "toShard");
        if (maxChunkSizeBytes < 1) {
            throw new IllegalArgumentException("maxChunkSizeBytes must be positive, was " + maxChunkSizeBytes);
        }
    }

    /** Whether {@code other} asks to move the same chunk to the same shard (a second request joins the first). */
    boolean sameMove(MoveRangeRequest other) {
        return namespace.equals(other.namespace) && range.equals(other.range) && toShard.equals(other.toShard);
    }
}
