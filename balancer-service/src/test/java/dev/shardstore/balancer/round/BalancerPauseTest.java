package dev.shardstore.balancer.round;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.balancer.BalancerProperties;
import dev.shardstore.balancer.policy.BalancerAction;
import dev.shardstore.balancer.policy.MigrationReason;
import dev.shardstore.balancer.policy.RoundPlan;
import dev.shardstore.contracts.sharding.ChunkRange;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/** The pause between rounds: short after a round that balanced something, the full interval otherwise. */
class BalancerPauseTest {
    private static final BalancerProperties PROPERTIES = properties(Duration.ofSeconds(10), Duration.ofSeconds(1));
    private static final BalancerAction.Migration MOVE = new BalancerAction.Migration("geo.cities",
            new ChunkRange(new BsonDocument("x", new BsonInt32(0)), new BsonDocument("x", new BsonInt32(10))), "shard1", "shard2",
            MigrationReason.CHUNKS_IMBALANCE, true, false);

    private static BalancerProperties properties(Duration roundInterval, Duration shortRoundInterval) {
        return new BalancerProperties(roundInterval, shortRoundInterval, Duration.ofHours(1), 20, "balancer", Duration.ofSeconds(300));
    }

    private static RoundReport round(@Nullable String error, MigrationOutcome... outcomes) {
        return new RoundReport(1, Instant.EPOCH, 5, new RoundPlan(List.of()), List.of(outcomes), error);
    }

    @Test
    void aRoundThatMovedAChunkIsFollowedSoon() {
        assertThat(Balancer.pauseAfter(round(null, new MigrationOutcome(MOVE, true, 300, null)), PROPERTIES)).isEqualTo(Duration.ofSeconds(1));
        // one success among failures still balanced something
        assertThat(Balancer.pauseAfter(round(null, new MigrationOutcome(MOVE, false, 30, "ConflictingOperationInProgress"),
                new MigrationOutcome(MOVE, true, 300, null)), PROPERTIES)).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void aRoundThatDidNothingFailedOrOnlyFailedWaitsTheFullInterval() {
        assertThat(Balancer.pauseAfter(round(null), PROPERTIES)).isEqualTo(Duration.ofSeconds(10));
        assertThat(Balancer.pauseAfter(round("HostUnreachable: config"), PROPERTIES)).isEqualTo(Duration.ofSeconds(10));
        assertThat(Balancer.pauseAfter(round(null, new MigrationOutcome(MOVE, false, 30, "ShardNotFound")), PROPERTIES))
                .isEqualTo(Duration.ofSeconds(10));
    }

    @Test
    void theShortPauseIsNeverLongerThanTheRoundInterval() {
        BalancerProperties fast = properties(Duration.ofMillis(500), Duration.ofSeconds(1));
        assertThat(Balancer.pauseAfter(round(null, new MigrationOutcome(MOVE, true, 300, null)), fast)).isEqualTo(Duration.ofMillis(500));
    }

    @Test
    void aShortIntervalThatIsNotPositiveIsRefusedByName() {
        assertThatThrownBy(() -> properties(Duration.ofSeconds(10), Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("shardstore.balancer.short-round-interval");
    }
}
