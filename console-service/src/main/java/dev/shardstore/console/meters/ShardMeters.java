package dev.shardstore.console.meters;

import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * One shard's sampled meters, oldest point first, and what the page's table says of them.
 *
 * @param shard  the shard's id
 * @param colour its palette index (its position in {@code listShards}, as everywhere in the console)
 * @param points the last 15 minutes' points ({@link MeterSampler#HISTORY})
 */
public record ShardMeters(String shard, int colour, List<MeterPoint> points) {
    public ShardMeters {
        Objects.requireNonNull(shard, "shard");
        points = List.copyOf(points);
    }

    /** The newest point's commands per second; null before two readings or in a gap. */
    public @Nullable Double latestOps() {
        return points.isEmpty() ? null : points.getLast().opsPerSecond();
    }

    /** The newest point's p99 in milliseconds; null when it ran no command or is a gap. */
    public @Nullable Double latestP99() {
        return points.isEmpty() ? null : points.getLast().p99Millis();
    }

    /** The highest commands per second of the kept points; null when none has one. */
    public @Nullable Double peakOps() {
        return max(MeterPoint::opsPerSecond);
    }

    /** The highest p99 of the kept points, milliseconds; null when none has one. */
    public @Nullable Double maxP99() {
        return max(MeterPoint::p99Millis);
    }

    private @Nullable Double max(Function<MeterPoint, @Nullable Double> value) {
        return points.stream().map(value).filter(Objects::nonNull).max(Double::compare).orElse(null);
    }
}
