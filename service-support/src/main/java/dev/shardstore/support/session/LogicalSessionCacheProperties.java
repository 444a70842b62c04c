package dev.shardstore.support.session;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code shardstore.sessions.cache.*}: the node's logical session cache (routers and shards turn it on).
 *
 * @param enabled         whether this node keeps a logical session cache
 * @param sessionUrl      base URL of the session service, which owns the sessions collection
 * @param refreshInterval MongoDB's {@code logicalSessionRefreshMillis}: how often the cache syncs with the sessions
 *                        collection and reaps (default 5 minutes; tests shorten it)
 * @param timeout         MongoDB's {@code localLogicalSessionTimeoutMinutes}: transaction-table rows of sessions gone
 *                        from the sessions collection are reaped once their last write is this old
 */
@ConfigurationProperties("shardstore.sessions.cache")
public record LogicalSessionCacheProperties(
        @DefaultValue("false") boolean enabled,
        @DefaultValue("http://localhost:8084") String sessionUrl,
        @DefaultValue("5m") Duration refreshInterval,
        @DefaultValue("30m") Duration timeout) {
    public LogicalSessionCacheProperties {
        if (refreshInterval.isNegative() || refreshInterval.isZero() || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("shardstore.sessions.cache.refresh-interval and timeout must be positive");
        }
    }
}
