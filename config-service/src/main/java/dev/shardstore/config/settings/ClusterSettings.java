package dev.shardstore.config.settings;

import dev.shardstore.config.sharding.ShardingProperties;
import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.balancer.BalancerSettings;
import dev.shardstore.contracts.sharding.ShardedCollection;
import java.util.List;
import java.util.Set;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonType;
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
    static final Map<String, Map<String, List<BsonType>>> FIELDS = Map.of(
            "balancer", Map.of(
                    "mode", List.of(BsonType.STRING),
                    "stopped", List.of(BsonType.BOOLEAN),
                    "activeWindow", List.of(BsonType.DOCUMENT, BsonType.NULL),
                    "attemptToBalanceJumboChunks", List.of(BsonType.BOOLEAN),
                    "policy", List.of(BsonType.STRING),
                    "_waitForDelete", List.of(BsonType.BOOLEAN)),
            "chunksize", Map.of("value", List.of(BsonType.INT32, BsonType.INT64, BsonType.DOUBLE)),
            "automerge", Map.of("enabled", List.of(BsonType.BOOLEAN)),
            "autosplit", Map.of("enabled", List.of(BsonType.BOOLEAN)));

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
     * @throws CommandException see {@link #update}
     */
    public BsonDocument set(String id, BsonDocument fields) {
        return update(id, fields, Set.of(), true).document().orElseThrow();
    }

    /** What an update did: whether the document existed, whether it changed, and the document afterwards (with {@code _id}). */
    public record Updated(boolean matched, boolean modified, Optional<BsonDocument> document) {}

    /**
     * MongoDB's {@code update} of one {@code config.settings} document: {@code $set} of {@code set}'s fields and
     * {@code $unset} of {@code unset}, in one transaction. Setting {@code mode} also sets the legacy {@code stopped} (and the
     * other way round), so that the two never disagree. The result must still be readable as
     * {@link BalancerSettings#fromDocuments} reads it, or nothing is written.
     *
     * @param upsert whether a missing document is created; without it a missing document is left alone (not matched)
     * @throws CommandException BadValue naming the document when it is not one of MongoDB's settings documents, or the
     *                          field when it is unknown, of the wrong type or of a value the balancer cannot use (a
     *                          {@code chunksize} outside 1..1024 MiB, an unknown {@code mode}, a malformed
     *                          {@code activeWindow}); NotImplemented naming {@code _secondaryThrottle} (shards have no
     *                          secondaries to wait for)
     */
    public Updated update(String id, BsonDocument set, Set<String> unset, boolean upsert) {
        Map<String, List<BsonType>> allowed = FIELDS.get(id);
        if (allowed == null) {
            throw new CommandException(ErrorCode.BadValue, "config.settings has no document '" + id + "'; known: " + FIELDS.keySet());
        }
        BsonDocument fields = new BsonDocument(); // the command's document may be an immutable RawBsonDocument
        fields.putAll(set);
        if (fields.containsKey("_id") && !fields.get("_id").equals(new BsonString(id))) {
            throw new CommandException(ErrorCode.ImmutableField, "config.settings '" + id + "': '_id' cannot be changed");
        }
        fields.remove("_id");
        for (String field : concat(fields.keySet(), unset)) {
            if (field.equals("_secondaryThrottle")) {
                throw new CommandException(ErrorCode.NotImplemented, "config.settings '" + id + "' field '_secondaryThrottle' is not"
                        + " supported: each shard is a single node, there are no secondaries to wait for");
            }
            List<BsonType> types = allowed.get(field);
            BsonValue value = fields.get(field);
            if (types == null || value != null && !types.contains(value.getBsonType())) {
                throw new CommandException(ErrorCode.BadValue, "config.settings '" + id + "' field '" + field + "' "
                        + (types == null ? "is unknown; known: " + allowed.keySet() : "must be of type " + types));
            }
        }
        if (fields.isString("mode")) {
            fields.put("stopped", BsonBoolean.valueOf(fields.getString("mode").getValue().equals(BalancerSettings.Mode.OFF.value())));
        } else if (fields.isBoolean("stopped")) {
            fields.put("mode", new BsonString((fields.getBoolean("stopped").getValue() ? BalancerSettings.Mode.OFF : BalancerSettings.Mode.FULL).value()));
        }
        return tx.execute(status -> {
            Optional<BsonDocument> existing = jdbc.sql("SELECT doc FROM settings WHERE id = ? FOR UPDATE").param(id)
                    .query((rs, n) -> BsonBytes.decode(rs.getBytes("doc"))).optional();
            if (existing.isEmpty() && !upsert) {
                return new Updated(false, false, Optional.empty());
            }
            BsonDocument doc = new BsonDocument();
            existing.ifPresent(doc::putAll);
            doc.putAll(fields);
            unset.forEach(doc::remove);
            validate(id, doc);
            boolean modified = existing.map(before -> !before.equals(doc)).orElse(true);
            if (modified) {
                jdbc.sql("INSERT INTO settings (id, doc) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET doc = excluded.doc")
                        .params(id, BsonBytes.encode(doc)).update();
            }
            return new Updated(existing.isPresent(), modified, Optional.of(withId(id, doc)));
        });
    }

    /** The settings with {@code doc} as document {@code id} must be readable by the balancer. */
    private void validate(String id, BsonDocument doc) {
        Function<String, BsonDocument> settings = name -> name.equals(id) ? doc : find(name).orElseGet(BsonDocument::new);
        try {
            BalancerSettings.fromDocuments(settings.apply("balancer"), settings.apply("chunksize"), settings.apply("automerge"));
        } catch (IllegalArgumentException e) {
            throw new CommandException(ErrorCode.BadValue, "config.settings: " + e.getMessage(), e);
        }
    }

    private static Set<String> concat(Set<String> a, Set<String> b) {
        Set<String> all = new java.util.LinkedHashSet<>(a);
        all.addAll(b);
        return all;
    }

    /** The cluster's maximum chunk size: {@code chunksize.value} MB when set, else the configured default. */
    public long maxChunkSizeBytes() {
        return find("chunksize").filter(doc -> doc.containsKey("value"))
                .map(doc -> BalancerSettings.fromDocuments(new BsonDocument(), doc, new BsonDocument()).chunkSizeBytes())
                .orElse(defaultChunkSizeBytes);
    }

    /** {@code collection}'s maximum chunk size: its own ({@code configureCollectionBalancing chunkSize}), else the cluster's. */
    public long maxChunkSizeBytes(ShardedCollection collection) {
        return collection.maxChunkSizeBytes() != null ? collection.maxChunkSizeBytes() : maxChunkSizeBytes();
    }

    private static BsonDocument withId(String id, BsonDocument doc) {
        BsonDocument result = new BsonDocument("_id", new BsonString(id));
        result.putAll(doc);
        return result;
    }
}
