package dev.shardstore.support.operation;

import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.util.Comparator;
import java.util.Locale;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * The commands running in this process (MongoDB's list of {@code CurOp}s that {@code $currentOp} walks and
 * {@code killOp} searches): {@link dev.shardstore.support.command.CommandRegistry} registers every command for the
 * duration of its handler call and deregisters it when the handler returns or throws. One per service (a Spring bean).
 * Opids come from one counter, so they are unique while the process runs. Times are read on the injected nanosecond
 * ticker ({@link System#nanoTime} in services, a test's counter in tests). Thread-safe.
 */
public final class OperationRegistry {
    private final AtomicLong lastOpid = new AtomicLong();
    private final ConcurrentHashMap<Long, RunningOperation> running = new ConcurrentHashMap<>();
    private final LongSupplier ticker;

    /** @param ticker nanoseconds: operations' start and running times, and the deadlines of the commands they run */
    public OperationRegistry(LongSupplier ticker) {
        this.ticker = ticker;
    }

    /** The ticker operations are timed on, nanoseconds. */
    public LongSupplier ticker() {
        return ticker;
    }

    /**
     * Registers {@code command} on {@code db}, run by {@code caller}, as a new running operation with the next opid.
     *
     * @param parent the operation a nested command runs for ({@link RunningOperation}), or null
     * @throws IllegalArgumentException for an empty command
     */
    public RunningOperation register(Caller caller, String db, BsonDocument command, @Nullable RunningOperation parent) {
        RunningOperation op = new RunningOperation(lastOpid.incrementAndGet(), db, command, caller, ticker.getAsLong(), parent);
        running.put(op.opid(), op);
        return op;
    }

    /** Removes {@code op}: it has ended (idempotent). */
    public void deregister(RunningOperation op) {
        running.remove(op.opid(), op);
    }

    /** The operations running now, by opid. */
    public List<RunningOperation> running() {
        return running.values().stream().sorted(Comparator.comparingLong(RunningOperation::opid)).toList();
    }

    /** The running operation {@code opid}, if it still runs. */
    public Optional<RunningOperation> find(long opid) {
        return Optional.ofNullable(running.get(opid));
    }

    /**
     * Marks the operation {@code opid} killed, if it still runs ({@code killOp}); it stops at its next check for
     * interrupt with Interrupted (11601).
     *
     * @return whether it was running
     */
    public boolean kill(long opid) {
        Optional<RunningOperation> op = find(opid);
        op.ifPresent(RunningOperation::kill);
        return op.isPresent();
    }

    /**
     * The operation a {@code {killOp: 1, op: <number>}} command names (MongoDB manual "killOp"): an int or long, or a
     * double of integral value.
     *
     * @throws CommandException FailedToParse (9) without {@code op}; TypeMismatch (14) when it is not an integral number
     */
    public static long killOpTarget(BsonDocument command) {
        BsonValue op = command.get("op");
        if (op == null) {
            throw new CommandException(ErrorCode.FailedToParse, "Did not provide \"op\" field");
        }
        if (op.isInt32() || op.isInt64()) {
            return op.asNumber().longValue();
        }
        if (op.isDouble() && op.asDouble().getValue() == Math.rint(op.asDouble().getValue())
                && Math.abs(op.asDouble().getValue()) < 0x1p63) {
            return (long) op.asDouble().getValue();
        }
        throw new CommandException(ErrorCode.TypeMismatch, "Expected field \"op\" to have numeric type, but found "
                + op.getBsonType().name().toLowerCase(Locale.ROOT));
    }

    /**
     * MongoDB's reply to {@code killOp}, {@code {info: "attempting to kill op", ok: 1}}, whether or not the operation
     * still ran: a kill only marks the operation, which stops at its next check.
     */
    public static BsonDocument killOpReply() {
        return Replies.ok(new BsonDocument("info", new BsonString("attempting to kill op")));
    }

    /** {@code op}'s {@code $currentOp} document now ({@link RunningOperation#describe}). */
    public BsonDocument describe(RunningOperation op) {
        return op.describe(ticker.getAsLong());
    }
}
