package dev.shardstore.config.catalog;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;

/** A row of {@code config.shards}: {@code {_id, host, state}}. */
@Entity
@Table(name = "shards")
public class ShardEntity {
    /** MongoDB's shard state: 1 = active. */
    public static final int STATE_ACTIVE = 1;
    /** MongoDB's shard state while removeShard drains it: 2. */
    public static final int STATE_DRAINING = 2;

    @Id
    private String id;

    @Column(nullable = false, unique = true)
    private String host;

    @Column(nullable = false)
    private int state;

    protected ShardEntity() {}

    public ShardEntity(String id, String host) {
        this.id = id;
        this.host = host;
        this.state = STATE_ACTIVE;
    }

    public String id() {
        return id;
    }

    public String host() {
        return host;
    }

    /** Whether removeShard started draining it. */
    public boolean draining() {
        return state == STATE_DRAINING;
    }

    /** Starts draining it (removeShard's first call). */
    public void startDraining() {
        state = STATE_DRAINING;
    }

    /** The document as {@code listShards} and {@code config.shards} show it. */
    public BsonDocument toBson() {
        BsonDocument doc = new BsonDocument("_id", new BsonString(id)).append("host", new BsonString(host)).append("state", new BsonInt32(state));
        // MongoDB marks a draining shard with draining: true
        return draining() ? doc.append("draining", org.bson.BsonBoolean.TRUE) : doc;
    }
}
