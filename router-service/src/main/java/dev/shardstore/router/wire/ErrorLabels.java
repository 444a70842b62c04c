package dev.shardstore.router.wire;

import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.error.ErrorLabel;
import java.util.Set;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonString;

/**
 * The {@code errorLabels} MongoDB puts on error replies, by its rules, for the errors this router produces.
 *
 * <p>{@code RetryableWriteError} (MongoDB's retryable-writes rules): on the error reply of a retryable write command
 * ({@code insert}, {@code update}, {@code delete}, {@code findAndModify}) sent with a {@code txnNumber} outside a
 * multi-document transaction (no {@code autocommit} field), when the code is one a retry may cure. Of MongoDB's
 * retryable codes, those {@link ErrorLabel#isRetriableError} names. {@code TransientTransactionError} is put on a
 * transaction's failed statement where the error arises ({@link ErrorLabel#asTransactionStatementError}).
 */
final class ErrorLabels {
    static final String RETRYABLE_WRITE_ERROR = "RetryableWriteError";
    private static final Set<String> RETRYABLE_WRITE_COMMANDS = Set.of("insert", "update", "delete", "findAndModify", "findandmodify");

    private ErrorLabels() {}

    /** {@code errorReply} with {@code errorLabels} added where MongoDB would add them for {@code command}. */
    static BsonDocument label(BsonDocument command, ErrorCode code, BsonDocument errorReply) {
        boolean retryableWrite = !command.isEmpty() && RETRYABLE_WRITE_COMMANDS.contains(command.getFirstKey())
                && command.containsKey("txnNumber") && !command.containsKey("autocommit");
        if (retryableWrite && ErrorLabel.isRetriableError(code)) {
            errorReply.append("errorLabels", new BsonArray(java.util.List.of(new BsonString(RETRYABLE_WRITE_ERROR))));
        }
        return errorReply;
    }
}
