package dev.shardstore.contracts.error;

import java.util.List;
import java.util.Set;
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
     * The codes of MongoDB's {@code RetriableError} category that this system produces: the node or the network
     * failed (a peer that did not answer, a node shutting down, a remote call that timed out), not the command, so
     * whether the command ran is unknown and a retry may cure it.
     */
    private static final Set<ErrorCode> RETRIABLE = Set.of(ErrorCode.HostUnreachable, ErrorCode.HostNotFound,
            ErrorCode.NetworkTimeout, ErrorCode.ShutdownInProgress, ErrorCode.ExceededTimeLimit,
            ErrorCode.NetworkInterfaceExceededTimeLimit);

    /** The routing errors after which a router must re-target (MongoDB's {@code isNeedRetargettingError}). */
    private static final Set<ErrorCode> STALE_ROUTING = Set.of(ErrorCode.StaleConfig, ErrorCode.StaleEpoch, ErrorCode.StaleDbVersion);

    /**
     * Whether {@code code} is of MongoDB's {@code RetriableError} category ({@link #RETRIABLE}): a retryable write
     * failing with it is labelled {@link #RetryableWriteError}, and a commit failing with it has an unknown outcome.
     */
    public static boolean isRetriableError(ErrorCode code) {
        return RETRIABLE.contains(code);
    }

    /**
     * Whether an error with {@code code}, failing a transaction's statement before its commit began, lets the client
     * retry the whole transaction (MongoDB's {@code isTransientTransactionError} for a statement): a write conflict,
     * a lock or connection limit, a transaction the node no longer has, a snapshot the node cannot serve
     * (SnapshotTooOld, StaleChunkHistory: MongoDB's {@code isSnapshotError}; a retry reads at a newer time), a
     * routing table that was stale, or a node or network that failed ({@link #isRetriableError}). The statement's
     * failure aborts the transaction on every participant, so nothing of it can commit and a retry from the start is
     * safe.
     */
    public static boolean isTransientTransactionError(ErrorCode code) {
        return code == ErrorCode.WriteConflict || code == ErrorCode.LockTimeout || code == ErrorCode.NoSuchTransaction
                || isSnapshotError(code) || STALE_ROUTING.contains(code) || isRetriableError(code);
    }

    /**
     * Whether {@code code} says a snapshot read cannot be served at its time, which a read at a later time may be
     * (MongoDB's {@code isSnapshotError}, of the codes this project answers): SnapshotTooOld (239), older than the
     * shards' kept history, and StaleChunkHistory (183), older than the placement history a routing table keeps.
     */
    public static boolean isSnapshotError(ErrorCode code) {
        return code == ErrorCode.SnapshotTooOld || code == ErrorCode.StaleChunkHistory;
    }

    /**
     * {@code e} labelled {@link #TransientTransactionError} when {@link #isTransientTransactionError} says so and it
     * is not already; {@code e} itself otherwise.
     */
    public static CommandException asTransactionStatementError(CommandException e) {
        if (!isTransientTransactionError(e.code()) || TransientTransactionError.on(e.toReply())) {
            return e;
        }
        BsonDocument extra = e.extraInfo();
        BsonArray labels = extra.isArray(FIELD) ? extra.getArray(FIELD) : new BsonArray();
        labels.add(new BsonString(TransientTransactionError.name()));
        extra.put(FIELD, labels);
        return new CommandException(e.code(), e.getMessage(), extra, e);
    }

    /** Whether {@code reply} (an error reply) carries this label. */
    public boolean on(BsonDocument reply) {
        BsonValue labels = reply.get(FIELD);
        return labels != null && labels.isArray() && labels.asArray().contains(new BsonString(name()));
    }
}
