package dev.shardstore.config.settings;

import dev.shardstore.config.sharding.ShardingProperties;
import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * {@code config.settings} (table {@code settings}, MongoDB's): the {@code balancer}, {@code chunksize}, {@code automerge}
 * and {@code autosplit} ({@code enabled}, read by the shards' auto-splitters) documents. The balancer service reads them
 * every round; {@code chunksize} (MB) is also the maximum chunk size the config
 * service's shardCollection and moveRange use, falling back to {@code shardstore.sharding.max-chunk-size} when unset.
 */
@Repository
public class ClusterSettings {
    /** The documents MongoDB keeps in {@code config.settings}, with the fields each may hold and their BSON types. */
    static final Map<String, Map<String, List<org.bson.BsonType>>> FIELDS = Map.of(
            "balancer", Map.of(
                    "mode", List.of(org.bson.BsonType.STRING),
                    "stopped", List.of(org.bson.BsonType.BOOLEAN),
                    "activeWindow", List.of(org.bson.BsonType.DOCUMENT, org.bson.BsonType.NULL),
                    "attemptToBalanceJumboChunks", List.of(org.bson.BsonType.BOOLEAN),
                    "policy", List.of(org.bson.BsonType.STRING)),
            "chunksize", Map.of("value", List.of(org.bson.BsonType.INT32, org.bson.BsonType.INT64, org.bson.BsonType.DOUBLE)),
            "automerge", Map.of("enabled", List.of(org.bson.BsonType.BOOLEAN)),
            "autosplit", Map.of("enabled", List.of(org.bson.BsonType.BOOLEAN)));

    private final JdbcClient jdbc;
    private final TransactionTemplate tx;
    private final long defaultChunkSizeBytes;

    public ClusterSettings(JdbcClient jdbc, TransactionTemplate tx, ShardingProperties properties) {
        this.jdbc = jdbc;
        this.tx = tx;
        this.defaultChunkSizeBytes = properties.maxChunkSize().toBytes();
    }

    /** Every settings document, {@code {_id, ...fields}}, ordered by {@code _id}. */
    public List<BsonDocument> list() {
        return jdbc.sql("SELECT id, doc FROM settings ORDER BY id")
                .query((rs, n) -> withId(rs.getString("id"), BsonBytes.decode(rs.getBytes("doc")))).list();
    }

    /** The document {@code id} without {@code _id}, empty when never set. */
    public Optional<BsonDocument> find(String id) {
        return jdbc.sql("SELECT doc FROM settings WHERE id = ?").param(id).query((rs, n) -> BsonBytes.decode(rs.getBytes("doc"))).optional();
    }

    /**
     * Sets {@code fields} in document {@code id} (creating it), keeping its other fields; MongoDB's
     * {@code updateOne({_id}, {$set: fields}, {upsert: true})} on {@code config.settings}.
     *
     * @return the document after the update, with {@code _id}
     * @throws CommandException BadValue naming the document when it is not one of MongoDB's settings documents, or the
     *                          field when it is unknown or of the wrong type; a {@code chunksize} value outside 1..1024 MB
     */
    public BsonDocument set(String id, BsonDocument fields) {
        Map<String, List<org.bson.BsonType>> allowed = FIELDS.get(id);
        if (allowed == null) {
            throw new CommandException(ErrorCode.BadValue, "config.settings has no document '" + id + "'; known: " + FIELDS.keySet());
        }
        for (Map.Entry<String, BsonValue> field : fields.entrySet()) {
            List<org.bson.BsonType> types = allowed.get(field.getKey());
            if (types == null || !types.contains(field.getValue().getBsonType())) {
                throw new CommandException(ErrorCode.BadValue, "config.settings '" + id + "' field '" + field.getKey() + "' "
                        + (types == null ? "is unknown; known: " + allowed.keySet() : "must be of type " + types));
            }
        }
        if ("chunksize".equals(id) && fields.containsKey("value")) {
            double mb = fields.getNumber("value").doubleValue();
            if (mb < 1 || mb > 1024) {
                throw new CommandException(ErrorCode.BadValue, "config.settings 'chunksize' 'value' must be between 1 and 1024 (MB), not " + mb);
            }
        }
        return tx.execute(status -> {
            BsonDocument doc = jdbc.sql("SELECT doc FROM settings WHERE id = ? FOR UPDATE").param(id)
                    .query((rs, n) -> BsonBytes.decode(rs.getBytes("doc"))).optional().orElseGet(BsonDocument::new);
            doc.putAll(fields);
            jdbc.sql("INSERT INTO settings (id, doc) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET doc = excluded.doc")
                    .params(id, BsonBytes.encode(doc)).update();
            return withId(id, doc);
        });
    }

    /** The cluster's maximum chunk size: {@code chunksize.value} MB when set, else the configured default. */
    public long maxChunkSizeBytes() {
        return find("chunksize").filter(doc -> doc.isNumber("value"))
                .map(doc -> (long) (doc.getNumber("value").doubleValue() * 1024 * 1024)).orElse(defaultChunkSizeBytes);
    }

    private static BsonDocument withId(String id, BsonDocument doc) {
        BsonDocument result = new BsonDocument("_id", new BsonString(id));
        result.putAll(doc);
        return result;
    }
}
