package dev.shardstore.support.command;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.util.Map;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * A command's {@code writeConcern: {w?, j?, fsync?, wtimeout?}} (MongoDB manual, "Write Concern"), checked against what
 * a shard of this cluster is: one PostgreSQL primary, one copy of each document, no replica set configuration.
 *
 * <ul>
 *   <li>{@code w}: 0, 1 and {@code "majority"} are satisfied by the one copy (a majority of one node is that node).
 *       A number above 1 is UnsatisfiableWriteConcern (100), as MongoDB answers when the replica set has fewer
 *       data-bearing nodes; any other string is UnknownReplWriteConcern (79), as MongoDB answers a tag (write concern
 *       mode) its replica set configuration does not define, and here none defines any. Both are refused before
 *       anything is written.</li>
 *   <li>{@code j} and {@code fsync} (a boolean or a number, MongoDB's spelling): true asks for the commit to be on disk
 *       before the reply; {@link #journaled()} says so, and the shard refuses it when its PostgreSQL does not flush
 *       commits (the fast setting).</li>
 *   <li>{@code wtimeout} (ms, a number, 0 = none) bounds MongoDB's wait for other members to acknowledge. With one copy
 *       nothing waits after the commit, so a write never exceeds it: it is honoured trivially.</li>
 * </ul>
 *
 * @param journaled whether {@code j} or {@code fsync} asks for the commit to be flushed before the reply
 */
public record WriteConcern(boolean journaled) {
    /** The field of a command that carries it. */
    public static final String FIELD = "writeConcern";

    /** No {@code writeConcern}: the default, {@code w: 1} without {@code j}. */
    public static final WriteConcern DEFAULT = new WriteConcern(false);

    /**
     * The write concern of {@code command} ({@link #DEFAULT} without one).
     *
     * @throws CommandException as {@link #parse}
     */
    public static WriteConcern of(BsonDocument command) {
        BsonValue value = command.get(FIELD);
        return value == null ? DEFAULT : parse(command.getFirstKey() + "." + FIELD, value);
    }

    /**
     * Parses a {@code writeConcern} value.
     *
     * @param path the option as errors name it, e.g. {@code insert.writeConcern}
     * @throws CommandException TypeMismatch (14) when it is not a document or a field has the wrong type;
     *                          UnsatisfiableWriteConcern (100) for {@code w} above 1; UnknownReplWriteConcern (79) for a
     *                          tag; FailedToParse (9) for a negative {@code w} or {@code wtimeout}; Location40415
     *                          for an unknown field
     */
    public static WriteConcern parse(String path, BsonValue value) {
        if (!value.isDocument()) {
            throw new CommandException(ErrorCode.TypeMismatch, "'" + path + "' must be a document, not " + json(value));
        }
        boolean journaled = false;
        for (Map.Entry<String, BsonValue> field : value.asDocument().entrySet()) {
            BsonValue v = field.getValue();
            String at = path + "." + field.getKey();
            switch (field.getKey()) {
                case "w" -> checkW(at, v);
                case "j", "fsync" -> journaled |= flag(at, v);
                case "wtimeout", "wtimeoutMS" -> {
                    if (!v.isNumber()) {
                        throw new CommandException(ErrorCode.TypeMismatch, "'" + at + "' must be a number of milliseconds, not " + json(v));
                    }
                    if (v.asNumber().doubleValue() < 0) {
                        throw new CommandException(ErrorCode.FailedToParse, "'" + at + "' must not be negative, was " + json(v));
                    }
                }
                case "provenance" -> { }
                default -> throw new CommandException(ErrorCode.Location40415, "BSON field '" + at + "' is an unknown field.");
            }
        }
        return new WriteConcern(journaled);
    }

    private static void checkW(String path, BsonValue w) {
        if (w.isNumber()) {
            double copies = w.asNumber().doubleValue();
            if (copies < 0 || copies != Math.rint(copies)) {
                throw new CommandException(ErrorCode.FailedToParse, "'" + path + "' must be a whole number of copies from 0, was " + json(w));
            }
            if (copies > 1) {
                throw new CommandException(ErrorCode.UnsatisfiableWriteConcern, "Not enough data-bearing nodes: " + path + " "
                        + json(w) + " asks for more copies than a shard has; each shard is one PostgreSQL primary (w: 0, 1 or \"majority\")");
            }
        } else if (w.isString()) {
            String mode = w.asString().getValue();
            if (!mode.equals("majority")) {
                throw new CommandException(ErrorCode.UnknownReplWriteConcern, "No write concern mode named '" + mode
                        + "' found in replica set configuration: shards are single PostgreSQL primaries and define no tags ("
                        + path + ": 0, 1 or \"majority\")");
            }
        } else {
            throw new CommandException(ErrorCode.TypeMismatch, "'" + path + "' must be a number or a string, not " + json(w));
        }
    }

    private static boolean flag(String path, BsonValue v) {
        if (v.isBoolean()) {
            return v.asBoolean().getValue();
        }
        if (v.isNumber()) {
            return v.asNumber().doubleValue() != 0;
        }
        throw new CommandException(ErrorCode.TypeMismatch, "'" + path + "' must be a boolean, not " + json(v));
    }

    private static String json(BsonValue value) {
        return CommandOptions.json(value);
    }
}
