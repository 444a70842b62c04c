package dev.shardstore.shard.storage;

import dev.shardstore.support.failpoint.FailPoints;
import dev.shardstore.support.operation.OperationContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.sql.SQLException;
import javax.sql.DataSource;
import dev.shardstore.contracts.session.LogicalSessionId;
import org.springframework.jdbc.core.simple.JdbcClient;
import java.util.function.Function;
import java.util.function.Supplier;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionStatus;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The one owner of a write's transaction boundary on this shard (MongoDB's {@code WriteUnitOfWork}; with
 * {@link Oplog} and {@link DocumentStore}, its {@code OpObserver}; docs/architecture.md "The life of a routed write"): every insert, update, delete,
 * findAndModify, create, drop and index build opens its PostgreSQL transaction here, its oplog entries take their
 * cluster times from this unit ({@link #reserve}), and the unit releases those reservations once the transaction
 * is over. Oplog entries cannot be appended anywhere else: {@link #reserve} refuses to run outside a unit.
 *
 * <p>Why the reservations are released here and nowhere else: a reservation holds back the oplog's all-durable
 * point ({@link OplogTimeReservations#allDurable()}) until it is released, so it must be released exactly when its
 * transaction has committed or rolled back, never before (a reader could skip an entry that commits later) and
 * always (a leaked one would freeze the point). {@link #write} releases them in a {@code finally} around the
 * transaction template, which returns only after the commit or rollback is over and whatever the body threw; and a
 * unit never joins a transaction it did not open (it refuses to start inside a foreign one), so "the template
 * returned" is "the transaction is over".
 *
 * <p>The unit travels in the operation's context ({@link OperationContext}, decorated by {@link #write}): the body
 * gets the context with its unit, and passes it to whatever writes for it. A {@code write} given a context that
 * already has a unit joins that unit (one transaction, released when the outer one ends); {@link #savepoint} runs a
 * part that can fail alone. The fail point {@link #BEFORE_COMMIT} is
 * passed after the body and before the commit, for tests that hold a transaction open with its times reserved
 * (pause) or fail it there (error).
 *
 * <p>A unit also collects the client inserts and updates of sharded documents its body made ({@link #recordWritten})
 * and, once its transaction has committed, hands them to the {@link CommittedWritesObserver}s (the auto-splitter's
 * chunk write tracker), so that only committed bytes are counted; a rolled-back savepoint drops its part.
 */
@Component
public class WriteUnitOfWork {
    /**
     * Fail point passed just before a unit commits (not before a rollback), with its oplog times reserved and its
     * entries written.
     */
    public static final String BEFORE_COMMIT = "writeUnitOfWork.beforeCommit";
    /** Fail point passed just before a multi-document transaction's {@code PREPARE TRANSACTION}, its oplog times reserved. */
    public static final String BEFORE_PREPARE = "writeUnitOfWork.beforePrepare";

    /** The unit an operation's writes join. */
    private static final OperationContext.Decoration<Unit> UNIT = new OperationContext.Decoration<>("writeUnitOfWork", Unit.class);
    /** The retryable statement an operation's units record for ({@link #asStatement}). */
    private static final OperationContext.Decoration<RetryableStatement> STATEMENT =
            new OperationContext.Decoration<>("retryableStatement", RetryableStatement.class);
    private static final Logger log = LoggerFactory.getLogger(WriteUnitOfWork.class);
    /** PostgreSQL's SQLSTATE for a prepared transaction it does not hold ({@code undefined_object}). */
    private static final String UNDEFINED_OBJECT = "42704";

    private final List<CommittedWritesObserver> observers = new CopyOnWriteArrayList<>();

    private final TransactionTemplate tx;
    private final TransactionTemplate nested;
    private final OplogTimeReservations clock;
    private final FailPoints failPoints;
    private final SessionHistory history;
    private final TransactionConnections connections;
    private final DataSource dataSource;
    private final JdbcClient jdbc;
    /** The next provisional oplog time of a multi-document transaction ({@link OplogTimeReservations#provisional}). */
    private final AtomicLong provisional = new AtomicLong(Long.MIN_VALUE + 1);
    /** This shard's database name, read once ({@link #database}). */
    private volatile @Nullable String database;

    private final VersionStore versions;

    public WriteUnitOfWork(PlatformTransactionManager transactions, OplogTimeReservations clock, FailPoints failPoints, SessionHistory history,
            TransactionConnections connections, DataSource dataSource, JdbcClient jdbc, VersionStore versions) {
        this.versions = versions;
        this.history = history;
        this.connections = connections;
        this.dataSource = dataSource;
        this.jdbc = jdbc;
        this.tx = new TransactionTemplate(transactions);
        this.nested = new TransactionTemplate(transactions);
        this.nested.setPropagationBehavior(TransactionDefinition.PROPAGATION_NESTED);
        this.clock = clock;
        this.failPoints = failPoints;
    }

    /**
     * Runs {@code body} in a transaction of its own (or in {@code opCtx}'s unit when it has one) and commits it,
     * unless the body threw or asked for a rollback ({@link #setRollbackOnly}). Oplog entries written by the body are
     * client writes ({@code fromMigrate: false}).
     *
     * @param body gets {@code opCtx} with the unit, to pass to everything that writes for it
     * @return what {@code body} returned
     * @throws IllegalStateException when called inside a transaction that is not a unit's
     */
    public <T extends @Nullable Object> T write(OperationContext opCtx, Function<OperationContext, T> body) {
        return run(opCtx, false, body);
    }

    /**
     * {@link #write}, with every oplog entry of the unit marked {@code fromMigrate: true}: the writes of chunk
     * migration on the recipient and of range deletion, which readers of the oplog that follow client changes
     * skip (mongo/src/mongo/db/s/README.md "Migrations").
     */
    public <T extends @Nullable Object> T writeFromMigrate(OperationContext opCtx, Function<OperationContext, T> body) {
        return run(opCtx, true, body);
    }

    /**
     * Runs {@code body} under a savepoint of {@code opCtx}'s unit: when it throws, only its own changes are undone
     * (the exception propagates), and the unit goes on. Used for a multi-update, where a duplicate key stops the
     * statement at one document but keeps the earlier ones.
     *
     * @throws IllegalStateException outside a unit
     */
    public <T extends @Nullable Object> T savepoint(OperationContext opCtx, Supplier<T> body) {
        Unit unit = current(opCtx);
        int mark = unit.written.size();
        Set<OplogTimeReservations.Reservation> statementWritesBefore = Set.copyOf(unit.statementWrites.keySet());
        try {
            return nested.execute(status -> body.get());
        } catch (RuntimeException e) {
            unit.written.subList(mark, unit.written.size()).clear(); // undone with the savepoint
            unit.statementWrites.keySet().retainAll(statementWritesBefore); // each change has its own reservation
            throw e;
        }
    }

    /**
     * Rolls {@code opCtx}'s unit back instead of committing it when its body returns.
     *
     * @throws IllegalStateException outside a unit
     */
    public void setRollbackOnly(OperationContext opCtx) {
        current(opCtx).status().setRollbackOnly();
    }

    /** Registers {@code observer} to hear of every later unit's committed client writes (see the class comment). */
    public void observeCommittedWrites(CommittedWritesObserver observer) {
        observers.add(observer);
    }

    /**
     * Notes a client insert or update of a sharded collection's document in {@code opCtx}'s unit, reported to the
     * observers if the unit commits; ignored in a {@code fromMigrate} unit or when nobody observes.
     *
     * @throws IllegalStateException outside a unit
     */
    void recordWritten(OperationContext opCtx, CommittedWritesObserver.WrittenDocument written) {
        Unit unit = current(opCtx);
        if (!unit.fromMigrate && !observers.isEmpty()) {
            unit.written.add(written);
        }
    }

    /**
     * Runs {@code body}, one statement of a retryable write (mongo/src/mongo/db/s/README.md "Retryable writes"): every unit it commits with
     * the context it is given marks its insert, update and delete oplog entries with {@code statement}'s session fields
     * and makes the newest one the session's last write in the {@code transactions} table, in the same transaction
     * ({@link SessionHistory#record}); a unit that rolls back records nothing.
     *
     * @param body gets {@code opCtx} with the statement, to open its units with
     * @throws IllegalStateException inside a unit or another statement: the statement must own its units
     */
    public <T extends @Nullable Object> T asStatement(OperationContext opCtx, RetryableStatement statement, Function<OperationContext, T> body) {
        if (opCtx.get(UNIT) != null || opCtx.get(STATEMENT) != null) {
            throw new IllegalStateException("a retryable statement must start outside any unit of work");
        }
        return body.apply(opCtx.with(STATEMENT, statement));
    }

    /**
     * Keeps findAndModify's document before its change with the running retryable statement's oplog entry, so a retry
     * can answer with it (MongoDB's retry image); nothing outside a retryable statement.
     */
    public void notePreImage(OperationContext opCtx, BsonDocument document) {
        RetryableStatement statement = opCtx.get(STATEMENT);
        if (statement != null) {
            statement.preImage(document);
        }
    }

    /**
     * Reserves {@code count} cluster times for oplog entries of {@code opCtx}'s unit; they are released when the
     * unit's transaction is over.
     *
     * @throws IllegalStateException outside a unit
     */
    OplogTimeReservations.Reservation reserve(OperationContext opCtx, int count) {
        Unit unit = current(opCtx);
        if (unit.transaction) { // renumbered to real times at the commit, under one reservation
            return clock.provisional(provisional.getAndAdd(count), count);
        }
        OplogTimeReservations.Reservation reservation = clock.reserve(count);
        unit.reservations.add(reservation);
        return reservation;
    }

    /**
     * The retryable statement {@code opCtx}'s unit writes for, whose session fields its writes put on their oplog
     * entries ({@link DocumentStore}); null when it runs for none, or is a {@code fromMigrate} unit.
     *
     * @throws IllegalStateException outside a unit
     */
    @Nullable RetryableStatement statement(OperationContext opCtx) {
        Unit unit = current(opCtx);
        return unit.fromMigrate ? null : opCtx.get(STATEMENT);
    }

    /**
     * The previous write of {@code statement}'s session and transaction number that its next entry chains to: the
     * entry this unit wrote for it last, else the statement's {@link RetryableStatement#prevOpTime()}.
     */
    long previousWrite(OperationContext opCtx, RetryableStatement statement) {
        OptionalLong newest = current(opCtx).statementWrites.values().stream().mapToLong(StatementWrite::newestStored).max();
        return newest.isPresent() ? Oplog.tsOf(newest.getAsLong()) : statement.prevOpTime();
    }

    /**
     * Notes that the change that reserved {@code reservation} wrote {@code count} entries carrying {@link #statement}'s
     * session fields, the newest at stored time {@code newestStored}; {@link SessionHistory#record} points the session at
     * it before the unit commits.
     */
    void wroteForStatement(OperationContext opCtx, OplogTimeReservations.Reservation reservation, int count, long newestStored) {
        current(opCtx).statementWrites.put(reservation, new StatementWrite(count, newestStored)); // one change per reservation
    }

    /**
     * The entries one change wrote for the unit's statement.
     *
     * @param count        how many
     * @param newestStored the newest one's stored time ({@link Oplog#storedTs})
     */
    record StatementWrite(int count, long newestStored) {}

    /** Whether the oplog entries of {@code opCtx}'s unit are {@code fromMigrate}. */
    boolean fromMigrate(OperationContext opCtx) {
        return current(opCtx).fromMigrate;
    }

    private static Unit current(OperationContext opCtx) {
        Unit unit = opCtx.get(UNIT);
        if (unit == null) {
            throw new IllegalStateException("oplog entries are written only inside a WriteUnitOfWork");
        }
        return unit;
    }

    private <T extends @Nullable Object> T run(OperationContext opCtx, boolean fromMigrate, Function<OperationContext, T> body) {
        Unit outer = opCtx.get(UNIT);
        if (outer != null) {
            if (outer.fromMigrate != fromMigrate) {
                throw new IllegalStateException("a unit of work cannot mix client and fromMigrate writes");
            }
            return outer.transactionRoot ? inSavepoint(opCtx, outer, body) : body.apply(opCtx);
        }
        if (TransactionSynchronizationManager.isActualTransactionActive()) {
            throw new IllegalStateException("a WriteUnitOfWork must own its transaction; one is already open on this thread");
        }
        Unit unit = new Unit(fromMigrate);
        OperationContext inUnit = opCtx.with(UNIT, unit);
        T result;
        try {
            result = tx.execute(status -> {
                unit.status = status;
                T value = body.apply(inUnit);
                if (!status.isRollbackOnly()) {
                    RetryableStatement statement = opCtx.get(STATEMENT);
                    if (statement != null && !fromMigrate) {
                        history.record(statement, unit.reservations, unit.statementWrites);
                    }
                    failPoints.hit(BEFORE_COMMIT);
                }
                return value;
            });
        } finally {
            unit.reservations.forEach(OplogTimeReservations.Reservation::release);
        }
        // the template returned without a throw and without rollback-only: the transaction committed
        if (!unit.written.isEmpty() && !unit.status().isRollbackOnly()) {
            notifyCommitted(unit.written);
        }
        return result;
    }

    /**
     * Opens a multi-document transaction: a PostgreSQL transaction on a connection of its own (outside the statement
     * pool, {@link TransactionConnections}) that its statements share until {@link #commitTransaction} or
     * {@link #abortTransaction}.
     *
     * @throws dev.shardstore.contracts.error.CommandException LockTimeout (24), labelled TransientTransactionError, at
     *                                                         the limit of open transactions
     */
    public TransactionResources beginTransaction() {
        return new TransactionResources(connections.acquire(), new Unit(false, true, true));
    }

    /**
     * Runs {@code body}, one statement of the transaction {@code txn}: everything it reads and writes through JDBC runs
     * on the transaction's connection, and every {@link #write} it opens is a savepoint of the transaction (so a write
     * that asks for its rollback undoes only itself); nothing commits. Oplog entries get provisional times, made real
     * by the commit.
     *
     * @param body gets {@code opCtx} in the transaction, to pass to everything that reads or writes for it
     * @throws IllegalStateException inside a unit, or when {@code txn} has ended
     */
    public <T extends @Nullable Object> T inTransaction(OperationContext opCtx, TransactionResources txn, Function<OperationContext, T> body) {
        txn.checkOpen();
        if (opCtx.get(UNIT) != null || TransactionSynchronizationManager.hasResource(dataSource)) {
            throw new IllegalStateException("a transaction's statement must start outside any unit of work");
        }
        TransactionSynchronizationManager.bindResource(dataSource, txn.holder);
        try {
            return body.apply(opCtx.with(UNIT, txn.unit));
        } finally {
            TransactionSynchronizationManager.unbindResource(dataSource);
        }
    }

    /** Whether {@code opCtx} runs in a multi-document transaction ({@link #inTransaction}). */
    public static boolean inMultiDocumentTransaction(OperationContext opCtx) {
        Unit unit = opCtx.get(UNIT);
        return unit != null && unit.transaction;
    }

    /**
     * Commits the transaction {@code txn} of session {@code lsid}'s transaction number {@code txnNumber}: its oplog
     * entries take real cluster times, all in one reservation taken now (so the all-durable point is held back only
     * for the commit itself, not while the transaction was open), carry the session's {@code lsid} and
     * {@code txnNumber}, and the session's {@code transactions} row records the commit; then PostgreSQL commits, and
     * the written documents are reported to the observers. A transaction that wrote nothing just ends. The fail point
     * {@link #BEFORE_COMMIT} is passed just before PostgreSQL's commit.
     *
     * @return the newest oplog entry's time, 0 when the transaction wrote none
     * @throws IllegalStateException when {@code txn} has ended
     * @throws org.springframework.dao.DataAccessException when PostgreSQL refuses the commit; the transaction is then
     *                                                       rolled back
     */
    public long commitTransaction(TransactionResources txn, LogicalSessionId lsid, long txnNumber) {
        txn.checkOpen();
        OplogTimeReservations.Reservation reservation = null;
        boolean committed = false;
        TransactionSynchronizationManager.bindResource(dataSource, txn.holder);
        try {
            reservation = stampEntries(lsid, txnNumber);
            if (reservation != null && reservation.count() > 1) { // in the commit: all its entries visible at once, at the newest's time
                versions.recordCommitTime(reservation, reservation.first() + reservation.count() - 1);
            }
            failPoints.hit(BEFORE_COMMIT);
            txn.connection.commit();
            committed = true;
            return reservation == null ? 0 : reservation.first() + reservation.count() - 1;
        } catch (SQLException e) {
            throw new org.springframework.dao.DataAccessResourceFailureException("the transaction's commit failed: " + e.getMessage(), e);
        } finally {
            TransactionSynchronizationManager.unbindResource(dataSource);
            if (!committed) {
                rollbackQuietly(txn);
            }
            if (reservation != null) {
                reservation.release();
            }
            txn.end();
            connections.release(txn.connection, true);
            if (committed && !txn.unit.written.isEmpty()) {
                notifyCommitted(txn.unit.written);
            }
        }
    }

    /**
     * Prepares the transaction {@code txn} for two-phase commit (mongo/src/mongo/db/s/README.md "Two-phase Commit
     * Protocol"): its oplog entries take their real times and the session's fields as {@link #commitTransaction} gives
     * them, the session's {@code transactions} row is written as it will read once committed, and PostgreSQL prepares
     * the transaction ({@code PREPARE TRANSACTION}), which from then on survives a restart and can no longer fail to
     * commit. The reservation of its oplog times stays in flight until {@link #commitPrepared} or
     * {@link #abortPrepared}, so oplog readers (a migration's catch-up) do not pass them before the decision. The
     * connection goes back to the pool: a prepared transaction belongs to no session of PostgreSQL. The fail point
     * {@link #BEFORE_PREPARE} is passed just before the PREPARE.
     *
     * @throws IllegalStateException when {@code txn} has ended
     * @throws org.springframework.dao.DataAccessException when PostgreSQL refuses; the transaction is then rolled back
     */
    public PreparedTransaction prepareTransaction(TransactionResources txn, LogicalSessionId lsid, long txnNumber) {
        txn.checkOpen();
        OplogTimeReservations.Reservation reservation = null;
        boolean prepared = false;
        TransactionSynchronizationManager.bindResource(dataSource, txn.holder);
        try {
            reservation = stampEntries(lsid, txnNumber);
            long prepareTimestamp = reservation != null ? reservation.first() + reservation.count() - 1 : clock.latest().getValue();
            String gid = PreparedTransaction.gid(database(), lsid, txnNumber, reservation == null ? 0 : reservation.first(),
                    reservation == null ? 0 : reservation.count());
            failPoints.hit(BEFORE_PREPARE);
            jdbc.sql("PREPARE TRANSACTION '" + gid + "'").update(); // the gid is hex and digits only: no quoting to get wrong
            prepared = true;
            return new PreparedTransaction(gid, lsid, txnNumber, prepareTimestamp, reservation);
        } finally {
            TransactionSynchronizationManager.unbindResource(dataSource);
            if (!prepared) {
                rollbackQuietly(txn);
                if (reservation != null) {
                    reservation.release();
                }
            }
            txn.end();
            connections.release(txn.connection, true);
        }
    }

    /**
     * Commits the prepared transaction {@code prepared} ({@code COMMIT PREPARED}) at the coordinator's
     * {@code commitTimestamp} (a Timestamp's 64-bit value, recorded first for snapshot reads: {@link VersionStore}) and
     * releases its oplog times; nothing when PostgreSQL no longer has it (a retry after its commit). The documents written by {@code origin}, the
     * transaction's resources on this shard before the prepare (null for one recovered after a restart), are reported to
     * the observers.
     */
    public void commitPrepared(PreparedTransaction prepared, long commitTimestamp, @Nullable TransactionResources origin) {
        versions.recordCommitTime(prepared, commitTimestamp); // before its entries become visible: a snapshot read counts them from then
        clock.advanceTo(new BsonTimestamp(commitTimestamp)); // before its row locks go: every later write here is after it
        endPrepared(prepared, "COMMIT PREPARED");
        if (origin != null && !origin.unit.written.isEmpty()) {
            notifyCommitted(origin.unit.written);
        }
    }

    /** Rolls the prepared transaction {@code prepared} back ({@code ROLLBACK PREPARED}) and releases its oplog times. */
    public void abortPrepared(PreparedTransaction prepared) {
        endPrepared(prepared, "ROLLBACK PREPARED");
    }

    /**
     * The transactions of this shard that PostgreSQL holds prepared (after a restart: prepared before it and not yet
     * decided), their oplog times registered again as in flight ({@link OplogTimeReservations#recoverPrepared}). Call
     * once, before the shard serves commands.
     */
    public List<PreparedTransaction> recoverPrepared() {
        List<String> gids = jdbc.sql("SELECT gid FROM pg_prepared_xacts WHERE database = current_database() AND gid LIKE ? ORDER BY gid")
                .param(PreparedTransaction.PREFIX + "%").query((rs, i) -> Objects.requireNonNull(rs.getString(1), "gid")).list();
        List<PreparedTransaction> recovered = new ArrayList<>();
        gids.stream().map(gid -> Map.entry(gid, PreparedTransaction.parse(gid)))
                .filter(e -> e.getValue().isPresent())
                .sorted(java.util.Comparator.comparing(e -> e.getValue().get().first(), Long::compareUnsigned))
                .forEach(e -> {
                    PreparedTransaction.Parsed parsed = e.getValue().get();
                    OplogTimeReservations.Reservation reservation = parsed.count() == 0 ? null : clock.recoverPrepared(parsed.first(), parsed.count());
                    long prepareTimestamp = parsed.count() == 0 ? clock.latest().getValue() : parsed.first() + parsed.count() - 1;
                    recovered.add(new PreparedTransaction(e.getKey(), parsed.lsid(), parsed.txnNumber(), prepareTimestamp, reservation));
                });
        return recovered;
    }

    /** This shard's database, which names its prepared transactions apart from other shards' on the same server. */
    private String database() {
        String known = database;
        if (known == null) {
            known = Objects.requireNonNull(jdbc.sql("SELECT current_database()").query(String.class).single(), "current_database()");
            database = known;
        }
        return known;
    }

    /**
     * Runs {@code statement} on {@code prepared}; a transaction PostgreSQL no longer holds (ended by an earlier delivery
     * of the same decision) is left as it is. Tried at once rather than looked up first in {@code pg_prepared_xacts}:
     * a retry is rare, and the look would cost every decision a round trip.
     */
    private void endPrepared(PreparedTransaction prepared, String statement) {
        try {
            jdbc.sql(statement + " '" + prepared.gid() + "'").update();
        } catch (org.springframework.dao.DataAccessException e) {
            if (!(e.getMostSpecificCause() instanceof SQLException sql) || !UNDEFINED_OBJECT.equals(sql.getSQLState())) {
                throw e;
            }
        } finally {
            if (prepared.reservation() != null) {
                prepared.reservation().release();
            }
        }
    }

    /**
     * Gives the transaction's oplog entries (the only ones with provisional times its connection sees) real times under
     * one reservation, with the session's fields, and records the commit in the session's {@code transactions} row;
     * on the transaction's bound connection. Null when it wrote no entry. When a write fails (a serialization failure
     * on the session's row, say) the reservation is released before the exception leaves: the caller never got it, and
     * a reservation left in flight would hold back the all-durable point, and every {@code afterClusterTime} read
     * above it, for good.
     */
    private OplogTimeReservations.@Nullable Reservation stampEntries(LogicalSessionId lsid, long txnNumber) {
        int entries = jdbc.sql("SELECT count(*) FROM oplog WHERE ts_key > 0").query(Integer.class).single();
        if (entries == 0) {
            return null;
        }
        OplogTimeReservations.Reservation reservation = clock.reserve(entries);
        try {
            long storedFirst = Oplog.storedTs(reservation.first());
            byte[] key = SessionHistory.key(lsid);
            jdbc.sql("UPDATE oplog o SET ts_key = ?::bigint + r.n - 1, lsid = ?, txn_number = ?"
                            + " FROM (SELECT ts_key AS k, row_number() OVER (ORDER BY ts_key) AS n FROM oplog WHERE ts_key > 0) r"
                            + " WHERE o.ts_key = r.k")
                    .param(storedFirst).param(key).param(txnNumber).update();
            history.committedTransaction(key, txnNumber, storedFirst + entries - 1);
            return reservation;
        } catch (RuntimeException e) {
            reservation.release();
            throw e;
        }
    }

    /** Rolls the transaction {@code txn} back and gives its connection back; nothing when it has already ended. */
    public void abortTransaction(TransactionResources txn) {
        if (txn.ended()) {
            return;
        }
        boolean clean = rollbackQuietly(txn);
        txn.end();
        connections.release(txn.connection, clean);
    }

    private static boolean rollbackQuietly(TransactionResources txn) {
        try {
            txn.connection.rollback();
            return true;
        } catch (SQLException e) {
            log.warn("rolling a transaction back failed (its connection is closed, which rolls it back): {}", e.toString());
            return false;
        }
    }

    /** A {@link #write} of a multi-document transaction's statement: a unit of its own under a savepoint of the transaction. */
    private <T extends @Nullable Object> T inSavepoint(OperationContext opCtx, Unit root, Function<OperationContext, T> body) {
        Unit unit = new Unit(root.fromMigrate, true, false);
        OperationContext inUnit = opCtx.with(UNIT, unit);
        T result = nested.execute(status -> {
            unit.status = status;
            return body.apply(inUnit);
        });
        if (!unit.status().isRollbackOnly()) {
            root.written.addAll(unit.written);
        }
        return result;
    }

    private void notifyCommitted(List<CommittedWritesObserver.WrittenDocument> written) {
        for (CommittedWritesObserver observer : observers) {
            try {
                observer.committed(written);
            } catch (RuntimeException e) {
                log.warn("a committed-writes observer failed (the write itself is committed): {}", e.toString());
            }
        }
    }

    /**
     * One unit: its transaction and the cluster times it reserved. A multi-document transaction has a root unit
     * ({@code transactionRoot}) that lives as long as the transaction, and each {@link #write} of its statements a unit
     * of its own under a savepoint ({@code transaction}, not root), which rolls back alone when its body asks for it.
     */
    static final class Unit {
        private final boolean fromMigrate;
        /** Part of a multi-document transaction: its oplog times are provisional until the commit. */
        private final boolean transaction;
        /** The multi-document transaction's own unit, whose writes each run under a savepoint. */
        private final boolean transactionRoot;
        private final List<OplogTimeReservations.Reservation> reservations = new ArrayList<>();
        private final List<CommittedWritesObserver.WrittenDocument> written = new ArrayList<>();
        /** What each change wrote for the unit's retryable statement, by its reservation. */
        private final Map<OplogTimeReservations.Reservation, StatementWrite> statementWrites = new IdentityHashMap<>();
        /** The unit's transaction, set as it begins: before the body runs. */
        private @Nullable TransactionStatus status;

        Unit(boolean fromMigrate) {
            this(fromMigrate, false, false);
        }

        private Unit(boolean fromMigrate, boolean transaction, boolean transactionRoot) {
            this.fromMigrate = fromMigrate;
            this.transaction = transaction;
            this.transactionRoot = transactionRoot;
        }

        TransactionStatus status() {
            return Objects.requireNonNull(status, "set as the unit's transaction begins, before its body runs");
        }
    }
}
