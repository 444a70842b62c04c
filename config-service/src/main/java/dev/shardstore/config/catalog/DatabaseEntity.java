package dev.shardstore.config.catalog;

import dev.shardstore.contracts.version.DatabaseVersion;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.util.UUID;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonTimestamp;

/** A row of {@code config.databases}: {@code {_id, primary, version: {uuid, lastMod, timestamp}}}. */
@Entity
@Table(name = "databases")
public class DatabaseEntity {
    @Id
    private String id;

    @Column(name = "primary_shard", nullable = false)
    private String primaryShard;

    @Column(name = "version_uuid", nullable = false)
    private UUID versionUuid;

    @Column(name = "version_last_mod", nullable = false)
    private int versionLastMod;

    @Column(name = "version_timestamp", nullable = false)
    private long versionTimestamp;

    protected DatabaseEntity() {}

    public DatabaseEntity(String id, String primaryShard, DatabaseVersion version) {
        this.id = id;
        this.primaryShard = primaryShard;
        this.versionUuid = version.uuid();
        this.versionLastMod = version.lastMod();
        this.versionTimestamp = version.timestamp().getValue();
    }

    public String id() {
        return id;
    }

    public String primaryShard() {
        return primaryShard;
    }

    public DatabaseVersion version() {
        return new DatabaseVersion(versionUuid, versionLastMod, new BsonTimestamp(versionTimestamp));
    }

    /** Makes {@code shard} the primary at {@code version} (movePrimary's commit). */
    void movePrimary(String shard, DatabaseVersion version) {
        this.primaryShard = shard;
        this.versionUuid = version.uuid();
        this.versionLastMod = version.lastMod();
        this.versionTimestamp = version.timestamp().getValue();
    }

    /** The document as {@code config.databases} shows it. */
    public BsonDocument toBson() {
        return new BsonDocument("_id", new BsonString(id))
                .append("primary", new BsonString(primaryShard))
                .append("version", version().toBson());
    }
}
