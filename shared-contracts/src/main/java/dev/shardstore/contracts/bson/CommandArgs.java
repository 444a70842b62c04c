package dev.shardstore.contracts.bson;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * Typed access to command fields with MongoDB-style errors that name the field: a missing required
 * field is FailedToParse (9), a field of the wrong type is TypeMismatch (14).
 */
public final class CommandArgs {
    private CommandArgs() {}

    public static String requireString(BsonDocument command, String field) {
        BsonValue v = require(command, field);
        if (!v.isString()) {
            throw typeMismatch(command, field, "a string", v);
        }
        return v.asString().getValue();
    }

    public static BsonDocument optionalDocument(BsonDocument command, String field) {
        BsonValue v = command.get(field);
        if (v == null || v.isNull()) {
            return new BsonDocument();
        }
        if (!v.isDocument()) {
            throw typeMismatch(command, field, "an object", v);
        }
        return v.asDocument();
    }

    public static BsonValue require(BsonDocument command, String field) {
        BsonValue v = command.get(field);
        if (v == null) {
            throw new CommandException(ErrorCode.FailedToParse,
                    "'" + field + "' is required by the " + commandName(command) + " command");
        }
        return v;
    }

    private static CommandException typeMismatch(BsonDocument command, String field, String expected, BsonValue actual) {
        return new CommandException(ErrorCode.TypeMismatch, "'" + field + "' of the " + commandName(command)
                + " command must be " + expected + ", not " + actual.getBsonType().name().toLowerCase());
    }

    private static String commandName(BsonDocument command) {
        return command.isEmpty() ? "(empty)" : command.getFirstKey();
    }
}
