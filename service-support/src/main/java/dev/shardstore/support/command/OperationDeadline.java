package dev.shardstore.support.command;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.util.function.Supplier;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * The time limit of the command running on this thread: a command's {@code maxTimeMS} (MongoDB's operation deadline,
 * MongoDB manual "cursor.maxTimeMS()" and the {@code maxTimeMS} command argument). {@link CommandRegistry}
 * sets it around every handler, on the router and on the shards alike; the loops that can take long — the shard's
 * document scans, the router's stale-routing retries — call {@link #check()}, which throws MaxTimeMSExpired (50) once
 * it has passed. A cursor opened under a limit keeps what is left of it and spends it over its getMores
 * ({@link #remainingNanos()} / {@link #within}), as MongoDB applies {@code maxTimeMS} cumulatively to a cursor.
 *
 * <p>The limit lives in a thread-local, like MongoDB's OperationContext is per operation: work a command hands to
 * other threads is not limited by it (the router forwards {@code maxTimeMS} to the shards in the commands it sends,
 * so each shard enforces it on its own thread).
 */
public final class OperationDeadline {
    /** The command argument. */
    public static final String FIELD = "maxTimeMS";
    /** No limit, as {@link #remainingNanos()} reports it. */
    public static final long NONE = -1;

    /** System.nanoTime() deadline of the running command; absent when it has no limit. */
    private static final ThreadLocal<Long> DEADLINE = new ThreadLocal<>();

    private OperationDeadline() {}

    /**
     * The {@code maxTimeMS} of {@code command} in milliseconds, 0 when absent (no limit).
     *
     * @throws CommandException BadValue (2) when it is not a whole number from 0 to 2^31 - 1 (MongoDB's range), or when a
     *                          {@code getMore} carries one: a getMore spends its cursor's limit, and MongoDB accepts
     *                          its own {@code maxTimeMS} only on tailable awaitData cursors, which do not exist here
     */
    public static long millisOf(BsonDocument command) {
        BsonValue value = command.get(FIELD);
        if (value == null) {
            return 0;
        }
        long ms = millis(command.getFirstKey() + "." + FIELD, value);
        if (ms > 0 && command.getFirstKey().equals("getMore")) {
            throw new CommandException(ErrorCode.BadValue, "cannot set maxTimeMS on getMore command for a non-awaitData cursor:"
                    + " the find or aggregate's maxTimeMS limits the whole cursor");
        }
        return ms;
    }

    /**
     * A {@code maxTimeMS} value in milliseconds.
     *
     * @param path the option as the error names it, e.g. {@code find.maxTimeMS}
     * @throws CommandException BadValue (2) when it is not a whole number from 0 to 2^31 - 1 (MongoDB's range)
     */
    public static long millis(String path, BsonValue value) {
        double ms = value.isNumber() ? value.asNumber().doubleValue() : Double.NaN;
        if (!(ms >= 0 && ms <= Integer.MAX_VALUE && ms == Math.rint(ms))) {
            throw new CommandException(ErrorCode.BadValue, "'" + path + "' must be a whole number of milliseconds from 0 to "
                    + Integer.MAX_VALUE + ", not " + value);
        }
        return (long) ms;
    }

    /**
     * Runs {@code body} limited to {@code nanos} from now ({@link #NONE}: no new limit). A limit already running on this
     * thread stays in force when it is earlier; the previous limit is restored afterwards.
     */
    public static <T> T within(long nanos, Supplier<T> body) {
        Long previous = DEADLINE.get();
        if (nanos == NONE) {
            return body.get();
        }
        long deadline = System.nanoTime() + nanos;
        DEADLINE.set(previous != null && previous - deadline < 0 ? previous : deadline);
        try {
            return body.get();
        } finally {
            if (previous == null) {
                DEADLINE.remove();
            } else {
                DEADLINE.set(previous);
            }
        }
    }

    /**
     * Throws when the running command's limit has passed; free when it has none.
     *
     * @throws CommandException MaxTimeMSExpired (50)
     */
    public static void check() {
        Long deadline = DEADLINE.get();
        if (deadline != null && System.nanoTime() - deadline >= 0) {
            throw new CommandException(ErrorCode.MaxTimeMSExpired, "operation exceeded time limit (maxTimeMS)");
        }
    }

    /** What is left of the running command's limit in nanoseconds (0 when it has passed), or {@link #NONE}. */
    public static long remainingNanos() {
        Long deadline = DEADLINE.get();
        return deadline == null ? NONE : Math.max(0, deadline - System.nanoTime());
    }
}
