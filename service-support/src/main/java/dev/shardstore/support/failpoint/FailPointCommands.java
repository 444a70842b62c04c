package dev.shardstore.support.failpoint;

import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.support.command.CommandHandler;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * MongoDB's test commands over {@link FailPoints}, registered only when {@code shardstore.test-commands.enabled}:
 * <ul>
 *   <li>{@code {configureFailPoint: "<name>", mode: "alwaysOn" | "off" | {times: n}, data: {action: "crash" | "pause"
 *       | "error", errorCode: <int, for error>}}} → {@code {count: <times entered before>, ok: 1}};</li>
 *   <li>{@code {waitForFailPoint: "<name>", timesEntered: n, maxTimeMS: ms}} → {@code {ok: 1}} once the point fired
 *       n times in all, or MaxTimeMSExpired (50).</li>
 * </ul>
 * Both run on {@code admin}, as in MongoDB.
 */
public final class FailPointCommands {
    private FailPointCommands() {}

    /** The two command handlers over {@code failPoints}. */
    public static List<CommandHandler> over(FailPoints failPoints) {
        return List.of(
                CommandHandler.of("configureFailPoint", (db, command) -> configure(failPoints, db, command)),
                CommandHandler.of("waitForFailPoint", (db, command) -> await(failPoints, db, command)));
    }

    private static BsonDocument configure(FailPoints failPoints, String db, BsonDocument command) {
        requireAdmin(db, "configureFailPoint");
        CommandArgs args = new CommandArgs(command);
        String name = args.requiredString("configureFailPoint");
        BsonValue mode = args.required(command, "mode", "mode");
        long times;
        if (mode.isString() && mode.asString().getValue().equals("off")) {
            return reply(failPoints.configure(name, null, 0));
        } else if (mode.isString() && mode.asString().getValue().equals("alwaysOn")) {
            times = Long.MAX_VALUE;
        } else if (mode.isDocument() && mode.asDocument().containsKey("times")) {
            times = args.nonNegative(mode.asDocument().get("times"), "mode.times");
        } else {
            throw new CommandException(ErrorCode.BadValue, "'mode' must be \"alwaysOn\", \"off\" or {times: n}, not " + mode);
        }
        return reply(failPoints.configure(name, action(args.optionalDocument(command, "data", "data")), times));
    }

    private static FailPointAction action(@Nullable BsonDocument data) {
        BsonValue action = data == null ? null : data.get("action");
        if (data == null || action == null || !action.isString()) {
            throw new CommandException(ErrorCode.BadValue, "'data.action' must be \"crash\", \"pause\" or \"error\"");
        }
        return switch (action.asString().getValue().toLowerCase(Locale.ROOT)) {
            case "crash" -> FailPointAction.crash();
            case "pause" -> FailPointAction.pause();
            case "error" -> {
                BsonValue code = data.get("errorCode");
                if (code == null || !code.isNumber()) {
                    throw new CommandException(ErrorCode.BadValue, "'data.errorCode' (a number) goes with action \"error\"");
                }
                yield FailPointAction.error(ErrorCode.ofNumber(code.asNumber().intValue()));
            }
            default -> throw new CommandException(ErrorCode.BadValue,
                    "'data.action' must be \"crash\", \"pause\" or \"error\", not " + action.asString().getValue());
        };
    }

    private static BsonDocument await(FailPoints failPoints, String db, BsonDocument command) {
        requireAdmin(db, "waitForFailPoint");
        CommandArgs args = new CommandArgs(command);
        String name = args.requiredString("waitForFailPoint");
        long times = args.optionalNonNegative("timesEntered", 1);
        long maxTimeMs = args.optionalNonNegative("maxTimeMS", 60_000);
        try {
            if (!failPoints.awaitEntered(name, times, Duration.ofMillis(maxTimeMs))) {
                throw new CommandException(ErrorCode.MaxTimeMSExpired, "fail point " + name + " was entered "
                        + failPoints.timesEntered(name) + " times, not " + times + ", within " + maxTimeMs + " ms");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CommandException(ErrorCode.InternalError, "interrupted while waiting for fail point " + name);
        }
        return Replies.ok();
    }

    private static void requireAdmin(String db, String command) {
        if (!db.equals("admin")) {
            throw new CommandException(ErrorCode.IllegalOperation, command + " may only be run against the admin database");
        }
    }

    private static BsonDocument reply(long count) {
        return Replies.ok(new BsonDocument("count", new BsonInt64(count)));
    }
}
