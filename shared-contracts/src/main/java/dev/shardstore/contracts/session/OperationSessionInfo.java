package dev.shardstore.contracts.session;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.util.Optional;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * The session fields of one command (MongoDB's {@code OperationSessionInfo}): its {@code lsid} and, for a retryable
 * write, its {@code txnNumber} (mongo/src/mongo/db/s/README.md "Logical Sessions", "Retryable writes"). Parsed in one place for the router
 * and the shards.
 *
 * @param lsid      the session
 * @param txnNumber the session's transaction number, or null for a command that only uses the session
 */
public record OperationSessionInfo(LogicalSessionId lsid, @Nullable Long txnNumber) {
    /** The command field of the transaction number. */
    public static final String TXN_NUMBER = "txnNumber";

    public OperationSessionInfo {
        if (lsid == null) {
            throw new IllegalArgumentException("lsid is required");
        }
        if (txnNumber != null && txnNumber < 0) {
            throw new IllegalArgumentException("txnNumber must not be negative: " + txnNumber);
        }
    }

    /**
     * The session fields of {@code command}, or empty when it carries no {@code lsid}.
     *
     * @throws CommandException InvalidOptions (72) "Transaction number requires a session ID to also be specified" for
     *                          a {@code txnNumber} without {@code lsid} (MongoDB's error); TypeMismatch (14) for a
     *                          {@code txnNumber} that is not an integer; BadValue (2) for a negative one; the errors of
     *                          {@link LogicalSessionId#parse}
     */
    public static Optional<OperationSessionInfo> of(BsonDocument command) {
        BsonValue lsid = command.get(LogicalSessionId.FIELD);
        BsonValue txn = command.get(TXN_NUMBER);
        if (lsid == null) {
            if (txn != null) {
                throw new CommandException(ErrorCode.InvalidOptions, "Transaction number requires a session ID to also be specified");
            }
            return Optional.empty();
        }
        Long txnNumber = null;
        if (txn != null) {
            if (!(txn.isInt64() || txn.isInt32())) {
                throw new CommandException(ErrorCode.TypeMismatch, "'txnNumber' must be a long, not " + txn.getBsonType());
            }
            txnNumber = txn.asNumber().longValue();
            if (txnNumber < 0) {
                throw new CommandException(ErrorCode.BadValue, "'txnNumber' must not be negative, was " + txnNumber);
            }
        }
        return Optional.of(new OperationSessionInfo(LogicalSessionId.parse(lsid, LogicalSessionId.FIELD), txnNumber));
    }

    /** Whether the command is a retryable write (or, later, a transaction's statement): it has a transaction number. */
    public boolean isRetryable() {
        return txnNumber != null;
    }
}
