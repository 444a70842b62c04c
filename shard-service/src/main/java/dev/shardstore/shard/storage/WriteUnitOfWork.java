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
import java.util.function.Function;
import java.util.function.Supplier;
import org.bson.BsonDocument;
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

    /** The unit an operation's writes join. */
    private static final OperationContext.Decoration<Unit> UNIT = new OperationContext.Decoration<>("writeUnitOfWork", Unit.class);
    /** The retryable statement an operation's units record for ({@link #asStatement}). */
    private static final OperationContext.Decoration<RetryableStatement> STATEMENT =
            new OperationContext.Decoration<>("retryableStatement", RetryableStatement.class);
    private static final Logger log = LoggerFactory.getLogger(WriteUnitOfWork.class);

    private final List<CommittedWritesObserver> observers = new CopyOnWriteArrayList<>();

    private final TransactionTemplate tx;
    private final TransactionTemplate nested;
    private final OplogTimeReservations clock;
    private final FailPoints failPoints;
    private final SessionHistory history;

    public WriteUnitOfWork(PlatformTransactionManager transactions, OplogTimeReservations clock, FailPoints failPoints, SessionHistory history) {
        this.history = history;
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
            return body.apply(opCtx);
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

    private void notifyCommitted(List<CommittedWritesObserver.WrittenDocument> written) {
        for (CommittedWritesObserver observer : observers) {
            try {
                observer.committed(written);
            } catch (RuntimeException e) {
                log.warn("a committed-writes observer failed (the write itself is committed): {}", e.toString());
            }
        }
    }

    /** One unit: its transaction and the cluster times it reserved. */
    private static final class Unit {
        private final boolean fromMigrate;
        private final List<OplogTimeReservations.Reservation> reservations = new ArrayList<>();
        private final List<CommittedWritesObserver.WrittenDocument> written = new ArrayList<>();
        /** What each change wrote for the unit's retryable statement, by its reservation. */
        private final Map<OplogTimeReservations.Reservation, StatementWrite> statementWrites = new IdentityHashMap<>();
        /** The unit's transaction, set as it begins: before the body runs. */
        private @Nullable TransactionStatus status;

        Unit(boolean fromMigrate) {
            this.fromMigrate = fromMigrate;
        }

        TransactionStatus status() {
            return Objects.requireNonNull(status, "set as the unit's transaction begins, before its body runs");
        }
    }
}
