package dev.shardstore.contracts.version;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.bson.BsonTimestamp;
import org.bson.types.ObjectId;

/**
 * The version rules of every catalog commit, exactly the tables of mongo/src/mongo/db/s/README.md "Types of operations that will cause
 * the versioning information to become stale" and "Special versioning conventions" as docs/sharding-protocol.md
 * ("Version rules") spells them out. Pure functions; {@code cv} is the collection version (highest chunk version),
 * {@code sv} a shard's version (highest chunk version on that shard). The "unsharded", "dropped" and "ignored"
 * conventions are the contract's {@link ChunkVersion#UNSHARDED} and {@link ChunkVersion#IGNORED}.
 */
public final class VersionRules {
    /** The lastMod of the config and admin databases, which never move. */
    public static final int RESERVED_DATABASE_LAST_MOD = 0;

    private VersionRules() {}

    /**
     * Shard a collection: its {@code count} initial chunks, in key order, get {@code 1|0, 1|1, …} of the new epoch.
     *
     * @throws IllegalArgumentException when {@code count < 1}
     */
    public static List<ChunkVersion> shardCollection(int count, ObjectId epoch, BsonTimestamp timestamp) {
        if (count < 1) {
            throw new IllegalArgumentException("a sharded collection has at least one chunk, not " + count);
        }
        List<ChunkVersion> versions = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            versions.add(new ChunkVersion(1, i, epoch, timestamp));
        }
        return versions;
    }

    /**
     * Split a chunk of shard {@code s} into {@code pieces}: the base is {@code (cv.major + 1)|0} when
     * {@code sv(s) == cv} (SERVER-41480: otherwise the shard could not tell its version moved on) and {@code cv}
     * otherwise; the pieces, in key order, get base.minor + 1, + 2, …
     *
     * @throws IllegalArgumentException when the versions are of different epochs or {@code pieces < 2}
     */
    public static List<ChunkVersion> split(ChunkVersion collectionVersion, ChunkVersion shardVersion, int pieces) {
        requireSameEpoch(collectionVersion, shardVersion);
        if (pieces < 2) {
            throw new IllegalArgumentException("a split makes at least two chunks, not " + pieces);
        }
        ChunkVersion base = shardVersion.compareTo(collectionVersion) == 0 ? nextMajor(collectionVersion, 0) : collectionVersion;
        List<ChunkVersion> versions = new ArrayList<>(pieces);
        for (int i = 1; i <= pieces; i++) {
            versions.add(new ChunkVersion(base.major(), base.minor() + i, base.epoch(), base.timestamp()));
        }
        return versions;
    }

    /** Merge chunks: the merged chunk gets {@code (cv.major + 1)|0}. */
    public static ChunkVersion merge(ChunkVersion collectionVersion) {
        return nextMajor(collectionVersion, 0);
    }

    /** Move a chunk: the moved chunk gets {@code (cv.major + 1)|0}. */
    public static ChunkVersion migratedChunk(ChunkVersion collectionVersion) {
        return nextMajor(collectionVersion, 0);
    }

    /**
     * Move a chunk: a chunk left on the donor (MongoDB's control chunk) gets {@code (cv.major + 1)|1}, so the
     * donor's shard version changes too.
     */
    public static ChunkVersion controlChunk(ChunkVersion collectionVersion) {
        return nextMajor(collectionVersion, 1);
    }

    /**
     * The fence a recovering migration donor puts on its chunk (MongoDB's {@code _configsvrEnsureChunkVersionIsGreaterThan}):
     * the chunk gets {@code (cv.major + 1)|0}, so that a commit still in flight that names its old version is refused.
     * Not in those tables, which list user-visible operations; it bumps like a merge.
     */
    public static ChunkVersion fence(ChunkVersion collectionVersion) {
        return nextMajor(collectionVersion, 0);
    }

    /** Refine the shard key: the chunk keeps its major|minor under the new epoch and timestamp. */
    public static ChunkVersion refine(ChunkVersion version, ObjectId newEpoch, BsonTimestamp newTimestamp) {
        return new ChunkVersion(version.major(), version.minor(), newEpoch, newTimestamp);
    }

    /** Change a database's primary shard (movePrimary): same uuid, {@code lastMod + 1}. */
    public static DatabaseVersion movePrimary(DatabaseVersion version, BsonTimestamp timestamp) {
        return new DatabaseVersion(version.uuid(), version.lastMod() + 1, timestamp);
    }

    /** A new database, and so also a database created again after a drop: a new uuid, {@code lastMod} 1. */
    public static DatabaseVersion newDatabase(BsonTimestamp timestamp) {
        return DatabaseVersion.newDatabase(timestamp);
    }

    /** The config and admin databases: a uuid, {@code lastMod} 0. */
    public static DatabaseVersion reservedDatabase(BsonTimestamp timestamp) {
        return new DatabaseVersion(UUID.randomUUID(), RESERVED_DATABASE_LAST_MOD, timestamp);
    }

    private static ChunkVersion nextMajor(ChunkVersion v, int minor) {
        return new ChunkVersion(v.major() + 1, minor, v.epoch(), v.timestamp());
    }

    private static void requireSameEpoch(ChunkVersion a, ChunkVersion b) {
        if (!a.sameEpoch(b)) {
            throw new IllegalArgumentException("versions " + a + " and " + b + " are of different epochs");
        }
    }
}
