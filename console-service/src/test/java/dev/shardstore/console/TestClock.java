package dev.shardstore.console;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A clock the test moves, from 2026-12-02T12:00:00Z (UTC). Thread-safe. */
public final class TestClock extends Clock {
    private volatile Instant now = Instant.parse("2026-12-02T12:00:00Z");

    /** Moves the clock on by {@code by}. */
    public void advance(Duration by) {
        now = now.plus(by);
    }

    @Override
    public Instant instant() {
        return now;
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }
}
