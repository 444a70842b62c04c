package dev.shardstore.contracts.version;

import java.util.Objects;
import java.util.UUID;
import org.bson.BsonBinary;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonTimestamp;
import org.bson.UuidRepresentation;

/**
 * The version of a database's placement (mongo/src/mongo/db/s/README.md "Shard versioning and database versioning",
 * "Database versioning"): which instance of the database ({@code uuid}, new on every drop and
 * re-create) and how often its primary shard changed ({@code lastMod}, +1 on movePrimary, 1 for a
 * new database). {@code timestamp} is the cluster time at which this version was created.
 *
 * <p>BSON shape, as in {@code config.databases}: {@code {uuid: UUID, lastMod: int, timestamp: Timestamp}}.
 *
 * @param uuid      identifies the database instance
 * @param lastMod   0 for config and admin, 1 for a new database, +1 per primary-shard change; never negative
 * @param timestamp creation cluster time of this version
 */
public record DatabaseVersion(UUID uuid, int lastMod, BsonTimestamp timestamp) {
    public DatabaseVersion {
        Objects.requireNonNull(uuid, "uuid");
        Objects.requireNonNull(timestamp, "timestamp");
        if (lastMod < 0) {
            throw new IllegalArgumentException("lastMod must be >= 0, was " + lastMod);
        }
    }

    /** A new database's first version: fresh uuid, lastMod 1 (mongo/src/mongo/db/s/README.md "Database version conventions"). */
    public static DatabaseVersion newDatabase(BsonTimestamp timestamp) {
        return new DatabaseVersion(UUID.randomUUID(), 1, timestamp);
    }

    /**
     * True when {@code other} describes a later state of the same database instance. Versions of
     * different instances are not ordered by this method: a uuid change always means "refresh".
     */
    public boolean isOlderThan(DatabaseVersion other) {
        return uuid.equals(other.uuid) && lastMod < other.lastMod;
    }

    public BsonDocument toBson() {
        return new BsonDocument("uuid", new BsonBinary(uuid, UuidRepresentation.STANDARD))
                .append("lastMod", new BsonInt32(lastMod))
                .append("timestamp", timestamp);
    }

    /**
     * Reads {@code {uuid, lastMod, timestamp}}.
     *
     * @throws IllegalArgumentException naming the field that is missing or of the wrong type
     */
    public static DatabaseVersion fromBson(BsonDocument doc) {
        try {
            return new DatabaseVersion(
                    doc.getBinary("uuid").asUuid(UuidRepresentation.STANDARD),
                    doc.getNumber("lastMod").intValue(),
                    doc.getTimestamp("timestamp"));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("malformed databaseVersion " + doc.toJson() + ": " + e.getMessage(), e);
        }
    }

    @Override
    public String toString() {
        return "DatabaseVersion{uuid=" + uuid + ", lastMod=" + lastMod + ", timestamp=" + timestamp.getTime() + "|"
                + timestamp.getInc() + "}";
    }
}
