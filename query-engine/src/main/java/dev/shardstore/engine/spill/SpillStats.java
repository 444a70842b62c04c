package dev.shardstore.engine.spill;

import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt64;

/**
 * What one stage wrote to disk, for explain's {@code executionStats} as MongoDB reports it per stage: {@code usedDisk},
 * {@code spills} (runs written), {@code spilledBytes} (bytes written). Updated by one thread, the stage's.
 */
public final class SpillStats {
    private long spills;
    private long spilledBytes;

    /** Counts one run of {@code bytes} written. */
    void spilled(long bytes) {
        spills++;
        spilledBytes += bytes;
    }

    /** Whether the stage wrote anything to disk. */
    public boolean usedDisk() {
        return spills > 0;
    }

    /** Runs (or partitions) written. */
    public long spills() {
        return spills;
    }

    /** Bytes written to spill files. */
    public long spilledBytes() {
        return spilledBytes;
    }

    /** {@code {usedDisk, spills, spilledBytes}}, the fields explain adds to a blocking stage's statistics. */
    public BsonDocument toDocument() {
        return new BsonDocument("usedDisk", BsonBoolean.valueOf(usedDisk()))
                .append("spills", new BsonInt64(spills))
                .append("spilledBytes", new BsonInt64(spilledBytes));
    }
}
