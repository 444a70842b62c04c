package dev.shardstore.shard.versioning;

import dev.shardstore.contracts.bson.BsonBytes;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * The shard's persisted critical sections (table {@code critical_sections}, MongoDB's
 * {@code config.collection_critical_sections}), written when a section is entered or changes phase and deleted when
 * it is exited, so that {@link CollectionShardingRuntime} restores them at startup. A database's section (movePrimary) is a
 * row whose {@code namespace} is the bare database name, as MongoDB keeps both kinds in one collection.
 */
@Component
class CriticalSectionStore {
    private final JdbcClient jdbc;

    CriticalSectionStore(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** Inserts or replaces {@code section}. */
    void save(CriticalSection section) {
        jdbc.sql("""
                        INSERT INTO critical_sections (namespace, phase, reason, expires_at) VALUES (?, ?, ?, ?)
                        ON CONFLICT (namespace) DO UPDATE SET phase = excluded.phase, reason = excluded.reason,
                            expires_at = excluded.expires_at""")
                .param(section.namespace()).param(section.phase().name()).param(BsonBytes.encode(section.reason()))
                .param(section.expiresAt() == null ? null : Timestamp.from(section.expiresAt()))
                .update();
    }

    /** Deletes {@code namespace}'s section, if any. */
    void delete(String namespace) {
        jdbc.sql("DELETE FROM critical_sections WHERE namespace = ?").param(namespace).update();
    }

    /** Every persisted section, by namespace. */
    List<CriticalSection> loadAll() {
        return jdbc.sql("SELECT namespace, phase, reason, expires_at FROM critical_sections ORDER BY namespace")
                .query((rs, n) -> {
                    Timestamp expires = rs.getTimestamp("expires_at");
                    Instant expiresAt = expires == null ? null : expires.toInstant();
                    return new CriticalSection(rs.getString("namespace"), CriticalSectionPhase.valueOf(rs.getString("phase")),
                            BsonBytes.decode(rs.getBytes("reason")), expiresAt);
                })
                .list();
    }
}
