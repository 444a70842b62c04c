package dev.shardstore.support.operation;

import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.support.security.UserName;
import java.util.Objects;
import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * One command running in this process, as {@link OperationRegistry} lists it for {@code $currentOp} and
 * {@code killOp} finds it (MongoDB's {@code CurOp}; MongoDB manual "$currentOp (aggregation)", "killOp"). It travels in
 * the {@link OperationContext} of its command, so that {@link OperationContext#checkForInterrupt()} deep in the call
 * chain sees a kill. Everything but the killed flag is fixed at registration; the flag is atomic: {@code killOp} sets
 * it from another thread and the operation's own thread reads it at its next check.
 *
 * <p>A nested command (the router's {@code $out} writing its results) is an operation of its own whose {@code parent}
 * is the operation it runs for: killing the parent interrupts it too.
 */
public final class RunningOperation {
    /** Commands larger than this many bytes of BSON are listed truncated, as MongoDB's {@code currentOp} does (1 KB). */
    public static final int MAX_COMMAND_BYTES = 1024;

    private final long opid;
    private final String commandName;
    private final String db;
    private final BsonDocument command;
    private final String namespace;
    private final Caller caller;
    private final long startTicks;
    private final @Nullable RunningOperation parent;
    private volatile boolean killed;

    /**
     * @param opid       this process's number of the operation, unique while the process runs
     * @param db         the database the command runs on
     * @param command    the command document, held as it is: only a listing copies it ({@link #command()}), so that a
     *                   command's run does not pay for encoding it once more
     * @param caller     who runs it
     * @param startTicks the operation registry's ticker when it started, nanoseconds
     * @param parent     the operation a nested command runs for, or null
     * @throws IllegalArgumentException for an empty command (the registry refuses one before it registers anything); a
     *                                  database name is listed as sent, since the command has not checked it yet
     */
    RunningOperation(long opid, String db, BsonDocument command, Caller caller, long startTicks, @Nullable RunningOperation parent) {
        if (command.isEmpty()) {
            throw new IllegalArgumentException("a running operation has a command");
        }
        this.opid = opid;
        this.commandName = command.getFirstKey();
        this.db = Objects.requireNonNull(db, "db");
        this.command = command;
        this.namespace = namespaceOf(db, commandName, command);
        this.caller = Objects.requireNonNull(caller, "caller");
        this.startTicks = startTicks;
        this.parent = parent;
    }

    /**
     * {@code command} as {@code currentOp} shows it: a copy, or past {@value #MAX_COMMAND_BYTES} bytes of BSON MongoDB's
     * {@code {$truncated: "<the command's JSON cut at 1 KB> ...", comment: <its comment>}} (the comment kept so that an
     * operation can still be found by it).
     */
    static BsonDocument truncated(BsonDocument command) {
        if (BsonBytes.encode(command).length <= MAX_COMMAND_BYTES) {
            return command.clone();
        }
        String json = command.toJson();
        BsonDocument truncated = new BsonDocument("$truncated",
                new BsonString(json.substring(0, Math.min(json.length(), MAX_COMMAND_BYTES)) + " ..."));
        BsonValue comment = command.get("comment");
        if (comment != null) {
            truncated.append("comment", new BsonDocument("comment", comment).clone().get("comment")); // a deep copy
        }
        return truncated;
    }

    /** This process's number of the operation ({@code killOp}'s {@code op}). */
    public long opid() {
        return opid;
    }

    /** The command's name, its first field. */
    public String commandName() {
        return commandName;
    }

    /** The database it runs on. */
    public String db() {
        return db;
    }

    /**
     * A copy of the command, {@link #truncated} past {@value #MAX_COMMAND_BYTES} bytes. Should the command's handler
     * change the document while it is copied, the copy is {@code {$truncated: "(the command changed while it was
     * listed)"}} rather than a failure of the listing.
     */
    public BsonDocument command() {
        try {
            return truncated(command);
        } catch (java.util.ConcurrentModificationException | IllegalStateException e) {
            return new BsonDocument("$truncated", new BsonString("(the command changed while it was listed)"));
        }
    }

    /** Who runs it. */
    public Caller caller() {
        return caller;
    }

    /** The ticker's value when it started, nanoseconds. */
    public long startTicks() {
        return startTicks;
    }

    /** Marks the operation killed: its next {@link OperationContext#checkForInterrupt()} throws Interrupted (11601). */
    public void kill() {
        killed = true;
    }

    /** Whether it, or the operation it runs for, was killed. */
    public boolean killed() {
        return killed || parent != null && parent.killed();
    }

    /**
     * The operation's {@code $currentOp} document at ticker value {@code nowTicks}, MongoDB's shape: {@code {type: "op",
     * opid, active: true, op: "command"|"getmore", ns, command, secs_running, microsecs_running, desc, effectiveUsers?,
     * killPending?}}. {@code ns} is {@code <db>.<collection>} when the command names one (a string first value, or
     * getMore's {@code collection}), else {@code <db>.$cmd}; {@code desc} is the caller's name (its front end, or the
     * process's task); {@code effectiveUsers} lists the caller's authenticated users when it has any; {@code
     * killPending: true} once killed and still running. No {@code client}: the registry does not know the address.
     */
    public BsonDocument describe(long nowTicks) {
        long micros = Math.max(0, nowTicks - startTicks) / 1_000;
        BsonDocument doc = new BsonDocument("type", new BsonString("op"))
                .append("opid", new BsonInt64(opid))
                .append("active", BsonBoolean.TRUE)
                .append("op", new BsonString(commandName.equals("getMore") ? "getmore" : "command"))
                .append("ns", new BsonString(namespace))
                .append("command", command())
                .append("secs_running", new BsonInt64(micros / 1_000_000))
                .append("microsecs_running", new BsonInt64(micros))
                .append("desc", new BsonString(caller.name()));
        if (!caller.principal().users().isEmpty()) {
            doc.append("effectiveUsers", new BsonArray(caller.principal().users().stream()
                    .map(u -> (BsonValue) new BsonDocument("user", new BsonString(u.user())).append("db", new BsonString(u.db())))
                    .toList()));
        }
        if (killed()) {
            doc.append("killPending", BsonBoolean.TRUE);
        }
        return doc;
    }

    /** Whether the operation runs for {@code user} (one of its caller's authenticated users). */
    public boolean runsFor(UserName user) {
        return caller.principal().users().contains(user);
    }

    /** {@code <db>.<collection>} when the command names one (getMore's {@code collection}), else {@code <db>.$cmd}. */
    private static String namespaceOf(String db, String commandName, BsonDocument command) {
        BsonValue target = command.get(commandName);
        if (commandName.equals("getMore") && command.isString("collection")) {
            return db + "." + command.getString("collection").getValue();
        }
        return target != null && target.isString() && !target.asString().getValue().isEmpty()
                ? db + "." + target.asString().getValue() : db + ".$cmd";
    }

    @Override
    public String toString() {
        return "RunningOperation[" + opid + " " + commandName + " on " + db + (killed() ? ", killed" : "") + "]";
    }
}
