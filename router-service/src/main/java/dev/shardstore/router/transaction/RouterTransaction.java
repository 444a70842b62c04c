package dev.shardstore.router.transaction;

import dev.shardstore.contracts.clock.ReadConcern;
import dev.shardstore.contracts.session.LogicalSessionId;
import dev.shardstore.contracts.session.OperationSessionInfo;
import dev.shardstore.support.operation.OperationContext;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * One session's multi-document transaction as this router runs it (MongoDB's {@code TransactionRouter}): its
 * participants in the order they were first contacted, which of them wrote, the recovery shard (the first that
 * wrote) and the {@code readConcern} of its first statement. Travels with each statement in the operation's context
 * ({@link #of}), so that every request the statement sends to a shard goes through {@link #forParticipant} and its
 * reply through {@link #replied}. Thread-safe: one statement may reach several shards at once.
 */
public final class RouterTransaction {
    private static final OperationContext.Decoration<RouterTransaction> KEY =
            new OperationContext.Decoration<>("routerTransaction", RouterTransaction.class);

    /** Where the transaction is, as this router knows it. */
    public enum State { ACTIVE, COMMITTED, ABORTED }

    private final LogicalSessionId lsid;
    private final long txnNumber;
    /** The first statement's {@code readConcern}; its {@code atClusterTime} may change until a shard has it ({@link #readAtLaterTime}). */
    private @Nullable BsonValue readConcern;
    /** Each participant, true once it has written. */
    private final Map<String, Boolean> participants = new LinkedHashMap<>();
    private @Nullable String recoveryShard;
    /** Whether this router only commits it, for another router that ran it ({@link #joining}). */
    private final boolean joined;
    private State state = State.ACTIVE;

    /**
     * A transaction started by a statement with {@code startTransaction: true}.
     *
     * @param readConcern the first statement's {@code readConcern}, sent to each participant with its first statement;
     *                    null when it had none
     */
    public RouterTransaction(LogicalSessionId lsid, long txnNumber, @Nullable BsonValue readConcern) {
        this(lsid, txnNumber, readConcern, null);
    }

    /** @param recoveryShard the shard a joined transaction commits through; null for one this router runs */
    private RouterTransaction(LogicalSessionId lsid, long txnNumber, @Nullable BsonValue readConcern, @Nullable String recoveryShard) {
        if (txnNumber < 0) {
            throw new IllegalArgumentException("txnNumber must not be negative: " + txnNumber);
        }
        this.lsid = lsid;
        this.txnNumber = txnNumber;
        this.readConcern = readConcern;
        this.recoveryShard = recoveryShard;
        this.joined = recoveryShard != null;
    }

    /**
     * A transaction another router ran, which this one commits only, through {@code recoveryShard} (a
     * {@code commitTransaction} carrying the {@code recoveryToken} of the other router's replies; mongo/src/mongo/db/s/README.md
     * "Committing a Transaction"). It has no participants here and runs no statement.
     */
    public static RouterTransaction joining(LogicalSessionId lsid, long txnNumber, String recoveryShard) {
        return new RouterTransaction(lsid, txnNumber, null, recoveryShard);
    }

    /** Whether this router only commits the transaction ({@link #joining}). */
    public boolean joined() {
        return joined;
    }

    /** The shard that knows the outcome (the first that wrote), or null while nothing was written. */
    public synchronized @Nullable String recoveryShard() {
        return recoveryShard;
    }

    /**
     * The cluster time the transaction reads at: its first statement's {@code readConcern.atClusterTime} when that is
     * a snapshot read concern (the router set the time, {@code ClientCommands}), else null (it reads the latest data).
     */
    public synchronized @Nullable BsonTimestamp atClusterTime() {
        if (readConcern == null) {
            return null;
        }
        ReadConcern parsed = ReadConcern.of(new BsonDocument(ReadConcern.FIELD, readConcern));
        return parsed.isSnapshot() ? parsed.atClusterTime() : null;
    }

    /**
     * Moves the snapshot of a transaction whose first statement failed before it reached any shard to {@code later}
     * (MongoDB's router may choose a transaction's {@code atClusterTime} again while that statement is the one that
     * chose it): with no participant, no shard holds a snapshot at the old time, so the statement can run again at the
     * new one. A router calls it only for a time it chose itself, not for the client's {@code atClusterTime}.
     *
     * @return whether the time moved: false once a shard was sent a statement, or for a transaction without a
     *         snapshot read concern, or when {@code later} is not after its time
     */
    public synchronized boolean readAtLaterTime(BsonTimestamp later) {
        BsonValue current = readConcern;
        BsonTimestamp at = atClusterTime();
        if (current == null || at == null || !participants.isEmpty() || Long.compareUnsigned(later.getValue(), at.getValue()) <= 0) {
            return false;
        }
        readConcern = current.asDocument().clone().append(ReadConcern.AT_CLUSTER_TIME, later);
        return true;
    }

    /** The transaction {@code opCtx}'s statement runs in, or null outside one. */
    public static @Nullable RouterTransaction of(OperationContext opCtx) {
        return opCtx.get(KEY);
    }

    /**
     * The fields a request in {@code opCtx}'s transaction carries to a shard that is already its participant
     * ({@code lsid}, {@code txnNumber}, {@code autocommit: false}; a cursor's getMore): {@code {}} outside a transaction.
     */
    public static BsonDocument sessionFieldsOf(OperationContext opCtx) {
        RouterTransaction txn = of(opCtx);
        return txn == null ? new BsonDocument() : OperationSessionInfo.transactionFields(txn.lsid, txn.txnNumber);
    }

    /** {@code opCtx} with this transaction, for a statement of it. */
    public OperationContext attach(OperationContext opCtx) {
        return opCtx.with(KEY, this);
    }

    public LogicalSessionId lsid() {
        return lsid;
    }

    public long txnNumber() {
        return txnNumber;
    }

    /**
     * {@code command} as statement of this transaction on {@code shard}: the session fields set, and
     * {@code startTransaction: true} with the transaction's {@code readConcern} when it is the shard's first; later
     * statements carry neither (a participant refuses a {@code readConcern} after its first statement).
     */
    public synchronized BsonDocument forParticipant(String shard, BsonDocument command) {
        BsonDocument statement = new BsonDocument();
        statement.putAll(command);
        statement.remove(OperationSessionInfo.START_TRANSACTION);
        statement.remove("readConcern");
        statement.putAll(OperationSessionInfo.transactionFields(lsid, txnNumber));
        if (!participants.containsKey(shard)) {
            participants.put(shard, false);
            statement.put(OperationSessionInfo.START_TRANSACTION, BsonBoolean.TRUE);
            if (readConcern != null) {
                statement.put("readConcern", readConcern);
            }
        }
        return statement;
    }

    /** Notes {@code shard}'s {@code reply} to a statement: a participant that answered {@code readOnly: false} wrote. */
    public synchronized void replied(String shard, BsonDocument reply) {
        if (reply.isBoolean("readOnly") && !reply.getBoolean("readOnly").getValue() && participants.containsKey(shard)) {
            participants.put(shard, true);
            if (recoveryShard == null) {
                recoveryShard = shard;
            }
        }
    }

    /** The participants, in the order they were first contacted. */
    public synchronized List<String> participants() {
        return new ArrayList<>(participants.keySet());
    }

    /** The participants that wrote. */
    public synchronized List<String> writers() {
        return participants.entrySet().stream().filter(Map.Entry::getValue).map(Map.Entry::getKey).toList();
    }

    /** {@code {recoveryShardId}}, the shard to ask for the outcome; {@code {}} for a transaction that wrote nothing. */
    public synchronized BsonDocument recoveryToken() {
        return recoveryShard == null ? new BsonDocument() : new BsonDocument("recoveryShardId", new BsonString(recoveryShard));
    }

    public synchronized State state() {
        return state;
    }

    public synchronized void ended(State outcome) {
        if (outcome == State.ACTIVE) {
            throw new IllegalArgumentException("a transaction ends committed or aborted");
        }
        state = outcome;
    }
}
