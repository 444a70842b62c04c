package dev.shardstore.console.meters;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One shard's command throughput and p99 latency over the last {@code capacity} samples: a ring buffer (the oldest
 * point drops out when a new one comes past the capacity) of the rates between consecutive readings of its
 * {@link CommandHistogram}. A reading that could not be taken is a gap; the next one is rated over the whole time since
 * the last reading, and a restart of the shard in between counts from its new zero ({@link CommandHistogram#since}).
 * Thread-safe.
 */
final class MeterSeries {
    private final int capacity;
    private final ArrayDeque<MeterPoint> points;
    private @Nullable CommandHistogram last;
    private @Nullable Instant lastTime;

    /** @param capacity the points kept, at least 1 (15 minutes of 5 s samples: 180) */
    MeterSeries(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("a series keeps at least one point, not " + capacity);
        }
        this.capacity = capacity;
        this.points = new ArrayDeque<>(capacity);
    }

    /**
     * Adds the reading taken at {@code now}: a point rated against the previous reading (none for the first), or a gap
     * when {@code reading} is null (the shard did not answer).
     */
    synchronized void add(Instant now, @Nullable CommandHistogram reading) {
        if (reading == null) {
            append(new MeterPoint(now, null, null));
            return;
        }
        if (last != null && lastTime != null && now.isAfter(lastTime)) {
            CommandHistogram delta = reading.since(last);
            double seconds = Duration.between(lastTime, now).toNanos() / 1e9;
            double p99 = delta.quantile(0.99);
            append(new MeterPoint(now, delta.count() / seconds, Double.isNaN(p99) ? null : p99 * 1000));
        }
        last = reading;
        lastTime = now;
    }

    private void append(MeterPoint point) {
        if (points.size() == capacity) {
            points.removeFirst();
        }
        points.addLast(point);
    }

    /** The points, oldest first. */
    synchronized List<MeterPoint> points() {
        return List.copyOf(points);
    }
}
