package dev.shardstore.support.operation;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.util.function.LongSupplier;

/**
 * The time limit of one operation: its {@code maxTimeMS} as a point on a nanosecond ticker (MongoDB's operation
 * deadline; MongoDB manual "cursor.maxTimeMS()" and the {@code maxTimeMS} command argument). Immutable: a narrower
 * limit is a new {@code Deadline} ({@link #within}). The loops that can take long — a shard's document scans, the
 * router's stale-routing retries — call {@link #check()}.
 *
 * <p>The ticker is {@link System#nanoTime} in services and a test's own counter in tests, so that expiry is
 * decided by the test, never by how fast the machine runs.
 */
public final class Deadline {
    /** What {@link #remainingNanos()} reports for an operation without a limit. */
    public static final long NONE = -1;

    private static final Deadline UNLIMITED = new Deadline(System::nanoTime, false, 0);

    private final LongSupplier ticker;
    private final boolean limited;
    /** The ticker's value at which the limit passes; meaningless when not {@link #limited}. */
    private final long at;

    private Deadline(LongSupplier ticker, boolean limited, long at) {
        this.ticker = ticker;
        this.limited = limited;
        this.at = at;
    }

    /** No limit. */
    public static Deadline none() {
        return UNLIMITED;
    }

    /** No limit, on {@code ticker}: a limit {@link #within} it narrows to runs on that ticker too. */
    public static Deadline none(LongSupplier ticker) {
        return new Deadline(ticker, false, 0);
    }

    /**
     * The limit {@code nanos} from now on {@code ticker}.
     *
     * @throws IllegalArgumentException for a negative {@code nanos}
     */
    public static Deadline after(long nanos, LongSupplier ticker) {
        if (nanos < 0) {
            throw new IllegalArgumentException("a deadline lies ahead: " + nanos + " ns");
        }
        return new Deadline(ticker, true, ticker.getAsLong() + nanos);
    }

    /**
     * This limit narrowed to at most {@code nanos} from now ({@link #NONE}: this limit as it is). An earlier limit
     * already in force stays, so a narrower scope never extends its operation's time.
     */
    public Deadline within(long nanos) {
        if (nanos == NONE) {
            return this;
        }
        Deadline narrower = after(nanos, ticker);
        return limited && at - narrower.at < 0 ? this : narrower;
    }

    /** Whether the operation has a limit at all. */
    public boolean limited() {
        return limited;
    }

    /**
     * Throws once the limit has passed; free without one.
     *
     * @throws CommandException MaxTimeMSExpired (50)
     */
    public void check() {
        if (limited && ticker.getAsLong() - at >= 0) {
            throw new CommandException(ErrorCode.MaxTimeMSExpired, "operation exceeded time limit (maxTimeMS)");
        }
    }

    /** What is left of the limit in nanoseconds (0 once it has passed), or {@link #NONE} without one. */
    public long remainingNanos() {
        return limited ? Math.max(0, at - ticker.getAsLong()) : NONE;
    }

    @Override
    public String toString() {
        return limited ? "Deadline[" + remainingNanos() + " ns left]" : "Deadline[none]";
    }
}
