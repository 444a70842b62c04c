package dev.shardstore.support.operation;

import dev.shardstore.contracts.clock.ReadConcern;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.session.OperationSessionInfo;
import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;
import java.util.function.LongSupplier;
import org.bson.BsonDocument;
import org.jspecify.annotations.Nullable;

/**
 * The state of one operation, created at the front end of a service and passed as a parameter down the call chain
 * (MongoDB's {@code OperationContext}; docs/architecture.md "The operation context"): its {@link Deadline}, its
 * session fields ({@code lsid}, {@code txnNumber}), its read concern, who it runs for ({@link Caller}) and, for a
 * command, its entry in the service's {@link OperationRegistry} ({@link RunningOperation}, which {@code killOp} marks
 * killed and {@link #checkForInterrupt()} reads). Nothing
 * about an operation is bound to a thread: a statement of a multi-statement transaction may run on another request
 * thread than the one before it, and one thread may apply many operations in turn.
 *
 * <p>What a service adds to an operation while it runs — on a shard, the filtering metadata its shard version check
 * accepted (with the shard and database versions it was sent with), the write unit its writes join and the retryable
 * statement they record for — travels as a {@link Decoration} (MongoDB decorates its {@code OperationContext} the
 * same way): {@link #with} returns a new context, so a decoration is seen exactly by the code it is passed to.
 *
 * <p>Immutable and thread-safe.
 */
public final class OperationContext {
    private static final Object[] NO_DECORATIONS = new Object[0];

    private final Caller caller;
    private final Deadline deadline;
    private final @Nullable OperationSessionInfo session;
    private final ReadConcern readConcern;
    /** The registered command this context runs; null for the process's own work. */
    private final @Nullable RunningOperation operation;
    /** Alternating decoration keys and values. */
    private final Object[] decorations;

    private OperationContext(Caller caller, Deadline deadline, @Nullable OperationSessionInfo session, ReadConcern readConcern,
            @Nullable RunningOperation operation, Object[] decorations) {
        this.caller = Objects.requireNonNull(caller, "caller");
        this.deadline = Objects.requireNonNull(deadline, "deadline");
        this.session = session;
        this.readConcern = Objects.requireNonNull(readConcern, "readConcern");
        this.operation = operation;
        this.decorations = decorations;
    }

    /**
     * The context of a command document that {@link dev.shardstore.support.command.CommandOptions} has accepted: its
     * session fields and read concern as the command states them, and its {@code maxTimeMS} on {@code ticker}.
     *
     * @param maxTimeMs the command's limit in milliseconds, 0 for none
     * @throws dev.shardstore.contracts.error.CommandException the errors of {@link OperationSessionInfo#of} and
     *                                                         {@link ReadConcern#of} for fields that do not parse
     */
    public static OperationContext forCommand(Caller caller, BsonDocument command, long maxTimeMs, LongSupplier ticker) {
        Deadline deadline = maxTimeMs == 0 ? Deadline.none(ticker) : Deadline.after(maxTimeMs * 1_000_000L, ticker);
        return new OperationContext(caller, deadline, OperationSessionInfo.of(command).orElse(null), ReadConcern.of(command),
                null, NO_DECORATIONS);
    }

    /** This process's own work named {@code task} ({@link Caller#internal}): no limit, no session, the default read concern. */
    public static OperationContext internal(String task) {
        return new OperationContext(Caller.internal(task), Deadline.none(), null, ReadConcern.DEFAULT, null, NO_DECORATIONS);
    }

    /** Who the operation runs for. */
    public Caller caller() {
        return caller;
    }

    /** The operation's time limit. */
    public Deadline deadline() {
        return deadline;
    }

    /**
     * Throws once the operation was killed ({@code killOp}, {@link RunningOperation#kill}) or its limit has passed
     * ({@link Deadline#check()}); MongoDB's {@code OperationContext::checkForInterrupt}. The loops that can take long
     * call it: a shard's scans between pages, its blocking sorts, the router's stale-routing retries.
     *
     * @throws CommandException Interrupted (11601) "operation was interrupted" once killed, else MaxTimeMSExpired (50)
     */
    public void checkForInterrupt() {
        if (operation != null && operation.killed()) {
            throw new CommandException(ErrorCode.Interrupted, "operation was interrupted");
        }
        deadline.check();
    }

    /** The registered command this context runs, if any (none for the process's own work). */
    public Optional<RunningOperation> operation() {
        return Optional.ofNullable(operation);
    }

    /** This context running as {@code operation} (what {@link dev.shardstore.support.command.CommandRegistry} registered). */
    public OperationContext withOperation(RunningOperation operation) {
        return new OperationContext(caller, deadline, session, readConcern, Objects.requireNonNull(operation, "operation"), decorations);
    }

    /** The session fields the operation was sent with, if any. */
    public Optional<OperationSessionInfo> session() {
        return Optional.ofNullable(session);
    }

    /** The read concern the operation was sent with ({@link ReadConcern#DEFAULT} without one). */
    public ReadConcern readConcern() {
        return readConcern;
    }

    /** This context with {@code deadline} as its limit (a cursor's getMore spends what its opening left). */
    public OperationContext withDeadline(Deadline deadline) {
        return new OperationContext(caller, deadline, session, readConcern, operation, decorations);
    }

    /** This context with {@code value} as its {@code key} decoration (replacing any earlier one of that key). */
    public <T> OperationContext with(Decoration<T> key, T value) {
        Objects.requireNonNull(value, key.name());
        int at = indexOf(key);
        Object[] next;
        if (at >= 0) {
            next = decorations.clone();
        } else {
            next = Arrays.copyOf(decorations, decorations.length + 2);
            at = decorations.length;
            next[at] = key;
        }
        next[at + 1] = value;
        return new OperationContext(caller, deadline, session, readConcern, operation, next);
    }

    /** The {@code key} decoration, or null when the operation has none. */
    public <T> @Nullable T get(Decoration<T> key) {
        int at = indexOf(key);
        return at < 0 ? null : key.type().cast(decorations[at + 1]);
    }

    private int indexOf(Decoration<?> key) {
        for (int i = 0; i < decorations.length; i += 2) {
            if (decorations[i] == key) {
                return i;
            }
        }
        return -1;
    }

    @Override
    public String toString() {
        return "OperationContext[" + caller + ", " + deadline + (session == null ? "" : ", " + session)
                + (operation == null ? "" : ", opid " + operation.opid()) + "]";
    }

    /**
     * A kind of state a service attaches to its operations. Keys compare by identity: each is a constant of the
     * class that owns that state.
     *
     * @param name what the state is, for messages
     * @param type the class of its values
     */
    public record Decoration<T>(String name, Class<T> type) {
        public Decoration {
            Objects.requireNonNull(type, "type");
            if (name == null || name.isBlank()) {
                throw new IllegalArgumentException("a decoration has a name");
            }
        }

        @Override
        public boolean equals(Object other) {
            return this == other;
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(this);
        }
    }
}
