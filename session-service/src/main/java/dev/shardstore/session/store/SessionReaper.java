package dev.shardstore.session.store;

import dev.shardstore.session.SessionServiceProperties;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.dao.DataAccessException;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Expires sessions: every {@code shardstore.sessions.reap-interval} it deletes the sessions whose {@code lastUse} is
 * older than {@code shardstore.sessions.timeout} (MongoDB's TTL index on {@code config.system.sessions.lastUse}, with
 * {@code localLogicalSessionTimeoutMinutes}). The nodes' caches find them gone at their next refresh and drop them, kill
 * their cursors and reap their transaction-table rows. Also {@code GET /actuator/sessions}: {@code {stored, expired,
 * timeoutSeconds}}.
 */
@Component
@Endpoint(id = "sessions")
public class SessionReaper {
    private static final Logger log = LoggerFactory.getLogger(SessionReaper.class);

    private final SessionsCollection sessions;
    private final SessionServiceProperties properties;
    private final Clock clock;
    private final AtomicLong expired = new AtomicLong();

    @Autowired
    public SessionReaper(SessionsCollection sessions, SessionServiceProperties properties) {
        this(sessions, properties, Clock.systemUTC());
    }

    /** A reaper that measures idleness on {@code clock} (tests move it past the timeout instead of waiting). */
    public SessionReaper(SessionsCollection sessions, SessionServiceProperties properties, Clock clock) {
        this.sessions = sessions;
        this.properties = properties;
        this.clock = clock;
    }

    /** Deletes the sessions idle longer than the timeout; the number deleted. */
    public int expire() {
        int n = sessions.deleteIdleSince(clock.instant().minus(properties.timeout()));
        expired.addAndGet(n);
        return n;
    }

    @Scheduled(fixedDelayString = "${shardstore.sessions.reap-interval:60s}", initialDelayString = "${shardstore.sessions.reap-interval:60s}")
    void expireQuietly() {
        try {
            int n = expire();
            if (n > 0) {
                log.info("expired {} sessions idle longer than {}", n, properties.timeout());
            }
        } catch (DataAccessException e) {
            log.warn("expiring sessions failed; trying again in {}: {}", properties.reapInterval(), e.getMessage());
        }
    }

    @ReadOperation
    public Map<String, Object> state() {
        return Map.of("stored", sessions.count(), "expired", expired.get(), "timeoutSeconds", properties.timeout().toSeconds());
    }
}
