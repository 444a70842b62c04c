package dev.shardstore.support.command;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * The {@code maxTimeMS} command argument (MongoDB manual "cursor.maxTimeMS()"): its one parser, for the router and the
 * shards alike. {@link CommandRegistry} turns it into the operation's
 * {@link dev.shardstore.support.operation.Deadline}; a cursor opened under a limit spends what is left of it over its
 * getMores, as MongoDB applies {@code maxTimeMS} cumulatively to a cursor.
 */
public final class MaxTimeMS {
    /** The command argument. */
    public static final String FIELD = "maxTimeMS";

    private MaxTimeMS() {}

    /**
     * The {@code maxTimeMS} of {@code command} in milliseconds, 0 when absent (no limit).
     *
     * @throws CommandException BadValue (2) when it is not a whole number from 0 to 2^31 - 1 (MongoDB's range), or when a
     *                          {@code getMore} carries one: a getMore spends its cursor's limit, and MongoDB accepts
     *                          its own {@code maxTimeMS} only on tailable awaitData cursors, which do not exist here
     */
    public static long millisOf(BsonDocument command) {
        BsonValue value = command.get(FIELD);
        if (value == null) {
            return 0;
        }
        long ms = millis(command.getFirstKey() + "." + FIELD, value);
        if (ms > 0 && command.getFirstKey().equals("getMore")) {
            throw new CommandException(ErrorCode.BadValue, "cannot set maxTimeMS on getMore command for a non-awaitData cursor:"
                    + " the find or aggregate's maxTimeMS limits the whole cursor");
        }
        return ms;
    }

    /**
     * A {@code maxTimeMS} value in milliseconds.
     *
     * @param path the option as the error names it, e.g. {@code find.maxTimeMS}
     * @throws CommandException BadValue (2) when it is not a whole number from 0 to 2^31 - 1 (MongoDB's range)
     */
    public static long millis(String path, BsonValue value) {
        double ms = value.isNumber() ? value.asNumber().doubleValue() : Double.NaN;
        if (!(ms >= 0 && ms <= Integer.MAX_VALUE && ms == Math.rint(ms))) {
            throw new CommandException(ErrorCode.BadValue, "'" + path + "' must be a whole number of milliseconds from 0 to "
                    + Integer.MAX_VALUE + ", not " + value);
        }
        return (long) ms;
    }
}
