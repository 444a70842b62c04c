package dev.shardstore.shard;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Settings of one shard instance ({@code shardstore.shard.*}).
 *
 * @param name               the shard's id in the cluster (what {@code _shardsvrName} answers and what
 *                           the config service records as a database's {@code primary})
 * @param cursorTimeout      an open cursor that sees no getMore for this long is closed (MongoDB's
 *                           {@code cursorTimeoutMillis}, 10 minutes)
 * @param cursorReapInterval how often idle cursors are looked for (the sort budget is the server parameter
 *                           {@code internalQueryMaxBlockingSortMemoryUsageBytes}, dev.shardstore.support.parameter.ServerParameters)
 * @param criticalSectionTimeout how long a versioned command waits for a critical section before it gets
 *                           StaleConfig (the router retries it), and how long shardCollection's section (between a
 *                           prepare and the config service's refresh) lasts at most if the config service never
 *                           releases it; a dropCollection's section lasts until its coordinator exits it
 * @param sessionCheckoutTimeout how long a retryable write waits for its session while another command of the same
 *                           session runs on this shard before it fails with MaxTimeMSExpired (mongo/src/mongo/db/s/README.md "The logical
 *                           session catalog")
 */
@ConfigurationProperties("shardstore.shard")
public record ShardProperties(
        @DefaultValue("shard1") String name,
        @DefaultValue("10m") Duration cursorTimeout,
        @DefaultValue("1m") Duration cursorReapInterval,
        @DefaultValue("30s") Duration criticalSectionTimeout,
        @DefaultValue("30s") Duration sessionCheckoutTimeout) {}
