package dev.shardstore.shard.storage;

import dev.shardstore.contracts.namespace.Namespace;
import java.util.List;
import java.util.Objects;

/**
 * Told of the client inserts and updates of documents of sharded collections once their {@link WriteUnitOfWork} has
 * committed (MongoDB's op observer hook that feeds the {@code ChunkWritesTracker}; mongo/src/mongo/db/s/README.md "Deciding when to
 * auto-split a chunk"). Writes of chunk migration and range deletion ({@code fromMigrate}) and writes of unsharded
 * collections are not reported; a write undone by a rolled-back savepoint or unit is not reported either.
 *
 * <p>Called on the writing thread after the commit, so it must be quick and must not throw (a throw is logged and
 * dropped: the write is already acknowledged).
 */
@FunctionalInterface
public interface CommittedWritesObserver {
    /** The documents one committed unit wrote, in write order. */
    void committed(List<WrittenDocument> written);

    /**
     * One inserted or updated document.
     *
     * @param namespace the collection
     * @param shardKey  the KeyString of its shard key (after the write)
     * @param bytes     the size of the document written (the post-image for an update), in bytes
     */
    record WrittenDocument(Namespace namespace, byte[] shardKey, int bytes) {
        public WrittenDocument {
            Objects.requireNonNull(namespace, "namespace");
            Objects.requireNonNull(shardKey, "shardKey");
            if (bytes < 0) {
                throw new IllegalArgumentException("bytes must not be negative, was " + bytes);
            }
        }
    }
}
