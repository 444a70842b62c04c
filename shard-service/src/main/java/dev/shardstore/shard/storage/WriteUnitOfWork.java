package dev.shardstore.shard.storage;

import dev.shardstore.support.failpoint.FailPoints;
import java.util.ArrayList;
import java.util.List;
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
 * point ({@link ClusterClock#allDurable()}) until it is released, so it must be released exactly when its
 * transaction has committed or rolled back, never before (a reader could skip an entry that commits later) and
 * always (a leaked one would freeze the point). {@link #write} releases them in a {@code finally} around the
 * transaction template, which returns only after the commit or rollback is over and whatever the body threw; and a
 * unit never joins a transaction it did not open (it refuses to start inside a foreign one), so "the template
 * returned" is "the transaction is over".
 *
 * <p>A {@code write} inside a {@code write} on the same thread joins the outer unit (one transaction, released when
 * the outer one ends); {@link #savepoint} runs a part that can fail alone. The fail point {@link #BEFORE_COMMIT} is
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

    private static final ThreadLocal<Unit> CURRENT = new ThreadLocal<>();
    private static final ThreadLocal<RetryableStatement> STATEMENT = new ThreadLocal<>();
    private static final Logger log = LoggerFactory.getLogger(WriteUnitOfWork.class);

    private final List<CommittedWritesObserver> observers = new CopyOnWriteArrayList<>();

    private final TransactionTemplate tx;
    private final TransactionTemplate nested;
    private final ClusterClock clock;
    private final FailPoints failPoints;
    private final SessionHistory history;

    public WriteUnitOfWork(PlatformTransactionManager transactions, ClusterClock clock, FailPoints failPoints, SessionHistory history) {
        this.history = history;
        this.tx = new TransactionTemplate(transactions);
        this.nested = new TransactionTemplate(transactions);
        this.nested.setPropagationBehavior(TransactionDefinition.PROPAGATION_NESTED);
        this.clock = clock;
        this.failPoints = failPoints;
    }

    /**
     * Runs {@code body} in a transaction of its own (or in the current unit when called inside one) and commits
     * it, unless the body threw or asked for a rollback ({@link Work#setRollbackOnly()}). Oplog entries written
     * by the body are client writes ({@code fromMigrate: false}).
     *
     * @return what {@code body} returned
     * @throws IllegalStateException when called inside a transaction that is not a unit's
     */
    public <T> T write(Function<Work, T> body) {
        return run(false, body);
    }

    /**
     * {@link #write}, with every oplog entry of the unit marked {@code fromMigrate: true}: the writes of chunk
     * migration on the recipient and of range deletion, which readers of the oplog that follow client changes
     * skip (mongo/src/mongo/db/s/README.md "Migrations").
     */
    public <T> T writeFromMigrate(Function<Work, T> body) {
        return run(true, body);
    }

    /**
     * Runs {@code body} under a savepoint of the current unit: when it throws, only its own changes are undone
     * (the exception propagates), and the unit goes on. Used for a multi-update, where a duplicate key stops the
     * statement at one document but keeps the earlier ones.
     *
     * @throws IllegalStateException outside a unit
     */
    public <T> T savepoint(Supplier<T> body) {
        Unit unit = current();
        int mark = unit.written.size();
        Set<ClusterClock.Reservation> statementWritesBefore = Set.copyOf(unit.statementWrites.keySet());
        try {
            return nested.execute(status -> body.get());
        } catch (RuntimeException e) {
            unit.written.subList(mark, unit.written.size()).clear(); // undone with the savepoint
            unit.statementWrites.keySet().retainAll(statementWritesBefore); // each change has its own reservation
            throw e;
        }
    }

    /** Registers {@code observer} to hear of every later unit's committed client writes (see the class comment). */
    public void observeCommittedWrites(CommittedWritesObserver observer) {
        observers.add(observer);
    }

    /**
     * Notes a client insert or update of a sharded collection's document in the current unit, reported to the observers
     * if the unit commits; ignored in a {@code fromMigrate} unit or when nobody observes.
     *
     * @throws IllegalStateException outside a unit
     */
    void recordWritten(CommittedWritesObserver.WrittenDocument written) {
        Unit unit = current();
        if (!unit.fromMigrate && !observers.isEmpty()) {
            unit.written.add(written);
        }
    }

    /**
     * Runs {@code body}, one statement of a retryable write, on this thread (mongo/src/mongo/db/s/README.md "Retryable writes"): every unit
     * it commits marks its insert, update and delete oplog entries with {@code statement}'s session fields and makes the
     * newest one the session's last write in the {@code transactions} table, in the same transaction
     * ({@link SessionHistory#record}); a unit that rolls back records nothing.
     *
     * @throws IllegalStateException inside a unit or another statement: the statement must own its units
     */
    public <T> T asStatement(RetryableStatement statement, Supplier<T> body) {
        if (CURRENT.get() != null || STATEMENT.get() != null) {
            throw new IllegalStateException("a retryable statement must start outside any unit of work");
        }
        STATEMENT.set(statement);
        try {
            return body.get();
        } finally {
            STATEMENT.remove();
        }
    }

    /**
     * Keeps findAndModify's document before its change with the running retryable statement's oplog entry, so a retry
     * can answer with it (MongoDB's retry image); nothing outside a retryable statement.
     */
    public void notePreImage(BsonDocument document) {
        RetryableStatement statement = STATEMENT.get();
        if (statement != null) {
            statement.preImage(document);
        }
    }

    /**
     * Reserves {@code count} cluster times for oplog entries of the current unit; they are released when the
     * unit's transaction is over.
     *
     * @throws IllegalStateException outside a unit
     */
    ClusterClock.Reservation reserve(int count) {
        Unit unit = current();
        ClusterClock.Reservation reservation = clock.reserve(count);
        unit.reservations.add(reservation);
        return reservation;
    }

    /**
     * The retryable statement the current unit writes for, whose session fields its writes put on their oplog entries
     * ({@link DocumentStore}); null when it runs for none, or is a {@code fromMigrate} unit.
     *
     * @throws IllegalStateException outside a unit
     */
    @Nullable RetryableStatement statement() {
        Unit unit = current();
        return unit.fromMigrate ? null : STATEMENT.get();
    }

    /**
     * The previous write of {@code statement}'s session and transaction number that its next entry chains to: the
     * entry this unit wrote for it last, else the statement's {@link RetryableStatement#prevOpTime()}.
     */
    long previousWrite(RetryableStatement statement) {
        OptionalLong newest = current().statementWrites.values().stream().mapToLong(StatementWrite::newestStored).max();
        return newest.isPresent() ? Oplog.tsOf(newest.getAsLong()) : statement.prevOpTime();
    }

    /**
     * Notes that the change that reserved {@code reservation} wrote {@code count} entries carrying {@link #statement}'s
     * session fields, the newest at stored time {@code newestStored}; {@link SessionHistory#record} points the session at
     * it before the unit commits.
     */
    void wroteForStatement(ClusterClock.Reservation reservation, int count, long newestStored) {
        current().statementWrites.put(reservation, new StatementWrite(count, newestStored)); // one change per reservation
    }

    /**
     * The entries one change wrote for the unit's statement.
     *
     * @param count        how many
     * @param newestStored the newest one's stored time ({@link Oplog#storedTs})
     */
    record StatementWrite(int count, long newestStored) {}

    /** Whether the current unit's oplog entries are {@code fromMigrate}. */
    boolean fromMigrate() {
        return current().fromMigrate;
    }

    private Unit current() {
        Unit unit = CURRENT.get();
        if (unit == null) {
            throw new IllegalStateException("oplog entries are written only inside a WriteUnitOfWork");
        }
        return unit;
    }

    private <T> T run(boolean fromMigrate, Function<Work, T> body) {
        Unit outer = CURRENT.get();
        if (outer != null) {
            if (outer.fromMigrate != fromMigrate) {
                throw new IllegalStateException("a unit of work cannot mix client and fromMigrate writes");
            }
            return body.apply(outer);
        }
        if (TransactionSynchronizationManager.isActualTransactionActive()) {
            throw new IllegalStateException("a WriteUnitOfWork must own its transaction; one is already open on this thread");
        }
        Unit unit = new Unit(fromMigrate);
        CURRENT.set(unit);
        T result;
        try {
            result = tx.execute(status -> {
                unit.status = status;
                T value = body.apply(unit);
                if (!status.isRollbackOnly()) {
                    RetryableStatement statement = STATEMENT.get();
                    if (statement != null && !fromMigrate) {
                        history.record(statement, unit.reservations, unit.statementWrites);
                    }
                    failPoints.hit(BEFORE_COMMIT);
                }
                return value;
            });
        } finally {
            CURRENT.remove();
            unit.reservations.forEach(ClusterClock.Reservation::release);
        }
        // the template returned without a throw and without rollback-only: the transaction committed
        if (!unit.written.isEmpty() && !unit.status.isRollbackOnly()) {
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

    /** The handle a unit's body gets. */
    public interface Work {
        /** Rolls the unit back instead of committing it when the body returns. */
        void setRollbackOnly();
    }

    /** One unit on one thread: its transaction and the cluster times it reserved. */
    private static final class Unit implements Work {
        private final boolean fromMigrate;
        private final List<ClusterClock.Reservation> reservations = new ArrayList<>();
        private final List<CommittedWritesObserver.WrittenDocument> written = new ArrayList<>();
        /** What each change wrote for the unit's retryable statement, by its reservation. */
        private final Map<ClusterClock.Reservation, StatementWrite> statementWrites = new IdentityHashMap<>();
        private TransactionStatus status;

        Unit(boolean fromMigrate) {
            this.fromMigrate = fromMigrate;
        }

        @Override
        public void setRollbackOnly() {
            status.setRollbackOnly();
        }
    }
}
