package dev.shardstore.router.transaction;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.error.ErrorLabel;
import dev.shardstore.contracts.session.LogicalSessionId;
import dev.shardstore.contracts.session.OperationSessionInfo;
import dev.shardstore.support.session.LogicalSessionCache;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;
import org.springframework.stereotype.Component;

/**
 * The router's transactions, one per session (MongoDB's {@code RouterSessionCatalog} with its
 * {@code TransactionRouter}s): a transaction's statements, commit and abort run one at a time per session, and each
 * finds its transaction here.
 *
 * <ul>
 *   <li>{@code startTransaction: true} starts transaction {@code txnNumber}: TransactionTooOld (225) below the
 *       session's newest here, ConflictingOperationInProgress (117) for the same number again;</li>
 *   <li>any other statement, {@code commitTransaction} and {@code abortTransaction} need the session's transaction
 *       with that number: NoSuchTransaction (251, labelled TransientTransactionError) otherwise, except a commit,
 *       which is Location50940 without a {@code recoveryToken} (mongos's answer), as this router cannot learn the
 *       outcome without participants, and with one joins the transaction to commit it through the shard the token
 *       names ({@link RouterTransaction#joining}).</li>
 * </ul>
 * A session's entry goes when the logical session cache no longer stores the session; its shards abort its open
 * transaction themselves then. Thread-safe.
 */
@Component
public class RouterTransactions implements LogicalSessionCache.Reaper {
    /** How long a statement waits for the session's previous one (a driver sends them one at a time). */
    static final Duration CHECKOUT_TIMEOUT = Duration.ofSeconds(30);

    private final Map<LogicalSessionId, Session> sessions = new ConcurrentHashMap<>();

    public RouterTransactions(LogicalSessionCache sessionCache) {
        sessionCache.addReaper(this);
    }

    /** One session: its lock, and its newest transaction (guarded by the lock). */
    private static final class Session {
        final ReentrantLock lock = new ReentrantLock(true);
        @Nullable RouterTransaction current;
    }

    /**
     * Runs {@code body} with the transaction of {@code info}'s session, holding the session.
     *
     * @param name    the command's name ({@code commitTransaction} and {@code abortTransaction} are answered for the
     *                transaction as it is; a statement must find it active)
     * @param command the command, for its {@code readConcern} (first statement) and {@code recoveryToken} (commit)
     * @throws CommandException the errors of the class comment; MaxTimeMSExpired (50) when the session stays busy
     */
    public <T> T run(OperationSessionInfo info, String name, BsonDocument command, Function<RouterTransaction, T> body) {
        long txnNumber = Objects.requireNonNull(info.txnNumber(), "a transaction's command has a txnNumber");
        Session session = sessions.computeIfAbsent(info.lsid(), lsid -> new Session());
        try {
            if (!session.lock.tryLock(CHECKOUT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new CommandException(ErrorCode.MaxTimeMSExpired, "session " + info.lsid() + " is busy with another command of its"
                        + " transaction; it was not free within " + CHECKOUT_TIMEOUT.toSeconds() + " s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CommandException(ErrorCode.Interrupted, "interrupted while waiting for session " + info.lsid(), e);
        }
        try {
            RouterTransaction txn = info.startTransaction() ? start(session, info, txnNumber, command) : existing(session, info, txnNumber, name, command);
            return body.apply(txn);
        } finally {
            session.lock.unlock();
        }
    }

    /** How many sessions have an entry. */
    public int size() {
        return sessions.size();
    }

    @Override
    public void reap(LogicalSessionCache cache) {
        List<LogicalSessionId> known = List.copyOf(sessions.keySet());
        if (known.isEmpty()) {
            return;
        }
        Set<LogicalSessionId> alive = cache.stillStored(known);
        for (LogicalSessionId lsid : known) {
            Session session = sessions.get(lsid);
            if (!alive.contains(lsid) && session != null && session.lock.tryLock()) {
                try {
                    sessions.remove(lsid, session);
                } finally {
                    session.lock.unlock();
                }
            }
        }
    }

    private static RouterTransaction start(Session session, OperationSessionInfo info, long txnNumber, BsonDocument command) {
        RouterTransaction current = session.current;
        if (current != null && txnNumber < current.txnNumber()) {
            throw new CommandException(ErrorCode.TransactionTooOld, "Cannot start transaction " + txnNumber + " on session " + info.lsid()
                    + " because a newer transaction " + current.txnNumber() + " has already started.");
        }
        if (current != null && txnNumber == current.txnNumber()) {
            throw new CommandException(ErrorCode.ConflictingOperationInProgress, "Cannot start transaction " + txnNumber + " on session "
                    + info.lsid() + " because a transaction with the same number is in progress or has ended");
        }
        RouterTransaction txn = new RouterTransaction(info.lsid(), txnNumber, command.get("readConcern"));
        session.current = txn;
        return txn;
    }

    /**
     * The {@code recoveryShardId} of {@code command}'s {@code recoveryToken}.
     *
     * @throws CommandException TypeMismatch for a token or id of another type; NoSuchTransaction for an empty token (a
     *                          transaction that only read: nothing to recover, it may be retried whole)
     */
    private static String recoveryShardOf(BsonDocument command, long txnNumber) {
        BsonValue token = command.get("recoveryToken");
        if (token == null || !token.isDocument()) {
            throw new CommandException(ErrorCode.TypeMismatch, "BSON field 'commitTransaction.recoveryToken' is the wrong type '"
                    + (token == null ? "missing" : token.getBsonType()) + "', expected type 'object'");
        }
        BsonValue shard = token.asDocument().get("recoveryShardId");
        if (shard == null) {
            throw new CommandException(ErrorCode.NoSuchTransaction, "the recoveryToken of transaction " + txnNumber + " names no"
                    + " recovery shard: the transaction only read, and can be retried", ErrorLabel.TransientTransactionError.extraInfo());
        }
        if (!shard.isString()) {
            throw new CommandException(ErrorCode.TypeMismatch, "BSON field 'commitTransaction.recoveryToken.recoveryShardId' is the"
                    + " wrong type '" + shard.getBsonType() + "', expected type 'string'");
        }
        return shard.asString().getValue();
    }

    private static RouterTransaction existing(Session session, OperationSessionInfo info, long txnNumber, String name, BsonDocument command) {
        RouterTransaction current = session.current;
        if (current != null && current.txnNumber() == txnNumber) {
            if (current.state() != RouterTransaction.State.ACTIVE && !name.equals("commitTransaction") && !name.equals("abortTransaction")) {
                throw new CommandException(current.state() == RouterTransaction.State.COMMITTED ? ErrorCode.TransactionCommitted : ErrorCode.NoSuchTransaction,
                        "Transaction " + txnNumber + " has been " + current.state().name().toLowerCase(java.util.Locale.ROOT) + ".",
                        current.state() == RouterTransaction.State.ABORTED ? ErrorLabel.TransientTransactionError.extraInfo() : new BsonDocument());
            }
            return current;
        }
        if (current != null && txnNumber < current.txnNumber()) {
            throw new CommandException(ErrorCode.TransactionTooOld, "Cannot continue transaction " + txnNumber + " on session " + info.lsid()
                    + " because a newer transaction " + current.txnNumber() + " has already started.");
        }
        if (name.equals("commitTransaction") && !command.containsKey("recoveryToken")) {
            throw new CommandException(ErrorCode.Location50940, "Cannot commit transaction " + txnNumber + " on session " + info.lsid()
                    + ": this router has no participants of it and the command carries no recoveryToken");
        }
        if (name.equals("commitTransaction")) {
            RouterTransaction joining = RouterTransaction.joining(info.lsid(), txnNumber, recoveryShardOf(command, txnNumber));
            session.current = joining;
            return joining;
        }
        throw new CommandException(ErrorCode.NoSuchTransaction, "Given transaction number " + txnNumber + " does not match any"
                + " in-progress transactions on this router", ErrorLabel.TransientTransactionError.extraInfo());
    }
}
