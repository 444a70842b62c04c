package dev.shardstore.shard.versioning;

/**
 * What a shard command does to the collection it names, declared by the command and enforced by
 * {@link CollectionShardingRuntime} (MongoDB's lock modes on a collection, reduced to what the shard needs).
 * A critical section blocks versioned commands by their access: phase 1 ({@link CriticalSectionPhase#CATCH_UP})
 * blocks {@link #WRITE} and {@link #EXCLUSIVE}, phase 2 ({@link CriticalSectionPhase#COMMIT}) also {@link #READ}.
 */
public enum CollectionAccess {
    /** The command does not touch the collection's data (or locks what it touches itself): no lock, no check. */
    NONE,
    /** Reads documents or indexes: the collection lock in shared mode (MongoDB's IS). */
    READ,
    /** Writes documents (or creates the collection): the collection lock in shared mode (MongoDB's IX). */
    WRITE,
    /** Changes the collection itself (drop, indexes, shardCollection's prepare): the collection lock exclusively (X). */
    EXCLUSIVE
}
