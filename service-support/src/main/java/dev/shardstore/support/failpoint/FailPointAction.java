package dev.shardstore.support.failpoint;

import dev.shardstore.contracts.error.ErrorCode;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What an armed fail point does when a thread passes it.
 *
 * @param kind      crash the process, pause the thread until the point is turned off, or throw
 * @param errorCode the error thrown, for {@link Kind#ERROR} only
 */
public record FailPointAction(Kind kind, @Nullable ErrorCode errorCode) {
    /** The three actions; their names are the {@code data.action} values of {@code configureFailPoint}. */
    public enum Kind { CRASH, PAUSE, ERROR }

    public FailPointAction {
        Objects.requireNonNull(kind, "kind");
        if ((kind == Kind.ERROR) != (errorCode != null)) {
            throw new IllegalArgumentException("an error code goes with the error action, and only with it");
        }
    }

    /** Halt the process at the point (a {@code kill -9} at that step). */
    public static FailPointAction crash() {
        return new FailPointAction(Kind.CRASH, null);
    }

    /** Block the passing thread until the point is turned off. */
    public static FailPointAction pause() {
        return new FailPointAction(Kind.PAUSE, null);
    }

    /** Throw a command error with {@code code}. */
    public static FailPointAction error(ErrorCode code) {
        return new FailPointAction(Kind.ERROR, Objects.requireNonNull(code, "code"));
    }
}
