package dev.shardstore.contracts.error;

import java.util.Arrays;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The one error-code list of the project, with MongoDB's numbers and names (MongoDB's
 * {@code error_codes.yml}) and the HTTP status the router's REST front end answers with.
 *
 * <p>Replies carry {@code code} (the number) and {@code codeName} (the enum constant's name, which is
 * MongoDB's spelling). Statuses: 4xx for anything the caller can fix, 503/504 for an unreachable or
 * slow peer, 500 only for {@link #InternalError}.
 */
public enum ErrorCode {
    InternalError(1, 500),
    BadValue(2, 400),
    NoSuchKey(4, 404),
    HostUnreachable(6, 503),
    HostNotFound(7, 503),
    FailedToParse(9, 400),
    /** {@code updateUser}, {@code dropUser}, {@code grantRolesToUser}... name a user that does not exist. */
    UserNotFound(11, 404),
    /** The caller may not run the command (or not on that database). */
    Unauthorized(13, 403),
    TypeMismatch(14, 400),
    Overflow(15, 400),
    InvalidLength(16, 400),
    ProtocolError(17, 400),
    /** A SASL conversation failed: unknown user or wrong password, never saying which. */
    AuthenticationFailed(18, 401),
    IllegalOperation(20, 400),
    InvalidBSON(22, 400),
    /** A role named by a user or role command does not exist. */
    RoleNotFound(31, 404),
    AlreadyInitialized(23, 409),
    LockTimeout(24, 409),
    NamespaceNotFound(26, 404),
    IndexNotFound(27, 404),
    PathNotViable(28, 400),
    ConflictingUpdateOperators(40, 400),
    CursorNotFound(43, 404),
    LockBusy(46, 409),
    NamespaceExists(48, 409),
    MaxTimeMSExpired(50, 504),
    DollarPrefixedFieldName(52, 400),
    InvalidIdField(53, 400),
    EmptyFieldName(56, 400),
    CommandNotFound(59, 404),
    ShardKeyNotFound(61, 400),
    ImmutableField(66, 400),
    CannotCreateIndex(67, 400),
    IndexAlreadyExists(68, 409),
    ShardNotFound(70, 404),
    InvalidOptions(72, 400),
    InvalidNamespace(73, 400),
    /** A write concern {@code w} naming a tag (mode) that no replica set configuration defines. */
    UnknownReplWriteConcern(79, 400),
    IndexOptionsConflict(85, 409),
    IndexKeySpecsConflict(86, 409),
    CannotSplit(87, 400),
    NetworkTimeout(89, 504),
    ShutdownInProgress(91, 503),
    GraphContainsCycle(93, 400),
    OperationFailed(96, 400),
    /** A write concern {@code w} asking for more copies than the shard has (one). */
    UnsatisfiableWriteConcern(100, 400),
    WriteConflict(112, 409),
    ConflictingOperationInProgress(117, 409),
    NamespaceNotSharded(118, 400),
    CappedPositionLost(136, 410),
    ViewDepthLimitExceeded(149, 400),
    StaleEpoch(150, 503),
    ChunkTooBig(153, 400),
    ZoneStillInUse(163, 409),
    CommandNotSupportedOnView(166, 400),
    /** A read of a view under a collation other than the view's (always the simple one here). */
    OptionNotSupportedOnView(167, 400),
    InvalidPipelineOperator(168, 400),
    CommandOnShardedViewNotSupportedOnMongod(169, 400),
    CannotIndexParallelArrays(171, 400),
    ZoneNotFound(177, 404),
    RangeOverlapConflict(178, 409),
    /**
     * A snapshot read at a time whose placement of the collection's chunks is not known (a chunk moved after it):
     * mongo/src/mongo/db/s/README.md "The historical routing table".
     */
    StaleChunkHistory(183, 409),
    InvalidIndexSpecificationOption(197, 400),
    ManualInterventionRequired(199, 500),
    /** A client's {@code $clusterTime} ahead of the node's whose signature does not match its time. */
    TimeProofMismatch(204, 401),
    /** A cluster time further ahead of the wall clock than {@code maxAcceptableLogicalClockDriftSecs}. */
    ClusterTimeFailsRateLimiter(205, 400),
    ChunkRangeCleanupPending(200, 409),
    /** No connection to a peer could be had in time: the router's bulkhead for that peer stayed full. */
    NetworkInterfaceExceededTimeLimit(202, 503),
    /** A {@code $clusterTime} signed with a key id the node does not know. */
    KeyNotFound(211, 401),
    /** A retryable write's statement whose history was truncated: whether it ran cannot be told (mongo/src/mongo/db/s/README.md "Retryable writes"). */
    IncompleteTransactionHistory(217, 409),
    QueryFeatureNotAllowed(224, 400),
    /** A {@code txnNumber} below the session's current one (mongo/src/mongo/db/s/README.md "Logical Sessions"). */
    TransactionTooOld(225, 409),
    /** A feature or option this server refuses: the caller's to change (HTTP 400), not a server fault. */
    NotImplemented(238, 400),
    /** A snapshot read at a time older than the history kept ({@code minSnapshotHistoryWindowInSeconds}). */
    SnapshotTooOld(239, 409),
    ConversionFailure(241, 400),
    StaleDbVersion(249, 503),
    /**
     * A transaction statement, commit or abort for a {@code txnNumber} the node has no transaction of (never started
     * there, or already aborted): the client retries the whole transaction (mongo/src/mongo/db/s/README.md "Transactions").
     */
    NoSuchTransaction(251, 404),
    /** A statement sent to a transaction that has committed. */
    TransactionCommitted(256, 409),
    ExceededTimeLimit(262, 504),
    /** A command MongoDB does not run inside a multi-document transaction ({@code count}, {@code explain}, DDL, ...). */
    OperationNotSupportedInTransaction(263, 400),
    /** A statement, or a new transaction, on a session whose transaction is prepared: only its commit or abort may follow. */
    PreparedTransactionInProgress(267, 409),
    WouldChangeOwningShard(283, 400),
    QueryExceededMemoryLimitNoDiskUseAllowed(292, 400),
    /** {@code dropIndexes} by a key pattern that several indexes (with different collations) have: name one instead. */
    AmbiguousIndexKeyPattern(296, 400),
    /** {@code saslStart} with a mechanism the server does not offer (or not for that user). */
    MechanismUnavailable(334, 400),
    /** A reshardCollection of a collection that another resharding operation is resharding now. */
    ReshardCollectionInProgress(338, 409),
    /** abortReshardCollection of a collection no resharding operation is running on. */
    NoSuchReshardCollection(339, 404),
    /** abortReshardCollection after the resharding operation's commit decision was persisted: it cannot be undone. */
    ReshardCollectionCommitted(340, 409),
    /** The reshardCollection was aborted (abortReshardCollection, a failed verification, a participant's error). */
    ReshardCollectionAborted(341, 409),
    /** Resharding's write block lasted longer than {@code reshardingCriticalSectionTimeoutMillis}. */
    ReshardingCriticalSectionTimeout(342, 503),
    UnsupportedOpQueryCommand(352, 400),
    BSONObjectTooLarge(10334, 413),
    DuplicateKey(11000, 409),
    /** The operation was interrupted before it finished: killed by {@code killOp}, or its thread interrupted (at shutdown). */
    Interrupted(11601, 503),
    /** {@code $merge} with {@code whenNotMatched: "fail"} met a document with no match in the target. */
    MergeStageNoMatchingDocument(13113, 409),
    StaleConfig(13388, 503),
    /** An expression reads a variable ({@code $$name}) that no {@code let}, {@code $let}, {@code $map}... defines. */
    /** An expression operator's argument that must be an object and is not ({@code $rand: 1}). */
    Location10065(10065, 400),
    Location17276(17276, 400),
    /** {@code commitTransaction} for a transaction the router has no participants of, without a {@code recoveryToken} (mongos). */
    Location50940(50940, 400),
    /** {@code $out} to a sharded collection. */
    Location28769(28769, 400),
    Location40324(40324, 400),
    /** An IDL error: a required field is missing. */
    Location40414(40414, 400),
    Location40415(40415, 400),
    /** An OP_MSG command without its {@code $db} field. */
    Location40571(40571, 400),
    /** {@code $out}/{@code $merge} inside a {@code $facet}. */
    Location40600(40600, 400),
    /** {@code $out}/{@code $merge} not the last stage. */
    Location40601(40601, 400),
    /** A stage that must come first ({@code $currentOp}) elsewhere in the pipeline. */
    Location40602(40602, 400),
    /** A {@code $facet}'s output document over {@code internalQueryFacetMaxOutputDocSizeBytes} (100 MB), MongoDB's code. */
    Location4031700(4031700, 400),
    /** {@code $out}/{@code $merge} inside a {@code $lookup}'s pipeline. */
    Location51047(51047, 400),
    /** {@code createRole} of a role that exists (MongoDB's "Role already exists"). */
    Location51002(51002, 409),
    /** {@code createUser} of a user that exists (MongoDB's "User already exists"). */
    Location51003(51003, 409),
    /** A {@code $merge} document whose {@code on} field is missing, null or an array. */
    Location51132(51132, 400),
    /** An unsupported {@code $merge} whenMatched/whenNotMatched combination. */
    Location51181(51181, 400),
    /** {@code $merge}'s {@code on} fields have no unique index. */
    Location51183(51183, 400),
    /** {@code $rand} given arguments. */
    Location3040501(3040501, 400);

    private static final Map<Integer, ErrorCode> BY_NUMBER =
            Arrays.stream(values()).collect(Collectors.toUnmodifiableMap(ErrorCode::code, Function.identity()));

    private final int code;
    private final int httpStatus;

    ErrorCode(int code, int httpStatus) {
        this.code = code;
        this.httpStatus = httpStatus;
    }

    /** MongoDB's numeric error code. */
    public int code() {
        return code;
    }

    /** MongoDB's name for the code ({@code codeName} in replies). */
    public String codeName() {
        return name();
    }

    /** HTTP status used when this error is the outcome of a whole REST request. */
    public int httpStatus() {
        return httpStatus;
    }

    /**
     * The constant for a MongoDB number; unknown numbers (from a newer peer) map to
     * {@link #InternalError} so the original number is never silently reused for another meaning.
     */
    public static ErrorCode ofNumber(int code) {
        return BY_NUMBER.getOrDefault(code, InternalError);
    }
}
