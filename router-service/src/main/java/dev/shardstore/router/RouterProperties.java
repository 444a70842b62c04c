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
 */
@ConfigurationProperties("shardstore.router")
public record RouterProperties(
        @DefaultValue("router1") String name,
        @DefaultValue("10") int maxStaleRetries,
        @DefaultValue("10m") Duration cursorTimeout,
        @DefaultValue("30s") Duration shardRegistryRefresh,
        @DefaultValue("1h") Duration migrationTimeout,
        @DefaultValue("http://localhost:8082") String balancerUrl) {
    public RouterProperties {
        if (maxStaleRetries < 1) {
            throw new IllegalArgumentException("shardstore.router.max-stale-retries must be at least 1");
        }
    }
}
