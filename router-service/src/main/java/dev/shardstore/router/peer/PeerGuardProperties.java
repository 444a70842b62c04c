package dev.shardstore.router.peer;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code shardstore.router.peers.*}: the circuit breaker and the bulkhead that guard each peer of the router (each
 * shard, the config service) — see {@link PeerClient}.
 *
 * @param failureRateThreshold   percentage (1–100) of failed calls, over the sliding window, that opens a peer's breaker
 * @param slidingWindowSize      how many of the peer's last calls the failure and slow-call rates are taken over
 * @param minimumCalls           calls the window must hold before a rate is computed (fewer never open the breaker)
 * @param openDuration           how long an open breaker refuses calls before it lets probes through (half-open)
 * @param halfOpenCalls          probe calls in the half-open state; the breaker closes when their failure rate is below
 *                               the threshold and opens again otherwise
 * @param slowCallThreshold      a call that took longer counts as slow; slow calls open the breaker like failed ones
 *                               ({@code slowCallRateThreshold}), so a peer that answers but ever slower is cut off too
 * @param slowCallRateThreshold  percentage (1–100) of slow calls that opens the breaker
 * @param maxConcurrentCalls     calls in flight to one peer at most (the bulkhead): one slow shard holds at most this
 *                               many of the router's threads
 * @param maxWait                how long a call waits for a place in a full bulkhead before it is refused
 */
@ConfigurationProperties("shardstore.router.peers")
public record PeerGuardProperties(
        @DefaultValue("50") int failureRateThreshold,
        @DefaultValue("20") int slidingWindowSize,
        @DefaultValue("10") int minimumCalls,
        @DefaultValue("5s") Duration openDuration,
        @DefaultValue("3") int halfOpenCalls,
        @DefaultValue("20s") Duration slowCallThreshold,
        @DefaultValue("100") int slowCallRateThreshold,
        @DefaultValue("256") int maxConcurrentCalls,
        @DefaultValue("1s") Duration maxWait) {
    public PeerGuardProperties {
        requirePercentage(failureRateThreshold, "failure-rate-threshold");
        requirePercentage(slowCallRateThreshold, "slow-call-rate-threshold");
        requirePositive(slidingWindowSize, "sliding-window-size");
        requirePositive(minimumCalls, "minimum-calls");
        requirePositive(halfOpenCalls, "half-open-calls");
        requirePositive(maxConcurrentCalls, "max-concurrent-calls");
        if (openDuration.isNegative() || openDuration.isZero() || slowCallThreshold.isNegative() || slowCallThreshold.isZero()
                || maxWait.isNegative()) {
            throw new IllegalArgumentException("shardstore.router.peers: open-duration and slow-call-threshold must be positive, "
                    + "max-wait not negative");
        }
    }

    private static void requirePercentage(int value, String name) {
        if (value < 1 || value > 100) {
            throw new IllegalArgumentException("shardstore.router.peers." + name + " must be a percentage from 1 to 100, not " + value);
        }
    }

    private static void requirePositive(int value, String name) {
        if (value < 1) {
            throw new IllegalArgumentException("shardstore.router.peers." + name + " must be at least 1, not " + value);
        }
    }
}
