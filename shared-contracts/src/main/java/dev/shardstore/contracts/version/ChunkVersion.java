package dev.shardstore.contracts.version;

import java.util.Date;
import java.util.Objects;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonObjectId;
import org.bson.BsonTimestamp;
import org.bson.types.ObjectId;

/**
 * A chunk's version (mongo/src/mongo/db/s/README.md "Shard versioning"): {@code major} +1 when a chunk moves,
 * {@code minor} +1 when it is split; the {@code epoch} identifies the collection instance (new on
 * drop/re-shard and on refineCollectionShardKey) and {@code timestamp} is the collection's
 * creation cluster time. The shard version is the highest chunk version on one shard, the
 * collection version the highest across all shards.
 *
 * <p>{@link #isOlderThan} answers only within one epoch (false across epochs, because the caller must
 * then do a full refresh instead). {@link #compareTo} is a total order consistent with {@link #equals}:
 * by the collection timestamp first (a newer incarnation of the collection is newer whatever its
 * major and minor, as MongoDB orders versions since 5.0), then the epoch, then (major, minor).
 *
 * <p>BSON shape: {@code {major: int, minor: int, epoch: ObjectId, timestamp: Timestamp}}.
 */
public record ChunkVersion(int major, int minor, ObjectId epoch, BsonTimestamp timestamp) implements Comparable<ChunkVersion> {
    /** "Collection is unsharded" (mongo/src/mongo/db/s/README.md "Special versioning conventions"): 0|0 with a zero epoch. */
    public static final ChunkVersion UNSHARDED = new ChunkVersion(0, 0, new ObjectId(new byte[12]), new BsonTimestamp(0));

    /** "Ignore the chunk version for this request": 0|0 with an epoch built from the maximum date. */
    public static final ChunkVersion IGNORED =
            new ChunkVersion(0, 0, new ObjectId(new Date(Integer.MAX_VALUE * 1000L), 0), new BsonTimestamp(Long.MAX_VALUE));

    public ChunkVersion {
        Objects.requireNonNull(epoch, "epoch");
        Objects.requireNonNull(timestamp, "timestamp");
        if (major < 0 || minor < 0) {
            throw new IllegalArgumentException("major and minor must be >= 0, were " + major + "|" + minor);
        }
    }

    public boolean sameEpoch(ChunkVersion other) {
        return epoch.equals(other.epoch) && timestamp.equals(other.timestamp);
    }

    /** True when both are of the same epoch and this one is lower in (major, minor) order. */
    public boolean isOlderThan(ChunkVersion other) {
        return sameEpoch(other) && compareTo(other) < 0;
    }

    /**
     * Orders by collection timestamp, then epoch, then (major, minor): within one epoch that is the (major, minor)
     * order, and 0 exactly when {@link #equals} (before, versions of different epochs with the same major and minor
     * compared equal, so sorted sets and maxima could merge or pick versions of a dropped collection).
     */
    @Override
    public int compareTo(ChunkVersion o) {
        int c = timestamp.compareTo(o.timestamp);
        if (c == 0) {
            c = epoch.compareTo(o.epoch);
        }
        if (c == 0) {
            c = Integer.compare(major, o.major);
        }
        return c != 0 ? c : Integer.compare(minor, o.minor);
    }

    public BsonDocument toBson() {
        return new BsonDocument("major", new BsonInt32(major))
                .append("minor", new BsonInt32(minor))
                .append("epoch", new BsonObjectId(epoch))
                .append("timestamp", timestamp);
    }

    /**
     * Reads {@code {major, minor, epoch, timestamp}}.
     *
     * @throws IllegalArgumentException naming the malformed document
     */
    public static ChunkVersion fromBson(BsonDocument doc) {
        try {
            return new ChunkVersion(doc.getNumber("major").intValue(), doc.getNumber("minor").intValue(),
                    doc.getObjectId("epoch").getValue(), doc.getTimestamp("timestamp"));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("malformed chunk version " + doc.toJson() + ": " + e.getMessage(), e);
        }
    }

    /**
     * Parses {@link #toString()}'s form {@code major|minor||epochHex||seconds|increment} (as catalog events carry it).
     *
     * @throws IllegalArgumentException naming the text when it is not in that form
     */
    public static ChunkVersion parse(String text) {
        String[] parts = text.split("\\|\\|", -1);
        try {
            String[] majorMinor = parts[0].split("\\|", -1);
            String[] time = parts[2].split("\\|", -1);
            if (parts.length != 3 || majorMinor.length != 2 || time.length != 2) {
                throw new IllegalArgumentException("expected major|minor||epoch||seconds|increment");
            }
            return new ChunkVersion(Integer.parseInt(majorMinor[0]), Integer.parseInt(majorMinor[1]), new ObjectId(parts[1]),
                    new BsonTimestamp(Integer.parseInt(time[0]), Integer.parseInt(time[1])));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("malformed chunk version '" + text + "': " + e.getMessage(), e);
        }
    }

    @Override
    public String toString() {
        return major + "|" + minor + "||" + epoch.toHexString() + "||" + timestamp.getTime() + "|" + timestamp.getInc();
    }
}
