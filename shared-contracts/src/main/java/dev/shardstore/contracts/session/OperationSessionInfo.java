package dev.shardstore.contracts.session;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.util.Optional;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * The session fields of one command (MongoDB's {@code OperationSessionInfoFromClient}): its {@code lsid}; for a
 * retryable write or a transaction's statement its {@code txnNumber}; for a transaction's statement
 * {@code autocommit: false}, and on its first statement {@code startTransaction: true}
 * (mongo/src/mongo/db/s/README.md "Logical Sessions", "Retryable writes", "Transactions"). Parsed in one place for the
 * router and the shards.
 *
 * @param lsid             the session
 * @param txnNumber        the session's transaction number, or null for a command that only uses the session
 * @param inTransaction    whether the command carries {@code autocommit: false}: a statement of a multi-document
 *                         transaction (then {@code txnNumber} is set)
 * @param startTransaction whether the command carries {@code startTransaction: true}: its transaction's first statement
 *                         (then {@code inTransaction})
 * @param statementIds     the ids of its statements ({@code stmtIds}/{@code stmtId}; {@link StatementIds#DEFAULT} without)
 */
public record OperationSessionInfo(LogicalSessionId lsid, @Nullable Long txnNumber, boolean inTransaction, boolean startTransaction,
        StatementIds statementIds) {
    /** The command field of the transaction number. */
    public static final String TXN_NUMBER = "txnNumber";
    /** The command field that makes a command a transaction's statement (only {@code false} is allowed). */
    public static final String AUTOCOMMIT = "autocommit";
    /** The command field of a transaction's first statement (only {@code true} is allowed). */
    public static final String START_TRANSACTION = "startTransaction";

    public OperationSessionInfo {
        if (lsid == null) {
            throw new IllegalArgumentException("lsid is required");
        }
        if (txnNumber != null && txnNumber < 0) {
            throw new IllegalArgumentException("txnNumber must not be negative: " + txnNumber);
        }
        if (inTransaction && txnNumber == null) {
            throw new IllegalArgumentException("a transaction's statement has a txnNumber");
        }
        if (startTransaction && !inTransaction) {
            throw new IllegalArgumentException("startTransaction is a transaction's statement");
        }
        if (statementIds == null) {
            throw new IllegalArgumentException("statementIds is required (StatementIds.DEFAULT for none)");
        }
    }

    /** The session fields of a command that uses {@code lsid} with {@code txnNumber} (null for none) outside a transaction. */
    public OperationSessionInfo(LogicalSessionId lsid, @Nullable Long txnNumber) {
        this(lsid, txnNumber, false, false, StatementIds.DEFAULT);
    }

    /**
     * The session fields of {@code command}, or empty when it carries no {@code lsid}.
     *
     * @throws CommandException InvalidOptions (72) "Transaction number requires a session ID to also be specified" for
     *                          a {@code txnNumber} without {@code lsid} (MongoDB's error), for {@code autocommit} or
     *                          {@code startTransaction} without {@code lsid}, for {@code autocommit} other
     *                          than {@code false}, {@code startTransaction} other than {@code true}, {@code autocommit}
     *                          without {@code txnNumber} and {@code startTransaction} without {@code autocommit};
     *                          TypeMismatch (14) for a {@code txnNumber} that is not an integer or a flag that is not a
     *                          boolean; BadValue (2) for a negative {@code txnNumber}; the errors of
     *                          {@link LogicalSessionId#parse} and {@link StatementIds#parse}
     */
    public static Optional<OperationSessionInfo> of(BsonDocument command) {
        BsonValue lsid = command.get(LogicalSessionId.FIELD);
        BsonValue txn = command.get(TXN_NUMBER);
        BsonValue autocommit = command.get(AUTOCOMMIT);
        BsonValue start = command.get(START_TRANSACTION);
        if (lsid == null) {
            if (txn != null) {
                throw new CommandException(ErrorCode.InvalidOptions, "Transaction number requires a session ID to also be specified");
            }
            if (autocommit != null || start != null) {
                throw new CommandException(ErrorCode.InvalidOptions, "'" + (autocommit != null ? AUTOCOMMIT : START_TRANSACTION)
                        + "' requires a session ID (lsid) and a transaction number to also be specified");
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
        boolean inTransaction = autocommit != null;
        if (autocommit != null && flag(autocommit, AUTOCOMMIT)) {
            throw new CommandException(ErrorCode.InvalidOptions, "Specifying autocommit=true is not allowed.");
        }
        if (inTransaction && txnNumber == null) {
            throw new CommandException(ErrorCode.InvalidOptions, "'autocommit' field requires a transaction number to also be specified");
        }
        boolean startTransaction = start != null;
        if (start != null && !flag(start, START_TRANSACTION)) {
            throw new CommandException(ErrorCode.InvalidOptions, "Specifying startTransaction=false is not allowed.");
        }
        if (startTransaction && !inTransaction) {
            throw new CommandException(ErrorCode.InvalidOptions, "'startTransaction' field requires 'autocommit' field to also be specified");
        }
        return Optional.of(new OperationSessionInfo(LogicalSessionId.parse(lsid, LogicalSessionId.FIELD), txnNumber, inTransaction,
                startTransaction, StatementIds.parse(command)));
    }

    /**
     * The session fields of a statement of {@code lsid}'s multi-document transaction {@code txnNumber} after its first:
     * {@code {lsid, txnNumber, autocommit: false}}, as a router sends them to a participant and a coordinator to each
     * participant (the inverse of {@link #of} for such a command).
     */
    public static BsonDocument transactionFields(LogicalSessionId lsid, long txnNumber) {
        return new BsonDocument(LogicalSessionId.FIELD, lsid.toBson()).append(TXN_NUMBER, new BsonInt64(txnNumber))
                .append(AUTOCOMMIT, BsonBoolean.FALSE);
    }

    private static boolean flag(BsonValue value, String field) {
        if (!value.isBoolean()) {
            throw new CommandException(ErrorCode.TypeMismatch, "'" + field + "' must be a boolean, not " + value.getBsonType());
        }
        return value.asBoolean().getValue();
    }

    /**
     * Whether the command is a retryable write: it has a transaction number and is not a transaction's statement
     * ({@link #inTransaction}).
     */
    public boolean isRetryable() {
        return txnNumber != null && !inTransaction;
    }
}
