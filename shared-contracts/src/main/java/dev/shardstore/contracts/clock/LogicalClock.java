package dev.shardstore.contracts.clock;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.time.Duration;
import java.util.function.LongSupplier;
import org.bson.BsonTimestamp;

/**
 * The process's hybrid logical clock (mongo/src/mongo/db/s/README.md "The logical clock and causal consistency"): its value, the
 * <b>cluster time</b>, is a BSON Timestamp {@code seconds << 32 | counter}. It moves two ways only:
 * <ul>
 *   <li>{@link #tick} — a node that changes state (a shard writing its oplog, the config service stamping a
 *       version or a chunk's history) takes the next times; the seconds follow the wall clock when it is ahead, the
 *       counter counts within a second;</li>
 *   <li>{@link #advanceTo} — any node (routers too) moves up to a time it has seen in a message (gossip), never
 *       down, and never more than {@code maxAcceptableLogicalClockDriftSecs} ahead of its wall clock.</li>
 * </ul>
 * One instance per process; every component that needs a time takes it from here, so the cluster has one time line.
 *
 * <p>Times compare <em>unsigned</em>: seconds run to 2^32 - 1 (the year 2106). Thread-safe; every method is a few
 * nanoseconds under the monitor.
 */
public final class LogicalClock {
    /** MongoDB's default for {@code maxAcceptableLogicalClockDriftSecs}: one year. */
    public static final Duration DEFAULT_MAX_DRIFT = Duration.ofDays(365);
    private static final long MAX_COUNTER = 0xFFFF_FFFFL;

    private final LongSupplier wallSeconds;
    private final long maxDriftSecs;
    private long time;

    /** A clock on the system's wall clock. */
    public LogicalClock(Duration maxAcceptableDrift) {
        this(() -> System.currentTimeMillis() / 1000, maxAcceptableDrift);
    }

    /**
     * A clock on {@code wallSeconds} (seconds since the epoch, up to 2^32 - 1), for tests that move it.
     *
     * @param maxAcceptableDrift how far ahead of the wall clock an advance may go; positive
     */
    public LogicalClock(LongSupplier wallSeconds, Duration maxAcceptableDrift) {
        if (maxAcceptableDrift.isNegative() || maxAcceptableDrift.isZero()) {
            throw new IllegalArgumentException("maxAcceptableLogicalClockDriftSecs must be positive, was " + maxAcceptableDrift);
        }
        this.wallSeconds = wallSeconds;
        this.maxDriftSecs = maxAcceptableDrift.toSeconds();
    }

    /** The cluster time: the highest time this process has ticked or seen (a zero Timestamp at first). */
    public synchronized BsonTimestamp clusterTime() {
        return new BsonTimestamp(time);
    }

    /**
     * Moves the clock up to {@code seen} if it is ahead; a time at or below the clock changes nothing.
     *
     * @throws CommandException ClusterTimeFailsRateLimiter (205) when {@code seen} is more than
     *                          {@code maxAcceptableLogicalClockDriftSecs} ahead of the wall clock; the clock does not move
     */
    public synchronized void advanceTo(BsonTimestamp seen) {
        long value = seen.getValue();
        if (Long.compareUnsigned(value, time) <= 0) {
            return;
        }
        checkDrift(value);
        time = value;
    }

    /**
     * Checks, without moving the clock, that {@code seen} is within the drift bound.
     *
     * @throws CommandException ClusterTimeFailsRateLimiter (205) as {@link #advanceTo}
     */
    public void checkDrift(BsonTimestamp seen) {
        checkDrift(seen.getValue());
    }

    private void checkDrift(long value) {
        long seconds = value >>> 32;
        long wall = wallSeconds.getAsLong();
        if (seconds > wall + maxDriftSecs) {
            throw new CommandException(ErrorCode.ClusterTimeFailsRateLimiter, "cluster time " + new BsonTimestamp(value)
                    + " is " + (seconds - wall) + " s ahead of this node's wall clock, more than maxAcceptableLogicalClockDriftSecs ("
                    + maxDriftSecs + ")");
        }
    }

    /**
     * Takes {@code count} consecutive new times, {@code [first, first + count)}, all in one second and all above
     * every time the clock held before. Only nodes that change state tick.
     *
     * @param count at least 1
     * @return the first of them
     * @throws IllegalStateException past the last second a Timestamp holds (2106-02-07)
     */
    public synchronized BsonTimestamp tick(int count) {
        if (count < 1) {
            throw new IllegalArgumentException("count must be at least 1, was " + count);
        }
        long lastSeconds = time >>> 32;
        long seconds = Math.max(wallSeconds.getAsLong(), lastSeconds);
        long counter = seconds == lastSeconds ? (time & MAX_COUNTER) + 1 : 1;
        if (counter + count - 1 > MAX_COUNTER) {
            seconds++;
            counter = 1;
        }
        if (seconds > MAX_COUNTER) {
            throw new IllegalStateException("cluster time ran past the last second a Timestamp holds (2106-02-07)");
        }
        long first = seconds << 32 | counter;
        time = first + count - 1;
        return new BsonTimestamp(first);
    }
}
