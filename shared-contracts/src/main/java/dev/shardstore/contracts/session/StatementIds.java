package dev.shardstore.contracts.session;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonValue;

/**
 * The statement ids of a retryable write's statements (mongo/src/mongo/db/s/README.md "Retryable writes"; MongoDB's
 * {@code write_ops::getStmtIdForWriteAt}): statement {@code i} of a batch has id {@code stmtIds[i]} when the command
 * carries {@code stmtIds}, else {@code stmtId + i} when it carries {@code stmtId}, else {@code i}. The router assigns
 * ids by the client's indexes and sends each shard {@code stmtIds} with the ids of the statements it got.
 */
public final class StatementIds {
    /** The command field with one id per statement. */
    public static final String STMT_IDS = "stmtIds";
    /** The command field with the id of the first statement. */
    public static final String STMT_ID = "stmtId";

    private StatementIds() {}

    /**
     * The id of every one of {@code count} statements of {@code command}.
     *
     * @throws CommandException TypeMismatch (14) when {@code stmtIds} is not an array of 32-bit integers or
     *                          {@code stmtId} not an integer; InvalidLength (16) when {@code stmtIds} does not have one
     *                          id per statement; BadValue (2) for a negative id; InvalidOptions (72) when both fields
     *                          are given
     */
    public static int[] of(BsonDocument command, int count) {
        BsonValue ids = command.get(STMT_IDS);
        BsonValue first = command.get(STMT_ID);
        if (ids != null && first != null) {
            throw new CommandException(ErrorCode.InvalidOptions, "'stmtId' and 'stmtIds' cannot both be given");
        }
        int[] out = new int[count];
        if (ids != null) {
            if (!ids.isArray()) {
                throw new CommandException(ErrorCode.TypeMismatch, "'stmtIds' must be an array, not " + ids.getBsonType());
            }
            BsonArray array = ids.asArray();
            if (array.size() != count) {
                throw new CommandException(ErrorCode.InvalidLength, "'stmtIds' has " + array.size() + " ids for " + count + " statements");
            }
            for (int i = 0; i < count; i++) {
                out[i] = id(array.get(i), "stmtIds." + i);
            }
            return out;
        }
        int base = first == null ? 0 : id(first, STMT_ID);
        for (int i = 0; i < count; i++) {
            out[i] = base + i;
        }
        return out;
    }

    /** {@code ids} as a command's {@code stmtIds} array. */
    public static BsonArray toBson(int[] ids) {
        BsonArray array = new BsonArray();
        for (int id : ids) {
            array.add(new BsonInt32(id));
        }
        return array;
    }

    private static int id(BsonValue value, String path) {
        if (!value.isInt32()) {
            throw new CommandException(ErrorCode.TypeMismatch, "'" + path + "' must be an int, not " + value.getBsonType());
        }
        if (value.asInt32().getValue() < 0) {
            throw new CommandException(ErrorCode.BadValue, "'" + path + "' must not be negative");
        }
        return value.asInt32().getValue();
    }
}
