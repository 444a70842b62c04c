package dev.shardstore.shard.transaction;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Multi-document transaction settings of one shard ({@code shardstore.shard.transactions.*}).
 *
 * @param lifetimeLimit how long a transaction may stay open before this shard aborts it (MongoDB's
 *                      {@code transactionLifetimeLimitSeconds}, 60 s), at least 1 s
 * @param reapInterval  how often open transactions are checked against {@code lifetimeLimit}
 * <p>{@code shardstore.shard.transactions.max-open}, the most transactions open at once, is read by
 * {@code storage.TransactionConnections}, whose connections they hold.
 */
@ConfigurationProperties("shardstore.shard.transactions")
public record TransactionProperties(
        @DefaultValue("60s") Duration lifetimeLimit,
        @DefaultValue("1s") Duration reapInterval) {
    public TransactionProperties {
        if (lifetimeLimit.compareTo(Duration.ofSeconds(1)) < 0 || reapInterval.isNegative() || reapInterval.isZero()) {
            throw new IllegalArgumentException("shardstore.shard.transactions: lifetime-limit must be at least 1s and reap-interval"
                    + " positive; were " + lifetimeLimit + " and " + reapInterval);
        }
    }
}
