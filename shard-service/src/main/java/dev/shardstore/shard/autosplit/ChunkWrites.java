package dev.shardstore.shard.autosplit;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The bytes written to one chunk since its last split attempt, and whether a split of it is in progress (MongoDB's
 * {@code ChunkWritesTracker} with its split lock; mongo/src/mongo/db/s/README.md "Deciding when to auto-split a chunk"). Thread-safe.
 */
final class ChunkWrites {
    private final AtomicLong bytes = new AtomicLong();
    private final AtomicBoolean splitting = new AtomicBoolean();

    /** Adds committed bytes; returns the new total. */
    long add(long written) {
        return bytes.addAndGet(written);
    }

    /** The bytes counted since the last split attempt started. */
    long bytes() {
        return bytes.get();
    }

    /**
     * Takes the split lock if no split of this chunk is in progress, and starts counting afresh (the writes made while
     * the split runs are counted for what comes after it).
     *
     * @return false when a split is already in progress
     */
    boolean tryStartSplit() {
        if (!splitting.compareAndSet(false, true)) {
            return false;
        }
        bytes.set(0);
        return true;
    }

    /** Releases the split lock (the attempt is over, whatever its outcome). */
    void finishSplit() {
        splitting.set(false);
    }
}
