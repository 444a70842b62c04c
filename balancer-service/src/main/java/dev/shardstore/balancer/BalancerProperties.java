package dev.shardstore.balancer;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code shardstore.balancer.*}.
 *
 * @param roundInterval   the pause between the end of one round that did nothing and the start of the next (MongoDB's balancer: 10 s)
 * @param shortRoundInterval the pause after a round in which a split, merge or migration succeeded (MongoDB's balancer: 1 s,
 *                           MongoDB's {@code kShortBalanceRoundInterval}); {@code roundInterval} when that is shorter
 * @param migrationTimeout how long a round waits for one {@code _configsvrMoveRange} (it answers when the migration is over)
 * @param history         how many past rounds {@code /actuator/balancer} keeps
 * @param name            this balancer's name in {@code config.actionlog} entries ({@code server})
 * @param snapshotHistoryWindow how long chunks must have been on their shard, unchanged, before the auto-merger joins them
 *                              (MongoDB's {@code minSnapshotHistoryWindowInSeconds}, 300 s)
 */
@ConfigurationProperties("shardstore.balancer")
public record BalancerProperties(
        @DefaultValue("10s") Duration roundInterval,
        @DefaultValue("1s") Duration shortRoundInterval,
        @DefaultValue("1h") Duration migrationTimeout,
        @DefaultValue("20") int history,
        @DefaultValue("balancer") String name,
        @DefaultValue("300s") Duration snapshotHistoryWindow) {
    public BalancerProperties {
        if (roundInterval.isNegative() || roundInterval.isZero()) {
            throw new IllegalArgumentException("shardstore.balancer.round-interval must be positive, not " + roundInterval);
        }
        if (shortRoundInterval.isNegative() || shortRoundInterval.isZero()) {
            throw new IllegalArgumentException("shardstore.balancer.short-round-interval must be positive, not " + shortRoundInterval);
        }
        if (snapshotHistoryWindow.isNegative()) {
            throw new IllegalArgumentException("shardstore.balancer.snapshot-history-window must not be negative, not " + snapshotHistoryWindow);
        }
        if (history < 1) {
            throw new IllegalArgumentException("shardstore.balancer.history must be at least 1, not " + history);
        }
    }
}
