package dev.shardstore.session.store;

import dev.shardstore.contracts.session.LogicalSessionId;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;
import org.springframework.transaction.annotation.Transactional;

/**
 * The sessions collection, {@code config.system.sessions} (mongo/src/mongo/db/s/README.md "How the logical session cache syncs with the
 * sessions collection"): a row per session id with its newest {@code lastUse}. Every node's cache upserts the sessions
 * it saw used, deletes the ones ended on it, and asks which of its cached ids still exist: a missing one has expired.
 */
@Repository
public class SessionsCollection {
    private static final byte[] NO_USER = new byte[0];

    private final JdbcClient jdbc;

    public SessionsCollection(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** A stored session. */
    public record StoredSession(LogicalSessionId lsid, Instant lastUse) {}

    /** Upserts each session; a stored {@code lastUse} only moves forward (two nodes may report one session). */
    @Transactional
    public void upsert(List<StoredSession> sessions) {
        for (StoredSession s : sessions) {
            jdbc.sql("INSERT INTO system_sessions (id, uid, last_use) VALUES (?, ?, ?) ON CONFLICT (id, uid) "
                            + "DO UPDATE SET last_use = GREATEST(system_sessions.last_use, EXCLUDED.last_use)")
                    .params(s.lsid().id(), uid(s.lsid()), Timestamp.from(s.lastUse())).update();
        }
    }

    /** Deletes the sessions (ended with {@code endSessions} or killed); the number deleted. */
    @Transactional
    public int remove(List<LogicalSessionId> lsids) {
        int removed = 0;
        for (LogicalSessionId lsid : lsids) {
            removed += jdbc.sql("DELETE FROM system_sessions WHERE id = ? AND uid = ?").params(lsid.id(), uid(lsid)).update();
        }
        return removed;
    }

    /** Those of {@code lsids} that are stored. */
    public Set<LogicalSessionId> existing(List<LogicalSessionId> lsids) {
        Set<LogicalSessionId> found = new HashSet<>();
        for (LogicalSessionId lsid : lsids) {
            if (jdbc.sql("SELECT 1 FROM system_sessions WHERE id = ? AND uid = ?").params(lsid.id(), uid(lsid)).query().listOfRows().size() == 1) {
                found.add(lsid);
            }
        }
        return found;
    }

    /** Every stored session, oldest {@code lastUse} first. */
    public List<StoredSession> all() {
        List<StoredSession> sessions = new ArrayList<>();
        jdbc.sql("SELECT id, uid, last_use FROM system_sessions ORDER BY last_use, id").query(rs -> {
            byte[] uid = rs.getBytes("uid");
            sessions.add(new StoredSession(new LogicalSessionId(rs.getObject("id", java.util.UUID.class), uid.length == 0 ? null : uid),
                    rs.getTimestamp("last_use").toInstant()));
        });
        return sessions;
    }

    /** Deletes the sessions last used before {@code cutoff} (the TTL); the number deleted. */
    public int deleteIdleSince(Instant cutoff) {
        return jdbc.sql("DELETE FROM system_sessions WHERE last_use < ?").param(Timestamp.from(cutoff)).update();
    }

    /** Stored sessions. */
    public long count() {
        return jdbc.sql("SELECT count(*) FROM system_sessions").query(Long.class).single();
    }

    private static byte[] uid(LogicalSessionId lsid) {
        byte[] uid = lsid.uid();
        return uid == null ? NO_USER : uid;
    }
}
