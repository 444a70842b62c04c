package dev.shardstore.contracts.error;

import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;

/**
 * The {@code errorLabels} MongoDB puts on error replies to tell a driver what it may do next (MongoDB's
 * transactions and retryable-writes specifications): carried in a {@link CommandException}'s extra info as
 * {@code {errorLabels: [<label>, ...]}}, so every front end's error reply has them.
 */
public enum ErrorLabel {
    /** The whole transaction may be retried from its start: it was aborted and nothing of it committed. */
    TransientTransactionError,
    /** The commit may have happened or not; {@code commitTransaction} may be retried to learn which. */
    UnknownTransactionCommitResult,
    /** The retryable write may be retried with the same {@code txnNumber}. */
    RetryableWriteError;

    /** The reply field. */
    public static final String FIELD = "errorLabels";

    /** {@code {errorLabels: [this]}}, the extra info of an error that carries this label. */
    public BsonDocument extraInfo() {
        return new BsonDocument(FIELD, new BsonArray(List.of(new BsonString(name()))));
    }

    /**
     * Whether an error with {@code code}, failing a transaction's statement before its commit began, lets the client
     * retry the whole transaction (MongoDB's {@code isTransientTransactionError}): a write conflict, a lock or
     * connection limit, a transaction the node no longer has, or a snapshot the node cannot serve (SnapshotTooOld,
     * StaleChunkHistory: MongoDB's {@code isSnapshotError}; a retry reads at a newer time).
     */
    public static boolean isTransientTransactionError(ErrorCode code) {
        return code == ErrorCode.WriteConflict || code == ErrorCode.LockTimeout || code == ErrorCode.NoSuchTransaction
                || code == ErrorCode.SnapshotTooOld || code == ErrorCode.StaleChunkHistory;
    }

    /** Whether {@code reply} (an error reply) carries this label. */
    public boolean on(BsonDocument reply) {
        BsonValue labels = reply.get(FIELD);
        return labels != null && labels.isArray() && labels.asArray().contains(new BsonString(name()));
    }
}
