package dev.shardstore.contracts.session;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * The statement ids a command gives its statements (mongo/src/mongo/db/s/README.md "Retryable writes"; MongoDB's
 * {@code write_ops::getStmtIdForWriteAt}): statement {@code i} of a batch has id {@code ids[i]} when the command carries
 * {@code stmtIds}, else {@code first + i} ({@code stmtId}, 0 by default). The router assigns ids by the client's
 * indexes and sends each shard {@code stmtIds} with the ids of the statements it got. Parsed with the command's
 * other session fields ({@link OperationSessionInfo#statementIds}), so they travel in the operation's context.
 *
 * @param ids   the {@code stmtIds}, or null when the command has none
 * @param first the {@code stmtId} (0 without one); unused with {@code ids}
 */
public record StatementIds(@Nullable List<Integer> ids, int first) {
    /** The command field with one id per statement. */
    public static final String STMT_IDS = "stmtIds";
    /** The command field with the id of the first statement. */
    public static final String STMT_ID = "stmtId";
    /** A command without either field: statement {@code i} has id {@code i}. */
    public static final StatementIds DEFAULT = new StatementIds(null, 0);

    public StatementIds {
        if (first < 0 || ids != null && ids.stream().anyMatch(id -> id < 0)) {
            throw new IllegalArgumentException("statement ids are not negative");
        }
        ids = ids == null ? null : List.copyOf(ids);
    }

    /**
     * The statement ids of {@code command}.
     *
     * @throws CommandException TypeMismatch (14) when {@code stmtIds} is not an array of 32-bit integers or
     *                          {@code stmtId} not an integer; BadValue (2) for a negative id; InvalidOptions (72) when
     *                          both fields are given
     */
    public static StatementIds parse(BsonDocument command) {
        BsonValue ids = command.get(STMT_IDS);
        BsonValue first = command.get(STMT_ID);
        if (ids != null && first != null) {
            throw new CommandException(ErrorCode.InvalidOptions, "'stmtId' and 'stmtIds' cannot both be given");
        }
        if (ids != null) {
            if (!ids.isArray()) {
                throw new CommandException(ErrorCode.TypeMismatch, "'stmtIds' must be an array, not " + ids.getBsonType());
            }
            List<Integer> parsed = new ArrayList<>();
            BsonArray array = ids.asArray();
            for (int i = 0; i < array.size(); i++) {
                parsed.add(id(array.get(i), "stmtIds." + i));
            }
            return new StatementIds(parsed, 0);
        }
        return first == null ? DEFAULT : new StatementIds(null, id(first, STMT_ID));
    }

    /**
     * The id of every one of {@code count} statements.
     *
     * @throws CommandException InvalidLength (16) when {@code stmtIds} does not have one id per statement
     */
    public int[] of(int count) {
        int[] out = new int[count];
        List<Integer> explicit = ids;
        if (explicit != null) {
            if (explicit.size() != count) {
                throw new CommandException(ErrorCode.InvalidLength, "'stmtIds' has " + explicit.size() + " ids for " + count + " statements");
            }
            for (int i = 0; i < count; i++) {
                out[i] = explicit.get(i);
            }
            return out;
        }
        for (int i = 0; i < count; i++) {
            out[i] = first + i;
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
