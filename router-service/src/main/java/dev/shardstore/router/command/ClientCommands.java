package dev.shardstore.router.command;

import dev.shardstore.support.operation.Caller;
import dev.shardstore.contracts.clock.ClusterTimeGossip;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.error.ErrorLabel;
import dev.shardstore.contracts.error.ErrorReplies;
import dev.shardstore.contracts.http.InternalApi;
import dev.shardstore.contracts.session.LogicalSessionId;
import dev.shardstore.contracts.session.OperationSessionInfo;
import dev.shardstore.contracts.error.WriteErrors;
import dev.shardstore.router.audit.AuditLog;
import dev.shardstore.router.audit.AuditProperties;
import dev.shardstore.router.cursor.CursorSessions;
import dev.shardstore.router.profile.SlowOperationLog;
import dev.shardstore.router.transaction.RouterTransaction;
import dev.shardstore.router.transaction.RouterTransactions;
import dev.shardstore.router.transaction.TransactionAborter;
import dev.shardstore.support.command.CommandRegistry;
import dev.shardstore.support.security.Principal;
import dev.shardstore.support.session.LogicalSessionCache;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.jspecify.annotations.Nullable;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import dev.shardstore.contracts.clock.ReadConcern;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.stereotype.Component;

/**
 * A client's command through the router's one {@link CommandRegistry} (docs/architecture.md "The client API: REST and the wire protocol"), timed as
 * {@code shardstore.router.command} with the tags {@code command} (the name, or {@code unknown} for a name no handler
 * serves, so clients cannot grow the tag's values), {@code outcome} ({@code ok}/{@code error}) and
 * {@code transport} (the front end: {@code rest} or {@code wire}). Every front end calls this, so a command behaves
 * and is measured the same whichever way it arrives.
 *
 * <p>Internal commands ({@code _shardsvr*}, {@code _configsvr*}, ...) are refused with Unauthorized (13) on every
 * client front end ({@link #refuseInternal}): only members of the cluster run them, over the internal endpoints.
 *
 * <p>Cluster time (mongo/src/mongo/db/s/README.md "Causal consistency in sessions"): a client's {@code $clusterTime} moves the router's
 * clock only when validly signed (else the command is refused before it runs); every reply — success, or the error a
 * {@link CommandException} becomes — carries {@code $clusterTime} and {@code operationTime}. The router does not
 * write, so its operationTime is its cluster time after the command: at or above every shard's operationTime it
 * gossiped back, which is what {@code afterClusterTime} needs.
 *
 * <p>Sessions (mongo/src/mongo/db/s/README.md "How a session gets placed into the logical session cache"): a command's {@code lsid} places
 * the session in the router's {@link LogicalSessionCache} or bumps its {@code lastUse}, and a cursor the command opens
 * belongs to that session, so ending or expiring the session kills it.
 *
 * <p>Transactions (mongo/src/mongo/db/s/README.md "Transactions"): a command with {@code autocommit: false} runs in
 * its session's transaction ({@link #inTransaction}), on REST and the wire protocol alike.
 *
 * <p>Authorization (docs/architecture.md "Security"): a command runs as the {@link Principal} its front end
 * authenticated, and the registry checks it before the handler runs ({@link dev.shardstore.support.security.CommandAuthorizer}).
 */
@Component
public class ClientCommands {
    /** The front end a command arrived through. */
    public enum Transport {
        /** {@code POST /v1/databases/{db}/command} and the resource endpoints on top of it. */
        REST,
        /** MongoDB's wire protocol (OP_MSG). */
        WIRE;

        String tag() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** How often a read at a time this router chose runs again at a later one: once the clock moved, one retry suffices. */
    private static final int SNAPSHOT_RETRIES = 2;

    private final CommandRegistry registry;
    private final MeterRegistry meters;
    private final ClusterTimeGossip gossip;
    private final LogicalSessionCache sessions;
    private final CursorSessions cursors;
    private final RouterTransactions transactions;
    private final TransactionAborter transactionCommands;
    private final AuditLog audit;
    private final SlowOperationLog slow;
    /** Snapshot reads run again at a later time this router chose ({@link #atChosenTime}). */
    private final Counter snapshotRetries;

    /** Client commands whose audit events are kept in memory only (tests that build a front end of their own). */
    public ClientCommands(CommandRegistry registry, MeterRegistry meters, ClusterTimeGossip gossip, LogicalSessionCache sessions,
            CursorSessions cursors, RouterTransactions transactions, TransactionAborter transactionCommands) {
        this(registry, meters, gossip, sessions, cursors, transactions, transactionCommands, new AuditLog(AuditProperties.DEFAULTS, Clock.systemUTC()),
                new SlowOperationLog());
    }

    /**
     * @param audit records the audited commands (user and role changes, DDL, sharding administration) with their outcome
     * @param slow  records the commands slower than {@code slowms}
     */
    @Autowired
    public ClientCommands(CommandRegistry registry, MeterRegistry meters, ClusterTimeGossip gossip, LogicalSessionCache sessions,
            CursorSessions cursors, RouterTransactions transactions, TransactionAborter transactionCommands, AuditLog audit,
            SlowOperationLog slow) {
        this.audit = audit;
        this.slow = slow;
        this.transactions = transactions;
        this.transactionCommands = transactionCommands;
        this.registry = registry;
        this.meters = meters;
        this.gossip = gossip;
        this.sessions = sessions;
        this.cursors = cursors;
        this.snapshotRetries = Counter.builder("shardstore.router.snapshot.retries")
                .description("snapshot reads run again at a later cluster time after a snapshot error at the time the router chose")
                .register(meters);
    }

    /**
     * Runs {@code command} on {@code db}.
     *
     * @return the handler's reply ({@code ok: 1}) with {@code $clusterTime} and {@code operationTime}
     * @throws CommandException whatever the registry or the handler throws, or a refused {@code $clusterTime}
     *                          ({@link ClusterTimeGossip#received}), carrying {@code $clusterTime} and
     *                          {@code operationTime} in its extra info; anything unexpected as InternalError (1)
     */
    public BsonDocument run(Transport transport, String db, BsonDocument command) {
        return run(transport, Principal.NONE, null, db, command);
    }

    /**
     * Runs {@code command} on {@code db} as {@code principal} (what the front end authenticated) for the client at
     * {@code remote}; an audited command ({@link AuditLog#command}) is recorded with its outcome, refusals included, and
     * so is one slower than {@code slowms} ({@link SlowOperationLog}).
     *
     * @param remote the client's address, for the audit log; null when unknown
     * @throws CommandException as {@link #run(Transport, String, BsonDocument)}, and Unauthorized (13) when the
     *                          principal may not run it and authorization is on
     */
    public BsonDocument run(Transport transport, Principal principal, @Nullable InetSocketAddress remote, String db, BsonDocument command) {
        long start = slow.start();
        try {
            BsonDocument reply = run(transport, principal, db, command);
            audit.command(remote, principal, db, command, ErrorReplies.isError(reply)
                    ? reply.getNumber("code", new BsonInt32(ErrorCode.InternalError.code())).intValue() : 0);
            slow.finished(start, transport.tag(), principal, db, command, null);
            return reply;
        } catch (CommandException e) {
            audit.command(remote, principal, db, command, e.code().code());
            slow.finished(start, transport.tag(), principal, db, command, e);
            throw e;
        }
    }

    private BsonDocument run(Transport transport, Principal principal, String db, BsonDocument command) {
        String name = command.isEmpty() ? "(empty)" : command.getFirstKey();
        return timed(transport, registry.knows(name) ? name : "unknown", () -> {
            refuseInternal(db, command);
            gossip.received(command, ClusterTimeGossip.Sender.CLIENT);
            LogicalSessionId lsid = command.containsKey(LogicalSessionId.FIELD)
                    ? LogicalSessionId.parse(command.get(LogicalSessionId.FIELD), LogicalSessionId.FIELD) : null;
            if (lsid != null) {
                sessions.vivify(lsid);
            }
            Caller caller = Caller.client(transport.tag(), principal);
            Optional<OperationSessionInfo> session = OperationSessionInfo.of(command);
            boolean inTransaction = session.isPresent() && session.get().inTransaction();
            SnapshotTime snapshot = snapshotTimeOf(command);
            BsonDocument reply = inTransaction ? inTransaction(caller, db, command, snapshot, session.get(), name)
                    : snapshot != null ? atSnapshot(caller, db, command, snapshot) : registry.run(caller, db, command);
            if (reply.isDocument("cursor") && reply.getDocument("cursor").isNumber("id")) {
                long cursorId = reply.getDocument("cursor").getNumber("id").longValue();
                cursors.bindOwner(cursorId, principal.users());
                if (lsid != null) {
                    cursors.bindSession(cursorId, lsid);
                }
            }
            return reply;
        });
    }

    /**
     * Refuses an internal command from a client, whoever it is (MongoDB gives the internal actions to {@code __system}
     * alone, not even to {@code root}): a name {@link InternalApi#isInternalCommand} knows ({@code _shardsvr*},
     * {@code _configsvr*}, {@code _recvChunk*}, {@code _migrateClone}, {@code _transferMods}, {@code _getNextSessionMods},
     * {@code _sessions*}, ...), also as the command an {@code explain} wraps. Checked before anything else, so the
     * command neither runs nor moves the clock.
     *
     * @throws CommandException Unauthorized (13)
     */
    private static void refuseInternal(String db, BsonDocument command) {
        if (command.isEmpty()) {
            return;
        }
        String name = command.getFirstKey();
        String inner = name.equals("explain") && command.get(name) instanceof BsonDocument explained && !explained.isEmpty()
                ? explained.getFirstKey() : name;
        if (InternalApi.isInternalCommand(inner)) {
            throw new CommandException(ErrorCode.Unauthorized, "not authorized on " + db + " to execute command " + inner
                    + ": internal commands are run by members of the cluster only");
        }
    }

    /**
     * The time a snapshot read reads at, the same on every shard it reaches.
     *
     * @param at     the client's {@code readConcern.atClusterTime}, or this router's cluster time when it gave none
     * @param chosen whether this router chose {@code at}, and so may choose a later one ({@link #atChosenTime})
     */
    private record SnapshotTime(BsonTimestamp at, boolean chosen) {
    }

    /**
     * The time a snapshot read is to read at (mongo/src/mongo/db/s/README.md "Transactions": mongos chooses
     * {@code atClusterTime} for a transaction at its first statement): the command's {@code readConcern.atClusterTime},
     * else this router's cluster time, which is at or after every time the client has seen (its {@code $clusterTime}
     * gossip moved the clock); null for a command that does not read at a snapshot.
     *
     * @throws CommandException the {@code readConcern} errors of {@link ReadConcern#of}
     */
    private @Nullable SnapshotTime snapshotTimeOf(BsonDocument command) {
        if (!command.isDocument(ReadConcern.FIELD)) {
            return null;
        }
        ReadConcern readConcern = ReadConcern.of(command);
        if (!readConcern.isSnapshot()) {
            return null;
        }
        BsonTimestamp at = readConcern.atClusterTime();
        return at != null ? new SnapshotTime(at, false) : new SnapshotTime(gossip.clock().clusterTime(), true);
    }

    /**
     * Runs a snapshot read outside a transaction at {@code snapshot}'s time; its reply (the cursor, for a cursor
     * command) carries the time it read at. When this router chose the time, a snapshot error runs it again at a
     * later one ({@link #atChosenTime}).
     */
    private BsonDocument atSnapshot(Caller caller, String db, BsonDocument command, SnapshotTime snapshot) {
        Function<BsonTimestamp, BsonDocument> read = at -> {
            BsonDocument reply = registry.run(caller, db, withAtClusterTime(command, at));
            (reply.isDocument("cursor") ? reply.getDocument("cursor") : reply).put(ReadConcern.AT_CLUSTER_TIME, at);
            return reply;
        };
        return snapshot.chosen() ? atChosenTime(snapshot.at(), read, later -> true) : read.apply(snapshot.at());
    }

    /**
     * Runs {@code read} at {@code first}, a time this router chose; when it fails with a snapshot error
     * ({@link ErrorLabel#isSnapshotError}) and this router's cluster time has moved past the time it read at, and
     * {@code moveTo} accepts that later time, again at it, up to {@link #SNAPSHOT_RETRIES} times; otherwise the error
     * stands. The clock of a router that was idle moves only with what it hears, so its time can be older than a
     * collection's sharding or a merge (StaleChunkHistory, 183); the failed attempt's own exchanges (the routing
     * table refresh, the shards' replies) move it. A later time is as good a snapshot as the first for a client that
     * asked for none: it is still at or after everything the client has seen.
     */
    private BsonDocument atChosenTime(BsonTimestamp first, Function<BsonTimestamp, BsonDocument> read, Predicate<BsonTimestamp> moveTo) {
        BsonTimestamp at = first;
        for (int attempt = 0; ; attempt++) {
            try {
                return read.apply(at);
            } catch (CommandException e) {
                BsonTimestamp now = gossip.clock().clusterTime();
                if (attempt >= SNAPSHOT_RETRIES || !ErrorLabel.isSnapshotError(e.code())
                        || Long.compareUnsigned(now.getValue(), at.getValue()) <= 0 || !moveTo.test(now)) {
                    throw e;
                }
                snapshotRetries.increment();
                at = now;
            }
        }
    }

    /** {@code command} with {@code readConcern: {level: "snapshot", atClusterTime: at}} (an afterClusterTime dropped: at is later). */
    private static BsonDocument withAtClusterTime(BsonDocument command, BsonTimestamp at) {
        BsonDocument routed = new BsonDocument();
        routed.putAll(command);
        routed.put(ReadConcern.FIELD, new BsonDocument("level", new BsonString(ReadConcern.Level.SNAPSHOT.spelling()))
                .append(ReadConcern.AT_CLUSTER_TIME, at));
        return routed;
    }

    /**
     * A command of a multi-document transaction, with its session held ({@link RouterTransactions}): it runs in the
     * session's transaction, and its reply carries the transaction's {@code recoveryToken}. A statement that fails
     * — with a write error too, which becomes the command's error as in MongoDB — aborts the transaction on every
     * participant (mongo/src/mongo/db/s/README.md "Aborting a Transaction"). A first statement at a snapshot time this
     * router chose runs again at a later time after a snapshot error that reached no shard ({@link #atChosenTime},
     * {@link RouterTransaction#readAtLaterTime}); once a shard has a statement of the transaction its time is fixed,
     * and the error aborts the transaction for the client to retry.
     */
    private BsonDocument inTransaction(Caller caller, String db, BsonDocument command, @Nullable SnapshotTime snapshot,
            OperationSessionInfo session, String name) {
        BsonDocument routed = snapshot == null ? command : withAtClusterTime(command, snapshot.at());
        return transactions.run(session, name, routed, txn -> {
            boolean statement = !name.equals("commitTransaction") && !name.equals("abortTransaction");
            BsonDocument reply;
            try {
                reply = snapshot != null && snapshot.chosen() && session.startTransaction()
                        ? atChosenTime(snapshot.at(), at -> registry.run(caller, db, withAtClusterTime(routed, at), txn::attach),
                                txn::readAtLaterTime)
                        : registry.run(caller, db, routed, txn::attach);
                CommandException writeError = statement ? WriteErrors.firstAsCommandError(reply) : null;
                if (writeError != null) {
                    throw writeError;
                }
            } catch (CommandException e) {
                if (statement && txn.state() == RouterTransaction.State.ACTIVE) {
                    transactionCommands.abortQuietly(txn);
                }
                throw statement ? ErrorLabel.asTransactionStatementError(e) : e;
            }
            reply.put("recoveryToken", txn.recoveryToken());
            return reply;
        });
    }

    /** The audit log the audited commands go to; the front ends record their authentications there too. */
    public AuditLog audit() {
        return audit;
    }

    /** MongoDB's {@code localLogicalSessionTimeoutMinutes} of this router, which the wire handshake advertises. */
    public int logicalSessionTimeoutMinutes() {
        return (int) Math.max(1, sessions.timeout().toMinutes());
    }

    /**
     * Times a command a front end answers itself (the wire protocol's connection handshake, {@code hello}) under the
     * same meter as the registry's commands.
     *
     * @param name the command's name, a fixed set chosen by the caller (never a client's arbitrary string)
     * @return the reply with {@code $clusterTime} and {@code operationTime}; failures as {@link #run}
     */
    public BsonDocument timed(Transport transport, String name, Supplier<BsonDocument> command) {
        Timer.Sample sample = Timer.start(meters);
        String outcome = "error";
        try {
            BsonDocument reply = command.get();
            outcome = "ok";
            return gossip.stamp(reply, gossip.clock().clusterTime());
        } catch (CommandException e) {
            throw stamped(e.code(), e.getMessage(), e.extraInfo(), e);
        } catch (RuntimeException e) {
            throw stamped(ErrorCode.InternalError, "internal error: " + e, new BsonDocument(), e);
        } finally {
            sample.stop(meters.timer("shardstore.router.command", "command", name, "outcome", outcome, "transport", transport.tag()));
        }
    }

    /** The failure as the client sees it, with the cluster time in its extra info (so in every error body). */
    private CommandException stamped(ErrorCode code, String message, BsonDocument extraInfo, RuntimeException cause) {
        return new CommandException(code, message, gossip.stamp(extraInfo, gossip.clock().clusterTime()), cause);
    }
}
