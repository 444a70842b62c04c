package dev.shardstore.shard.transaction;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.error.ErrorLabel;
import dev.shardstore.contracts.error.WriteErrors;
import dev.shardstore.contracts.session.LogicalSessionId;
import dev.shardstore.contracts.session.OperationSessionInfo;
import dev.shardstore.shard.session.SessionCatalog;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.shard.storage.PreparedTransaction;
import dev.shardstore.shard.storage.SessionHistory;
import dev.shardstore.shard.storage.SnapshotRead;
import dev.shardstore.shard.storage.TransactionResources;
import dev.shardstore.shard.storage.WriteUnitOfWork;
import dev.shardstore.shard.versioning.CollectionShardingRuntime;
import dev.shardstore.shard.versioning.OwnershipFilter;
import dev.shardstore.support.operation.Deadline;
import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.support.session.LogicalSessionCache;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Supplier;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.ConcurrencyFailureException;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * The shard's transaction participant (MongoDB's {@code TransactionParticipant}; mongo/src/mongo/db/s/README.md
 * "Transactions"): for each session, the multi-document transaction it runs on this shard, and the rules by which a
 * statement starts, continues, commits or aborts it.
 *
 * <p>The transaction of one session is a small state machine — in progress, then committed or aborted — changed
 * only by the command that has the session checked out ({@link SessionCatalog}), so one writer at a time:
 * <ul>
 *   <li>a statement with {@code startTransaction: true} starts transaction {@code txnNumber}: TransactionTooOld (225)
 *       below the session's highest number here, ConflictingOperationInProgress (117) when that number already ran
 *       (a transaction or a retryable write); a transaction of a lower number still open is aborted;</li>
 *   <li>a later statement continues it: NoSuchTransaction (251) for a number this shard has no open transaction of
 *       (never started here, aborted, or lost with a restart), TransactionCommitted (256) after its commit,
 *       InvalidOptions (72) for a {@code readConcern} on a statement other than the first;</li>
 *   <li>every statement runs in the transaction's one PostgreSQL transaction ({@link WriteUnitOfWork#inTransaction});
 *       with {@code readConcern: {level: "snapshot"}} on its first statement, it reads the state at one cluster time
 *       ({@link SnapshotReads}), the same on every participant when the router gives {@code atClusterTime}; without
 *       it, a first statement that reads waits for the transactions prepared here that wrote to its collection
 *       ({@link #awaitPreparedWritersOf}, MongoDB's prepare conflict).
 *       A statement that fails — a write error included: a transaction is all or nothing — aborts the transaction
 *       and fails the command with its error (a write conflict as WriteConflict (112)), labelled
 *       {@code TransientTransactionError} where the whole transaction may be retried;</li>
 *   <li>{@code commitTransaction} commits it (again: answered ok), {@code abortTransaction} rolls it back; a commit or
 *       prepare after a critical section began on a collection the transaction wrote to aborts it instead
 *       ({@link #unsectioned}), and the section's beginning aborts it already ({@link #abortWritersOf});</li>
 *   <li>{@code prepareTransaction} (two-phase commit) prepares it in PostgreSQL ({@code PREPARE TRANSACTION}); then only
 *       a commit with the coordinator's {@code commitTimestamp} or an abort may follow (PreparedTransactionInProgress
 *       (267) for a statement or a new transaction of the session), the reapers leave it alone, and a restart takes it
 *       up again prepared ({@link WriteUnitOfWork#recoverPrepared});</li>
 *   <li>a transaction open longer than {@code transactionLifetimeLimitSeconds} is aborted by {@link #reapExpired},
 *       and one whose session ended or expired by {@link #reapEnded}.</li>
 * </ul>
 * Only the commands MongoDB runs in a transaction are statements of one; others are OperationNotSupportedInTransaction
 * (263). Replies of statements carry {@code readOnly}: whether the transaction has written nothing here yet, which
 * the router uses to choose how to commit. Thread-safe.
 */
@Component
public class TransactionParticipant implements LogicalSessionCache.Reaper {
    private static final Logger log = LoggerFactory.getLogger(TransactionParticipant.class);

    /**
     * The commands that run as a transaction's statements (MongoDB's list, less DDL: creating a collection or an index
     * in a transaction is refused here, see {@code CollectionCatalog#create}).
     */
    static final Set<String> STATEMENTS = Set.of("find", "getMore", "killCursors", "aggregate", "distinct", "insert", "update",
            "delete", "findAndModify", "findandmodify");
    /**
     * The SQL states of a write conflict: lock not available (55P03), serialization failure (40001), deadlock (40P01),
     * and query canceled (57014), which is how PostgreSQL reports a lock timeout that fired just as the lock was
     * granted (the timeout's indicator is cleared with the grant, the cancel it raised is not); nothing else
     * cancels a transaction's statements, whose connections are this shard's own.
     */
    private static final Set<String> CONFLICT_STATES = Set.of("55P03", "40001", "40P01", "57014");
    /** The field of a prepared transaction's {@code commitTransaction}: the coordinator's commit time. */
    static final String COMMIT_TIMESTAMP = "commitTimestamp";
    /** How long a session's next transaction or retryable write waits for its prepared predecessor's decision. */
    static final Duration PREPARED_PREDECESSOR_WAIT = Duration.ofSeconds(10);
    private static final Set<String> WRITES = Set.of("insert", "update", "delete", "findAndModify", "findandmodify");

    /** Whether {@code name} is one of the write commands a transaction may run ({@code insert}, {@code update}, ...). */
    public static boolean isWrite(String name) {
        return WRITES.contains(name);
    }

    /** A collection a transaction wrote to, and how many critical sections had begun there before its first write. */
    record Written(Namespace namespace, long sectionsBefore) {}

    /** Where a session's transaction is. */
    enum State { IN_PROGRESS, PREPARED, COMMITTED, ABORTED }

    /** One session's newest transaction on this shard; read and changed only with the session checked out. */
    static final class Transaction {
        final long txnNumber;
        final Instant started;
        /** Its PostgreSQL transaction until the prepare; null for one recovered prepared after a restart. */
        final @Nullable TransactionResources resources;
        /** Volatile: {@link #awaitPreparedWritersOf} reads it without the session; {@code written} is final once PREPARED. */
        volatile State state = State.IN_PROGRESS;
        boolean wrote;
        /** Set by the prepare. */
        @Nullable PreparedTransaction prepared;
        /** Completed with its end (committed or aborted), for {@link #committedHere} waiting on a prepared one. */
        final CompletableFuture<State> ended = new CompletableFuture<>();
        /** Its snapshot read, when its first statement asked for {@code readConcern: {level: "snapshot"}}. */
        @Nullable SnapshotRead snapshot;
        /**
         * The collections it wrote to, by full name, each with the count of critical sections begun there before its
         * first write ({@link CollectionShardingRuntime#criticalSectionsEntered}).
         */
        final Map<String, Written> written = new TreeMap<>();

        Transaction(long txnNumber, Instant started, @Nullable TransactionResources resources) {
            this.txnNumber = txnNumber;
            this.started = started;
            this.resources = resources;
        }

        TransactionResources resources() {
            return Objects.requireNonNull(resources, "an unprepared transaction has its resources");
        }
    }

    private final Map<LogicalSessionId, Transaction> transactions = new ConcurrentHashMap<>();
    /** How many transactions' first statements waited for a prepared transaction (MongoDB's {@code prepareReadConflicts}). */
    private final AtomicLong prepareReadConflicts = new AtomicLong();
    /** How many transactions and retryable writes waited for their session's prepared transaction ({@link #awaitPreparedPredecessor}). */
    private final AtomicLong preparedPredecessorWaits = new AtomicLong();
    private final SessionCatalog sessions;
    private final SessionHistory history;
    private final WriteUnitOfWork units;
    private final Clock clock;
    private final Duration lifetimeLimit;
    private final CollectionShardingRuntime runtime;
    private final SnapshotReads snapshots;

    public TransactionParticipant(SessionCatalog sessions, SessionHistory history, WriteUnitOfWork units, Clock clock,
            TransactionProperties properties, LogicalSessionCache sessionCache, CollectionShardingRuntime runtime, SnapshotReads snapshots) {
        this.snapshots = snapshots;
        this.runtime = runtime;
        this.sessions = sessions;
        this.history = history;
        this.units = units;
        this.clock = clock;
        this.lifetimeLimit = properties.lifetimeLimit();
        sessionCache.addReaper(this);
        runtime.onSectionEntered(this::abortWritersOf);
        for (PreparedTransaction prepared : units.recoverPrepared()) { // before any command: they wait for their decision
            Transaction txn = new Transaction(prepared.txnNumber(), clock.instant(), null);
            txn.state = State.PREPARED;
            txn.prepared = prepared;
            txn.wrote = prepared.reservation() != null;
            transactions.put(prepared.lsid(), txn);
            log.info("transaction {} of session {} is prepared since before this start; it waits for its coordinator's decision",
                    prepared.txnNumber(), prepared.lsid());
        }
    }

    /** After each refresh of the logical session cache: {@link #reapEnded} with the sessions still stored. */
    @Override
    public void reap(LogicalSessionCache cache) {
        reapEnded(cache::stillStored);
    }

    /** Whether {@code opCtx}'s command is a statement of a multi-document transaction ({@code autocommit: false}). */
    public static boolean isStatement(OperationContext opCtx) {
        return opCtx.session().map(OperationSessionInfo::inTransaction).orElse(false);
    }

    /**
     * Runs {@code body}, the command {@code name} ({@code command}), as a statement of its session's transaction (see the
     * class comment for the rules).
     *
     * @param namespace the collection the command is about, or null: a write to it is noted for the critical-section
     *                  check of the commit ({@link #unsectioned})
     * @param body runs the command with the context it gets, in the transaction
     * @return the command's reply with {@code readOnly}
     * @throws CommandException the errors of the class comment, and the command's own error, after the transaction
     *                          was aborted
     */
    public BsonDocument runStatement(OperationContext opCtx, String name, @Nullable Namespace namespace, BsonDocument command,
            Function<OperationContext, BsonDocument> body) {
        OperationSessionInfo info = opCtx.session().orElseThrow(() -> new IllegalStateException("a transaction's statement has a session"));
        if (!STATEMENTS.contains(name)) {
            throw new CommandException(ErrorCode.OperationNotSupportedInTransaction, "Cannot run '" + name + "' in a multi-document transaction.");
        }
        long txnNumber = txnNumber(info);
        if (info.startTransaction()) {
            awaitPreparedPredecessor(opCtx, info.lsid(), txnNumber);
        }
        try (SessionCatalog.CheckedOutSession session = sessions.checkOut(info.lsid())) {
            Transaction txn = info.startTransaction() ? start(opCtx, session, txnNumber, WRITES.contains(name) ? null : namespace) : continued(session, txnNumber, command);
            if (namespace != null && WRITES.contains(name)) { // counted before the write takes the collection lock
                txn.written.putIfAbsent(namespace.full(), new Written(namespace, runtime.criticalSectionsEntered(namespace)));
            }
            BsonDocument reply;
            try {
                SnapshotRead snapshot = txn.snapshot;
                reply = units.inTransaction(snapshot == null ? opCtx : snapshot.attach(opCtx), txn.resources(), body);
            } catch (RuntimeException e) {
                abort(txn);
                throw aborting(e);
            }
            CommandException writeError = WriteErrors.firstAsCommandError(reply);
            if (writeError != null && !movesDocument(name, command, reply)) {
                abort(txn);
                throw writeError;
            }
            txn.wrote |= WRITES.contains(name);
            reply.put("readOnly", BsonBoolean.valueOf(!txn.wrote));
            return reply;
        }
    }

    /**
     * Whether {@code reply}'s write error is the WouldChangeOwningShard of the only statement of an {@code update}, with
     * the document's images: it wrote nothing (the check comes before the write), and the router moves the document as
     * a delete and an insert in the same transaction (mongo/src/mongo/db/s/README.md "Transactions"; MongoDB's
     * {@code documentShardKeyUpdateUtil}), so the transaction stays open.
     */
    private static boolean movesDocument(String name, BsonDocument command, BsonDocument reply) {
        if (!name.equals("update") || !command.isArray("updates") || command.getArray("updates").size() != 1) {
            return false;
        }
        BsonDocument first = reply.getArray("writeErrors").get(0).asDocument();
        return first.getNumber("code").intValue() == ErrorCode.WouldChangeOwningShard.code()
                && first.isDocument(OwnershipFilter.PRE_IMAGE) && first.isDocument(OwnershipFilter.POST_IMAGE);
    }

    /**
     * {@code commitTransaction} for {@code opCtx}'s session and transaction number: commits the open transaction;
     * answers ok again for one that committed (also after a restart, from the {@code transactions} table).
     *
     * @throws CommandException NoSuchTransaction (251) for an aborted or unknown transaction, TransactionTooOld (225)
     *                          for a number below the session's, WriteConflict (112) when PostgreSQL refuses the commit
     */
    public void commit(OperationContext opCtx, BsonDocument command) {
        OperationSessionInfo info = opCtx.session().orElseThrow(() -> missing("commitTransaction"));
        boolean timestamped = command.containsKey(COMMIT_TIMESTAMP);
        long txnNumber = txnNumber(info);
        try (SessionCatalog.CheckedOutSession session = sessions.checkOut(info.lsid())) {
            Transaction txn = transactions.get(info.lsid());
            if (txn == null || txn.txnNumber != txnNumber) {
                Optional<SessionHistory.TransactionRecord> record = history.find(info.lsid());
                if (record.isPresent() && record.get().txnNum() == txnNumber && record.get().committedTransaction()) {
                    return; // committed before this shard restarted
                }
                throw unknown(session, txnNumber, txn);
            }
            switch (txn.state) {
                case COMMITTED -> { }
                case ABORTED -> throw aborted(txnNumber);
                case PREPARED -> {
                    if (!timestamped) {
                        throw new CommandException(ErrorCode.InvalidOptions, "commitTransaction for a prepared transaction must"
                                + " provide a commitTimestamp");
                    }
                    units.commitPrepared(Objects.requireNonNull(txn.prepared, "a prepared transaction"), commitTimestamp(command),
                            txn.resources);
                    txn.state = State.COMMITTED;
                    txn.ended.complete(State.COMMITTED);
                }
                case IN_PROGRESS -> {
                    if (timestamped) {
                        throw new CommandException(ErrorCode.InvalidOptions, "commitTransaction with a commitTimestamp is for a"
                                + " prepared transaction; transaction " + txnNumber + " is not prepared");
                    }
                    try {
                        unsectioned(txn, () -> units.commitTransaction(txn.resources(), info.lsid(), txnNumber));
                        txn.state = State.COMMITTED;
                        txn.ended.complete(State.COMMITTED);
                    } catch (RuntimeException e) {
                        abort(txn); // rolled back already when the commit itself failed
                        throw aborting(e);
                    }
                }
            }
        }
    }

    /**
     * {@code abortTransaction} for {@code opCtx}'s session and transaction number: rolls the open transaction back.
     *
     * @throws CommandException NoSuchTransaction (251) for an unknown or already aborted transaction,
     *                          TransactionCommitted (256) for a committed one, TransactionTooOld (225)
     */
    public void abort(OperationContext opCtx) {
        OperationSessionInfo info = opCtx.session().orElseThrow(() -> missing("abortTransaction"));
        long txnNumber = txnNumber(info);
        try (SessionCatalog.CheckedOutSession session = sessions.checkOut(info.lsid())) {
            Transaction txn = transactions.get(info.lsid());
            if (txn == null || txn.txnNumber != txnNumber) {
                throw unknown(session, txnNumber, txn);
            }
            switch (txn.state) {
                case COMMITTED -> throw committed(txnNumber);
                case ABORTED -> throw aborted(txnNumber);
                case PREPARED, IN_PROGRESS -> abort(txn);
            }
        }
    }

    /**
     * {@code prepareTransaction} (two-phase commit's first phase, sent by the coordinator; mongo/src/mongo/db/s/README.md
     * "Two-phase Commit Protocol"): prepares the open transaction ({@link WriteUnitOfWork#prepareTransaction}), after
     * which only {@code commitTransaction} with a {@code commitTimestamp} or {@code abortTransaction} may follow, and
     * neither a restart nor the lifetime limit ends it. A prepared transaction answers again with its prepare time.
     *
     * @return the prepare time (a Timestamp's 64-bit value), the participant's vote to commit
     * @throws CommandException NoSuchTransaction (251) for an aborted or unknown transaction, TransactionCommitted (256),
     *                          TransactionTooOld (225)
     */
    public long prepare(OperationContext opCtx) {
        OperationSessionInfo info = opCtx.session().orElseThrow(() -> missing("prepareTransaction"));
        long txnNumber = txnNumber(info);
        try (SessionCatalog.CheckedOutSession session = sessions.checkOut(info.lsid())) {
            Transaction txn = transactions.get(info.lsid());
            if (txn == null || txn.txnNumber != txnNumber) {
                throw unknown(session, txnNumber, txn);
            }
            return switch (txn.state) {
                case COMMITTED -> throw committed(txnNumber);
                case ABORTED -> throw aborted(txnNumber);
                case PREPARED -> Objects.requireNonNull(txn.prepared, "a prepared transaction").prepareTimestamp();
                case IN_PROGRESS -> {
                    try {
                        txn.prepared = unsectioned(txn, () -> units.prepareTransaction(txn.resources(), info.lsid(), txnNumber));
                    } catch (RuntimeException e) {
                        abort(txn); // rolled back already when the prepare itself failed
                        throw aborting(e);
                    }
                    txn.state = State.PREPARED;
                    yield txn.prepared.prepareTimestamp();
                }
            };
        }
    }

    /**
     * The outcome of {@code opCtx}'s transaction on this shard, asked by a coordinator that has no record of it: a
     * router joining with the {@code recoveryToken} naming this shard, its first writer (mongo/src/mongo/db/s/README.md
     * "Committing a Transaction": {@code coordinateCommitTransaction} falls back to the local participant). A
     * transaction still in progress here is aborted first, so that it can never commit after this answer; a prepared
     * one is waited for (its coordinator delivers the decision) up to {@code waitForDecision}.
     *
     * @return true when it committed here (also before a restart, from the {@code transactions} table); false when it
     *         aborted, or this shard never had it or has a newer one
     * @throws CommandException ExceededTimeLimit (262) when it stays prepared longer than {@code waitForDecision}
     */
    public boolean committedHere(OperationContext opCtx, Duration waitForDecision) {
        OperationSessionInfo info = opCtx.session().orElseThrow(() -> missing("coordinateCommitTransaction"));
        long txnNumber = txnNumber(info);
        long deadline = System.nanoTime() + waitForDecision.toNanos();
        while (true) {
            CompletableFuture<State> decision;
            try (SessionCatalog.CheckedOutSession session = sessions.checkOut(info.lsid())) {
                Transaction txn = transactions.get(info.lsid());
                if (txn == null || txn.txnNumber != txnNumber) {
                    Optional<SessionHistory.TransactionRecord> record = history.find(info.lsid());
                    return record.isPresent() && record.get().txnNum() == txnNumber && record.get().committedTransaction();
                }
                if (txn.state == State.IN_PROGRESS) {
                    abort(txn);
                    log.info("aborted transaction {} of session {}: a router recovering its outcome found it not yet committed",
                            txnNumber, info.lsid());
                }
                if (txn.state != State.PREPARED) {
                    return txn.state == State.COMMITTED;
                }
                decision = txn.ended;
            }
            // outside the session: the decision's commitTransaction, from another shard's coordinator, checks it out
            if (!awaitEnd(decision, Math.max(0, deadline - System.nanoTime()), "the decision of transaction " + txnNumber)) {
                throw new CommandException(ErrorCode.ExceededTimeLimit, "transaction " + txnNumber + " of session " + info.lsid()
                        + " is still prepared here, waiting for its coordinator's decision; retry the commit");
            }
        }
    }

    /**
     * Before transaction or retryable write {@code txnNumber} of session {@code lsid} checks the session out: waits for a
     * lower transaction of the session that is prepared here to be decided, up to {@code opCtx}'s deadline or
     * {@link #PREPARED_PREDECESSOR_WAIT}. Its coordinator may have answered its commit already and be delivering the
     * decision ({@link TransactionCoordinator}), and a driver hands the same pooled session to its next transaction at
     * once. Looked at and waited for outside the session, which the decision's {@code commitTransaction} checks out;
     * still prepared afterwards, the command fails as before with PreparedTransactionInProgress (267).
     *
     * @throws CommandException Interrupted (11601) when the thread is interrupted
     */
    public void awaitPreparedPredecessor(OperationContext opCtx, LogicalSessionId lsid, long txnNumber) {
        // read without the session, as awaitPreparedWritersOf does (state is volatile, ended final): every retryable
        // write passes here, and a stale look only leaves the command to the check under the session, as before
        Transaction previous = transactions.get(lsid);
        if (previous == null || previous.state != State.PREPARED || previous.txnNumber >= txnNumber) {
            return;
        }
        preparedPredecessorWaits.incrementAndGet();
        long left = opCtx.deadline().remainingNanos();
        long bound = PREPARED_PREDECESSOR_WAIT.toNanos();
        awaitEnd(previous.ended, left == Deadline.NONE ? bound : Math.min(left, bound), "the decision of the session's prepared transaction");
    }

    /**
     * Before a retryable write of {@code session} with {@code txnNumber} (which has the session checked out): a lower
     * transaction still open is aborted, as a higher transaction number supersedes it.
     *
     * @throws CommandException ConflictingOperationInProgress (117) when {@code txnNumber} is this shard's transaction's
     */
    public void beforeRetryableWrite(SessionCatalog.CheckedOutSession session, long txnNumber) {
        Transaction txn = transactions.get(session.lsid());
        if (txn == null) {
            return;
        }
        if (txn.txnNumber == txnNumber) {
            throw new CommandException(ErrorCode.ConflictingOperationInProgress, "Cannot run a retryable write with transaction number "
                    + txnNumber + " on session " + session.lsid() + ": that number is a multi-document transaction's");
        }
        if (txn.txnNumber < txnNumber && txn.state == State.PREPARED) {
            throw prepared(txn.txnNumber);
        }
        if (txn.txnNumber < txnNumber) {
            abort(txn);
            transactions.remove(session.lsid(), txn);
        }
    }

    /**
     * Aborts every transaction open longer than {@code transactionLifetimeLimitSeconds} whose session no command has
     * checked out now (a statement running is left to finish; the next pass takes it). Scheduled every
     * {@code shardstore.shard.transactions.reap-interval}.
     */
    @Scheduled(fixedDelayString = "${shardstore.shard.transactions.reap-interval:1s}")
    void reapExpired() {
        reapExpired(clock.instant());
    }

    /**
     * {@link #reapExpired()} as of {@code now}: aborts the transactions started before {@code now} less
     * {@code transactionLifetimeLimitSeconds}.
     *
     * @return how many were aborted
     */
    public int reapExpired(Instant now) {
        Instant cutoff = now.minus(lifetimeLimit);
        return reap(txn -> txn.started.isBefore(cutoff), "it exceeded transactionLifetimeLimitSeconds (" + lifetimeLimit.toSeconds() + " s)")
                + reap(this::sectioned, "a critical section began on a collection it wrote to");
    }

    /**
     * Aborts the unprepared transactions that wrote to {@code namespace}, as MongoDB does when a critical section (a
     * migration's, a DDL operation's) begins on a collection (mongo/src/mongo/db/s/README.md "Transactions"): none may
     * commit any more ({@link #unsectioned}), and an open one would keep its row locks, which the section's operation
     * may wait for (the donor's range deletion). A transaction whose session a statement has checked out is left to
     * the next {@link #reapExpired} pass; its next statement or its commit fails anyway. Prepared ones are left alone:
     * their coordinator decides them.
     */
    void abortWritersOf(Namespace namespace) {
        reap(txn -> txn.written.containsKey(namespace.full()), "a critical section began on " + namespace.full());
    }

    /**
     * Aborts the open transactions of sessions that {@code stillStored} no longer names (ended or expired), as MongoDB
     * aborts a session's transaction when the session is reaped.
     *
     * @return how many were aborted
     */
    public int reapEnded(Function<Collection<LogicalSessionId>, Set<LogicalSessionId>> stillStored) {
        List<LogicalSessionId> open = transactions.entrySet().stream().filter(e -> e.getValue().state == State.IN_PROGRESS)
                .map(Map.Entry::getKey).toList();
        if (open.isEmpty()) {
            return 0;
        }
        Set<LogicalSessionId> alive = stillStored.apply(open);
        return reap(txn -> true, alive, "its session ended or expired");
    }

    /**
     * MongoDB's prepare conflict for a transaction without a snapshot read concern: before its first statement, a read,
     * takes the transaction's PostgreSQL snapshot, waits for the outcome of every transaction prepared here that wrote to
     * {@code namespace} — and of every one recovered prepared after a restart, whose collections this process does not
     * know — so that the snapshot holds a prepared transaction whole once it commits, as MongoDB's read blocks on a
     * document a prepared transaction holds (MongoDB's jstests/replsets/prepare_conflict_read_concern_behavior.js: a
     * transaction's reads block, whatever its read concern; reads outside transactions without {@code afterClusterTime}
     * do not, and neither does this shard's). PostgreSQL readers never wait on a prepared transaction's rows: they see
     * the rows as before it, which a snapshot taken now would keep after the commit. Snapshot reads and
     * {@code afterClusterTime} reads wait already: a prepared transaction holds its oplog time reservation, so the
     * all-durable point ({@link dev.shardstore.shard.storage.OplogTimeReservations#awaitDurable}) stays before its
     * prepare time until the decision.
     *
     * <p>Coarser than MongoDB's per-document conflict: any prepared write to the collection makes the first statement
     * wait. A later statement on another collection does not wait: the snapshot is taken, and it reads what it held.
     *
     * @throws CommandException MaxTimeMSExpired (50) when {@code opCtx}'s deadline passes first
     */
    void awaitPreparedWritersOf(Namespace namespace, OperationContext opCtx) {
        List<CompletableFuture<State>> pending = transactions.values().stream()
                .filter(t -> t.state == State.PREPARED && (t.resources == null || t.written.containsKey(namespace.full())))
                .map(t -> t.ended).toList();
        if (pending.isEmpty()) {
            return;
        }
        prepareReadConflicts.incrementAndGet();
        CompletableFuture<Void> all = CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new));
        if (!awaitEnd(all, opCtx.deadline().remainingNanos(), "a prepared transaction on " + namespace.full())) {
            throw new CommandException(ErrorCode.MaxTimeMSExpired, "operation exceeded time limit (maxTimeMS) waiting for the outcome"
                    + " of a prepared transaction that wrote to " + namespace.full());
        }
    }

    /**
     * Waits for {@code end}, a transaction's {@link Transaction#ended} (or several combined), for up to {@code nanos}
     * ({@link Deadline#NONE}: without a limit).
     *
     * @param what what is awaited, for the interruption's message
     * @return false when the time ran out first
     * @throws CommandException Interrupted (11601) when the thread is interrupted
     */
    private static boolean awaitEnd(CompletableFuture<?> end, long nanos, String what) {
        try {
            if (nanos == Deadline.NONE) {
                end.get();
            } else {
                end.get(nanos, TimeUnit.NANOSECONDS);
            }
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CommandException(ErrorCode.Interrupted, "interrupted while waiting for " + what, e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("a transaction's end is never completed exceptionally", e);
        }
    }

    /** How many transactions' first statements have waited for a prepared transaction ({@link #awaitPreparedWritersOf}). */
    public long prepareReadConflicts() {
        return prepareReadConflicts.get();
    }

    /** How many transactions and retryable writes waited for their session's prepared transaction's decision. */
    public long preparedPredecessorWaits() {
        return preparedPredecessorWaits.get();
    }

    /** How many transactions are open on this shard. */
    public int open() {
        return (int) transactions.values().stream().filter(t -> t.state == State.IN_PROGRESS).count();
    }

    /**
     * Aborts the open transactions of {@code lsids}, every open one when empty: {@code killSessions} (MongoDB's router
     * sends it to every shard). A session a command has checked out is left to its statement, whose commit then fails.
     *
     * @return how many were aborted
     */
    public int abortSessions(Collection<LogicalSessionId> lsids) {
        Set<LogicalSessionId> killed = Set.copyOf(lsids);
        return reap((lsid, txn) -> killed.isEmpty() || killed.contains(lsid), "its session was killed");
    }

    private int reap(java.util.function.Predicate<Transaction> expired, String why) {
        return reap((lsid, txn) -> expired.test(txn), why);
    }

    private int reap(java.util.function.Predicate<Transaction> expired, Set<LogicalSessionId> spared, String why) {
        return reap((lsid, txn) -> !spared.contains(lsid) && expired.test(txn), why);
    }

    private int reap(java.util.function.BiPredicate<LogicalSessionId, Transaction> doomed, String why) {
        int aborted = 0;
        for (Map.Entry<LogicalSessionId, Transaction> e : transactions.entrySet()) {
            if (e.getValue().state != State.IN_PROGRESS || !doomed.test(e.getKey(), e.getValue())) {
                continue;
            }
            SessionCatalog.CheckedOutSession session;
            try {
                session = sessions.checkOut(e.getKey(), Duration.ZERO);
            } catch (CommandException busy) { // a command has the session: the next pass takes it
                continue;
            }
            try (SessionCatalog.CheckedOutSession checkedOut = session) {
                Transaction txn = transactions.get(checkedOut.lsid());
                if (txn != null && txn.state == State.IN_PROGRESS && doomed.test(checkedOut.lsid(), txn)) {
                    abort(txn);
                    aborted++;
                    log.info("aborted transaction {} of session {}: {}", txn.txnNumber, checkedOut.lsid(), why);
                }
            }
        }
        return aborted;
    }

    /**
     * Starts transaction {@code txnNumber} of {@code session}, checking its number (see the class comment).
     *
     * @param reads the collection its first statement reads, when that statement is a read ({@code find},
     *              {@code aggregate}, {@code distinct}), which waits for prepared writers of it
     *              ({@link #awaitPreparedWritersOf}); null for a write, which waits on a prepared transaction's row
     *              locks instead and fails with WriteConflict after its commit
     */
    private Transaction start(OperationContext opCtx, SessionCatalog.CheckedOutSession session, long txnNumber, @Nullable Namespace reads) {
        Transaction previous = transactions.get(session.lsid());
        Optional<SessionHistory.TransactionRecord> record = history.find(session.lsid());
        long highest = Math.max(session.activeTxnNumber(), record.map(SessionHistory.TransactionRecord::txnNum).orElse(-1L));
        if (previous != null) {
            highest = Math.max(highest, previous.txnNumber);
        }
        if (txnNumber < highest) {
            throw new CommandException(ErrorCode.TransactionTooOld, "Cannot start transaction " + txnNumber + " on session "
                    + session.lsid() + " because a newer transaction " + highest + " has already started.");
        }
        if (txnNumber == highest && (previous != null && previous.txnNumber == txnNumber
                || record.isPresent() && record.get().txnNum() == txnNumber)) {
            throw new CommandException(ErrorCode.ConflictingOperationInProgress, "Cannot start transaction " + txnNumber + " on session "
                    + session.lsid() + ": a transaction or retryable write with that number already ran");
        }
        if (previous != null && previous.state == State.PREPARED) {
            throw prepared(previous.txnNumber);
        }
        if (previous != null && previous.state == State.IN_PROGRESS) {
            abort(previous); // superseded by the higher number
        }
        // chosen and awaited before the transaction's PostgreSQL snapshot exists: its first statement takes it
        SnapshotRead snapshot = opCtx.readConcern().isSnapshot() ? snapshots.open(opCtx.readConcern(), true) : null;
        if (snapshot == null && reads != null) {
            awaitPreparedWritersOf(reads, opCtx);
        }
        Transaction txn = new Transaction(txnNumber, clock.instant(), units.beginTransaction());
        txn.snapshot = snapshot;
        transactions.put(session.lsid(), txn);
        session.begin(txnNumber);
        return txn;
    }

    private Transaction continued(SessionCatalog.CheckedOutSession session, long txnNumber, BsonDocument command) {
        Transaction txn = transactions.get(session.lsid());
        if (txn == null || txn.txnNumber != txnNumber) {
            throw unknown(session, txnNumber, txn);
        }
        switch (txn.state) {
            case COMMITTED -> throw committed(txnNumber);
            case ABORTED -> throw aborted(txnNumber);
            case PREPARED -> throw prepared(txnNumber);
            case IN_PROGRESS -> { }
        }
        if (command.containsKey("readConcern")) {
            throw new CommandException(ErrorCode.InvalidOptions, "Only the first command in a transaction may specify a readConcern");
        }
        if (sectioned(txn)) {
            abort(txn);
            throw sectionBegan(txn, "a collection it wrote to");
        }
        return txn;
    }

    /**
     * Runs {@code action} (the commit or the prepare of {@code txn}) holding, in name order, the shared lock of every
     * collection the transaction wrote to, once no critical section began on any of them since its first write there
     * (mongo/src/mongo/db/s/README.md "Transactions": a critical section aborts the collection's unprepared
     * transactions). The locks keep a section from beginning until the commit is over, so a migration's catch-up sees
     * its entries; a transaction one did begin under must not commit, since its writes may be in a range this shard no
     * longer owns.
     *
     * @throws CommandException NoSuchTransaction (251), labelled TransientTransactionError, when a section began
     */
    private <T> T unsectioned(Transaction txn, Supplier<T> action) {
        return holdingShared(new ArrayList<>(txn.written.values()), 0, txn, action);
    }

    private <T> T holdingShared(List<Written> written, int next, Transaction txn, Supplier<T> action) {
        if (next == written.size()) {
            return action.get();
        }
        Written w = written.get(next);
        return runtime.shared(w.namespace(), () -> {
            if (sectioned(w)) {
                throw sectionBegan(txn, w.namespace().full());
            }
            return holdingShared(written, next + 1, txn, action);
        });
    }

    /** Whether a critical section is held or began on a collection {@code txn} wrote to, since its first write there. */
    private boolean sectioned(Transaction txn) {
        return txn.written.values().stream().anyMatch(this::sectioned);
    }

    private boolean sectioned(Written w) {
        return runtime.criticalSection(w.namespace()).isPresent() || runtime.criticalSectionsEntered(w.namespace()) != w.sectionsBefore();
    }

    private static CommandException sectionBegan(Transaction txn, String where) {
        return new CommandException(ErrorCode.NoSuchTransaction, "Transaction " + txn.txnNumber + " was aborted: a migration or"
                + " DDL operation on " + where + " began after the transaction wrote to it", ErrorLabel.TransientTransactionError.extraInfo());
    }

    private void abort(Transaction txn) {
        if (txn.state == State.PREPARED) {
            units.abortPrepared(Objects.requireNonNull(txn.prepared, "a prepared transaction"));
        } else if (txn.state == State.IN_PROGRESS) {
            units.abortTransaction(txn.resources());
        }
        txn.state = State.ABORTED;
        txn.ended.complete(State.ABORTED);
    }

    /** The {@code commitTimestamp} of a prepared transaction's {@code commitTransaction}, as a Timestamp's 64-bit value. */
    private static long commitTimestamp(BsonDocument command) {
        BsonValue value = command.get(COMMIT_TIMESTAMP);
        if (value == null || !value.isTimestamp()) {
            throw new CommandException(ErrorCode.TypeMismatch, "'commitTransaction.commitTimestamp' must be a Timestamp, not " + value);
        }
        return value.asTimestamp().getValue();
    }

    private static CommandException prepared(long txnNumber) {
        return new CommandException(ErrorCode.PreparedTransactionInProgress, "Transaction " + txnNumber + " is prepared: only its"
                + " commitTransaction (with a commitTimestamp) or abortTransaction may follow");
    }

    /** The error a failed statement or commit answers with, once its transaction was aborted. */
    private static CommandException aborting(RuntimeException e) {
        if (e instanceof ConcurrencyFailureException || conflictState(e)) { // a row another transaction holds or changed after this one's snapshot
            return new CommandException(ErrorCode.WriteConflict, "Write conflict during a multi-document transaction: another"
                    + " transaction changed or holds a document this one wrote; the transaction was aborted",
                    ErrorLabel.TransientTransactionError.extraInfo(), e);
        }
        if (e instanceof CommandException c) {
            return ErrorLabel.asTransactionStatementError(c);
        }
        log.warn("a transaction's statement failed unexpectedly; the transaction was aborted", e);
        return new CommandException(ErrorCode.InternalError, "the transaction's statement failed and the transaction was aborted: " + e, new BsonDocument(), e);
    }

    /**
     * Whether {@code e} was caused by PostgreSQL's refusal to wait for a lock (the 1 ms {@code lock_timeout} of a
     * transaction's connection) or to serialize with a concurrent commit ({@link #CONFLICT_STATES}): translated or
     * not, each is a write conflict.
     */
    private static boolean conflictState(Throwable e) {
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof SQLException sql && CONFLICT_STATES.contains(sql.getSQLState())) {
                return true;
            }
        }
        return false;
    }

    private CommandException unknown(SessionCatalog.CheckedOutSession session, long txnNumber, @Nullable Transaction txn) {
        long active = txn == null ? session.activeTxnNumber() : txn.txnNumber;
        if (txnNumber < active) {
            return new CommandException(ErrorCode.TransactionTooOld, "Cannot continue transaction " + txnNumber + " on session "
                    + session.lsid() + " because a newer transaction " + active + " has already started.");
        }
        return new CommandException(ErrorCode.NoSuchTransaction, "Given transaction number " + txnNumber
                + " does not match any in-progress transactions. The active transaction number is " + active,
                ErrorLabel.TransientTransactionError.extraInfo());
    }

    private static CommandException aborted(long txnNumber) {
        return new CommandException(ErrorCode.NoSuchTransaction, "Transaction " + txnNumber + " has been aborted.",
                ErrorLabel.TransientTransactionError.extraInfo());
    }

    private static CommandException committed(long txnNumber) {
        return new CommandException(ErrorCode.TransactionCommitted, "Transaction " + txnNumber + " has been committed.");
    }

    private static CommandException missing(String command) {
        return new CommandException(ErrorCode.InvalidOptions, "'" + command + "' needs lsid, txnNumber and autocommit: false");
    }

    private static long txnNumber(OperationSessionInfo info) {
        if (!info.inTransaction()) {
            throw new CommandException(ErrorCode.InvalidOptions, "a transaction's command needs lsid, txnNumber and autocommit: false");
        }
        return Objects.requireNonNull(info.txnNumber(), "a transaction's statement has a txnNumber");
    }
}
