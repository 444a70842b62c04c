package dev.shardstore.support.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link Clock} for tests that they move forward themselves: it reads a base clock plus an offset that
 * {@link #advance} grows. Over {@link Clock#fixed} it stands still between advances (unit tests); over
 * {@link Clock#systemUTC()} it runs with real time and jumps ahead when asked, so a Spring context shared by many
 * test classes keeps a moving clock while one test skips past a timeout. Thread-safe; always in UTC.
 */
public final class MutableClock extends Clock {
    private final Clock base;
    private final AtomicLong offsetNanos;

    private MutableClock(Clock base, AtomicLong offsetNanos) {
        this.base = base;
        this.offsetNanos = offsetNanos;
    }

    /** A clock standing at {@code start} until advanced. */
    public static MutableClock at(Instant start) {
        return new MutableClock(Clock.fixed(start, ZoneOffset.UTC), new AtomicLong());
    }

    /** A clock that runs with the system clock and is ahead of it by whatever it was advanced. */
    public static MutableClock ofSystem() {
        return new MutableClock(Clock.systemUTC(), new AtomicLong());
    }

    /** Moves the clock forward by {@code step} (not negative). */
    public void advance(Duration step) {
        if (step.isNegative()) {
            throw new IllegalArgumentException("a clock only moves forward: " + step);
        }
        offsetNanos.addAndGet(step.toNanos());
    }

    @Override
    public Instant instant() {
        return base.instant().plusNanos(offsetNanos.get());
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    /** Only UTC: a test clock in another zone would be a second clock with its own offset. */
    @Override
    public Clock withZone(ZoneId zone) {
        if (!ZoneOffset.UTC.normalized().equals(zone.normalized())) {
            throw new UnsupportedOperationException("a MutableClock is always in UTC, not " + zone);
        }
        return this;
    }
}
