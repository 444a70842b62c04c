package dev.shardstore.resharding;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code shardstore.resharding.*}.
 *
 * @param quiescePeriod  how long a finished operation's document keeps its outcome for a retried identical command
 *                       (MongoDB's {@code reshardingCoordinatorQuiescePeriodMillis}, 15 minutes)
 * @param retryInterval  the pause before a committing or aborting step that failed (a participant down) is tried again:
 *                       after the decision, and while undoing, the coordinator only goes forward
 * @param resumeInterval how often the operations not running in this process are resumed (those a crash left), and
 *                       the quiesced ones older than {@code quiescePeriod} forgotten
 * @param unreachableParticipantTimeout how long the clone, the catch-up and the write block wait for a participant
 *                       that is unreachable or restarting (trying every {@code retryInterval}) before they abort
 */
@ConfigurationProperties("shardstore.resharding")
public record ReshardingProperties(
        @DefaultValue("15m") Duration quiescePeriod,
        @DefaultValue("1s") Duration retryInterval,
        @DefaultValue("30s") Duration resumeInterval,
        @DefaultValue("5m") Duration unreachableParticipantTimeout) {
    public ReshardingProperties {
        if (quiescePeriod.isNegative()) {
            throw new IllegalArgumentException("shardstore.resharding.quiesce-period must not be negative, not " + quiescePeriod);
        }
        if (unreachableParticipantTimeout.isNegative()) {
            throw new IllegalArgumentException("shardstore.resharding.unreachable-participant-timeout must not be negative, not "
                    + unreachableParticipantTimeout);
        }
        if (retryInterval.isNegative() || retryInterval.isZero()) {
            throw new IllegalArgumentException("shardstore.resharding.retry-interval must be positive, not " + retryInterval);
        }
    }
}
