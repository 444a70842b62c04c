package dev.shardstore.contracts.error;

import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.jspecify.annotations.Nullable;

/** The {@code writeErrors} of a write command's reply, as a transaction needs them. */
public final class WriteErrors {
    private WriteErrors() {}

    /**
     * The first entry of {@code reply}'s {@code writeErrors} as an error of the whole command ({@code code},
     * {@code errmsg}, and a duplicate key's {@code keyPattern}/{@code keyValue}), labelled TransientTransactionError
     * where {@link ErrorLabel#asTransactionStatementError} says so; null when the reply has none. In a transaction a
     * write error aborts it, and MongoDB answers with it as the command's error rather than as an entry.
     */
    public static @Nullable CommandException firstAsCommandError(BsonDocument reply) {
        if (!(reply.get("writeErrors") instanceof BsonArray errors) || errors.isEmpty()) {
            return null;
        }
        BsonDocument first = errors.get(0).asDocument();
        ErrorCode code = ErrorCode.ofNumber(first.getNumber("code").intValue());
        String message = first.isString("errmsg") ? first.getString("errmsg").getValue() : code.name();
        BsonDocument extra = new BsonDocument();
        for (String field : new String[] {"keyPattern", "keyValue"}) {
            if (first.isDocument(field)) {
                extra.put(field, first.get(field));
            }
        }
        return ErrorLabel.asTransactionStatementError(new CommandException(code, message, extra));
    }
}
