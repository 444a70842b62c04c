package dev.shardstore.console.meters;

import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One point of a shard's chart: over the sample interval ending at {@code time}, commands per second and the p99
 * latency in milliseconds; both null for a gap (the shard did not answer), {@code p99Millis} null when no command ran.
 */
public record MeterPoint(Instant time, @Nullable Double opsPerSecond, @Nullable Double p99Millis) {
    public MeterPoint {
        Objects.requireNonNull(time, "time");
        if (opsPerSecond == null && p99Millis != null) {
            throw new IllegalArgumentException("a gap has no latency");
        }
    }
}
