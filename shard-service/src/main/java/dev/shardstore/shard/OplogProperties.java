package dev.shardstore.shard;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Oplog settings of one shard instance ({@code shardstore.shard.oplog.*}); how often retention runs is
 * {@code shardstore.shard.oplog.truncate-interval} (default {@code 1m}), read by its schedule.
 *
 * @param retention entries older than this are deleted unless a reader pins them (MongoDB's
 *                  {@code oplogMinRetentionHours}, here by default 24 hours); positive
 */
@ConfigurationProperties("shardstore.shard.oplog")
public record OplogProperties(@DefaultValue("24h") Duration retention) {
    public OplogProperties {
        if (retention.isNegative() || retention.isZero()) {
            throw new IllegalArgumentException("shardstore.shard.oplog.retention must be positive, was " + retention);
        }
    }
}
