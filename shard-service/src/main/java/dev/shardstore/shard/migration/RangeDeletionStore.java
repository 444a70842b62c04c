package dev.shardstore.shard.migration;

import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.contracts.sharding.ChunkRange;
import dev.shardstore.contracts.sharding.KeyRange;
import dev.shardstore.contracts.sharding.ShardKeyPattern;
import java.sql.Timestamp;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** The shard's range deletion tasks (table {@code range_deletions}); see {@link RangeDeletionTask}. */
@Repository
public class RangeDeletionStore {
    private static final String COLUMNS = "id, namespace, collection_uuid, key_pattern, min_bson, max_bson, pending, side, when_to_clean, ready_at";
    private static final RowMapper<RangeDeletionTask> ROW = (rs, n) -> {
        Timestamp ready = rs.getTimestamp("ready_at");
        return new RangeDeletionTask(rs.getObject("id", UUID.class), Namespace.parse(rs.getString("namespace")),
                rs.getObject("collection_uuid", UUID.class), ShardKeyPattern.of(BsonBytes.decode(rs.getBytes("key_pattern"))),
                new ChunkRange(BsonBytes.decode(rs.getBytes("min_bson")), BsonBytes.decode(rs.getBytes("max_bson"))),
                rs.getBoolean("pending"), RangeDeletionTask.Side.valueOf(rs.getString("side").toUpperCase(Locale.ROOT)),
                RangeDeletionTask.WhenToClean.valueOf(rs.getString("when_to_clean").toUpperCase(Locale.ROOT)),
                ready == null ? null : ready.toInstant());
    };

    private final JdbcClient jdbc;

    public RangeDeletionStore(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** Inserts a task; an existing task of the same migration is kept (a resent start is idempotent). */
    void insert(RangeDeletionTask task) {
        KeyRange keys = task.keyRange();
        jdbc.sql("INSERT INTO range_deletions (" + COLUMNS + ", min_key, max_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                        + " ON CONFLICT (id) DO NOTHING")
                .param(task.id()).param(task.namespace().full()).param(task.collectionUuid()).param(BsonBytes.encode(task.keyPattern().pattern()))
                .param(BsonBytes.encode(task.range().min())).param(BsonBytes.encode(task.range().max())).param(task.pending())
                .param(task.side().name().toLowerCase(Locale.ROOT)).param(task.whenToClean().name().toLowerCase(Locale.ROOT))
                .param(task.readyAt() == null ? null : Timestamp.from(task.readyAt())).param(keys.min()).param(keys.max())
                .update();
    }

    /**
     * Makes the task of migration {@code id} ready (now); idempotent.
     *
     * @param whenToClean overrides the task's when given (a donor asked to {@code _waitForDelete} cleans now); null keeps it
     * @return false when there is no such task (already run, or never written)
     */
    boolean markReady(UUID id, RangeDeletionTask.@org.jspecify.annotations.Nullable WhenToClean whenToClean) {
        return jdbc.sql("UPDATE range_deletions SET pending = false, ready_at = coalesce(ready_at, now()),"
                        + " when_to_clean = coalesce(?, when_to_clean) WHERE id = ?")
                .param(whenToClean == null ? null : whenToClean.name().toLowerCase(Locale.ROOT)).param(id).update() > 0;
    }

    /** The task of migration {@code id}. */
    public Optional<RangeDeletionTask> find(UUID id) {
        return jdbc.sql("SELECT " + COLUMNS + " FROM range_deletions WHERE id = ?").param(id).query(ROW).optional();
    }

    /** Every task, oldest first. */
    public List<RangeDeletionTask> list() {
        return jdbc.sql("SELECT " + COLUMNS + " FROM range_deletions ORDER BY created_at").query(ROW).list();
    }

    /** The ready tasks, in the order they became ready. */
    List<RangeDeletionTask> ready() {
        return jdbc.sql("SELECT " + COLUMNS + " FROM range_deletions WHERE NOT pending ORDER BY ready_at, created_at").query(ROW).list();
    }

    /** The tasks of {@code namespace} whose range overlaps {@code [min, max)} (KeyStrings), other than migration {@code except}'s. */
    List<RangeDeletionTask> overlapping(Namespace namespace, KeyRange range, UUID except) {
        return jdbc.sql("SELECT " + COLUMNS + " FROM range_deletions WHERE namespace = ? AND min_key < ? AND max_key > ? AND id <> ?")
                .params(namespace.full(), range.max(), range.min(), except).query(ROW).list();
    }

    /** The tasks of {@code namespace}, pending or ready. */
    public List<RangeDeletionTask> ofNamespace(Namespace namespace) {
        return jdbc.sql("SELECT " + COLUMNS + " FROM range_deletions WHERE namespace = ? ORDER BY created_at")
                .param(namespace.full()).query(ROW).list();
    }

    /** Deletes the task of migration {@code id}; idempotent. */
    void delete(UUID id) {
        jdbc.sql("DELETE FROM range_deletions WHERE id = ?").param(id).update();
    }
}
