package dev.shardstore.session;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code shardstore.sessions.*} of the session service.
 *
 * @param timeout      MongoDB's {@code localLogicalSessionTimeoutMinutes}: a session whose newest {@code lastUse} is older
 *                     is deleted from the sessions collection (expired)
 * @param reapInterval how often expired sessions are deleted (MongoDB's TTL monitor: every 60 s)
 */
@ConfigurationProperties("shardstore.sessions")
public record SessionServiceProperties(@DefaultValue("30m") Duration timeout, @DefaultValue("60s") Duration reapInterval) {
    public SessionServiceProperties {
        if (timeout.isNegative() || timeout.isZero() || reapInterval.isNegative() || reapInterval.isZero()) {
            throw new IllegalArgumentException("shardstore.sessions.timeout and reap-interval must be positive");
        }
    }
}
