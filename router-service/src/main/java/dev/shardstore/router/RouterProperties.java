package dev.shardstore.router;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code shardstore.router.*}.
 *
 * @param name                 this router's name, used in Kafka consumer group ids and logs
 * @param maxStaleRetries      attempts of one statement on stale routing information (mongos: 10)
 * @param cursorTimeout        idle time after which a router cursor and its shard cursors are killed
 * @param shardRegistryRefresh period of the shard registry's background refresh
 * @param migrationTimeout     how long {@code moveChunk}/{@code moveRange} and the DDL commands ({@code drop},
 *                             {@code dropDatabase}, {@code movePrimary}, {@code shardCollection}) wait for the config
 *                             service, and {@code cleanupOrphaned} for a shard: they answer only when the migration, the
 *                             coordinator or the orphans' deletion is over ({@code routing.LongRunningClient})
 * @param balancerUrl          base URL of the balancer service, where the balancer commands are forwarded
 * @param reshardingUrl        base URL of the resharding service, where {@code reshardCollection} and
 *                             {@code abortReshardCollection} are forwarded
 * @param staleRetryBackoff    the wait before the third attempt of a statement that met stale routing information: the
 *                             second attempt runs at once (the refresh that follows a stale reply is what fixes it), each
 *                             later one waits twice as long as the one before, ±50% at random, up to
 *                             {@code staleRetryBackoffMax} — so routers that all met the same critical section do not
 *                             retry in step while it is held
 * @param staleRetryBackoffMax the longest such wait
 */
@ConfigurationProperties("shardstore.router")
public record RouterProperties(
        @DefaultValue("router1") String name,
        @DefaultValue("10") int maxStaleRetries,
        @DefaultValue("10m") Duration cursorTimeout,
        @DefaultValue("30s") Duration shardRegistryRefresh,
        @DefaultValue("1h") Duration migrationTimeout,
        @DefaultValue("http://localhost:8082") String balancerUrl,
        @DefaultValue("10ms") Duration staleRetryBackoff,
        @DefaultValue("1s") Duration staleRetryBackoffMax,
        @DefaultValue("http://localhost:8083") String reshardingUrl) {
    public RouterProperties {
        if (maxStaleRetries < 1) {
            throw new IllegalArgumentException("shardstore.router.max-stale-retries must be at least 1");
        }
        if (staleRetryBackoff.isNegative() || staleRetryBackoff.isZero() || staleRetryBackoffMax.compareTo(staleRetryBackoff) < 0) {
            throw new IllegalArgumentException("shardstore.router.stale-retry-backoff must be positive and at most stale-retry-backoff-max");
        }
    }
}
