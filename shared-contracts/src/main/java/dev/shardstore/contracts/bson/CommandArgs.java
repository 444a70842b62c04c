package dev.shardstore.contracts.bson;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * Typed reads of one command document's fields, with MongoDB-style errors that name the field by
 * its path ({@code documents.3}, {@code updates.0.q}): a missing required field is FailedToParse (9),
 * a value of the wrong type TypeMismatch (14), a value out of range BadValue (2).
 */
public final class CommandArgs {
    /** MongoDB's maxWriteBatchSize. */
    public static final int MAX_WRITE_BATCH = 100_000;

    private final BsonDocument command;
    private final String commandName;

    /**
     * @param command a non-empty command document; its first key is the command name
     */
    public CommandArgs(BsonDocument command) {
        this.command = command;
        this.commandName = command.getFirstKey();
    }

    /**
     * The collection name in the command's first field, unvalidated (cursor namespaces such as
     * {@code $cmd.listCollections} are not collection names).
     *
     * @throws CommandException TypeMismatch when it is not a string
     */
    public String collectionName() {
        BsonValue name = command.values().iterator().next();
        if (!name.isString()) {
            throw typeMismatch(commandName, "a collection name string", name);
        }
        return name.asString().getValue();
    }

    /** Field {@code field} of {@code doc}, named {@code path} in errors; FailedToParse when absent. */
    public BsonValue required(BsonDocument doc, String field, String path) {
        BsonValue value = doc.get(field);
        if (value == null) {
            throw new CommandException(ErrorCode.FailedToParse, "'" + path + "' is required by the " + commandName + " command");
        }
        return value;
    }

    /** A required string field of the command. */
    public String requiredString(String field) {
        BsonValue value = required(command, field, field);
        if (!value.isString()) {
            throw typeMismatch(field, "a string", value);
        }
        return value.asString().getValue();
    }

    /** A required UUID field of the command (BinData subtype 4, as drivers send a UUID); TypeMismatch for anything else. */
    public java.util.UUID requiredUuid(String field) {
        BsonValue value = required(command, field, field);
        if (!value.isBinary() || value.asBinary().getType() != org.bson.BsonBinarySubType.UUID_STANDARD.getValue()) {
            throw typeMismatch(field, "a UUID", value);
        }
        return value.asBinary().asUuid(org.bson.UuidRepresentation.STANDARD);
    }

    /** A required array field of the command. */
    public BsonArray requiredArray(String field) {
        BsonValue value = required(command, field, field);
        if (!value.isArray()) {
            throw typeMismatch(field, "an array", value);
        }
        return value.asArray();
    }

    /**
     * A required array of write statements or documents: 1 to {@value #MAX_WRITE_BATCH} entries
     * (MongoDB's {@code maxWriteBatchSize}).
     *
     * @throws CommandException InvalidLength (16) for an empty or too large batch
     */
    public BsonArray requiredBatch(String field) {
        BsonArray batch = requiredArray(field);
        if (batch.isEmpty() || batch.size() > MAX_WRITE_BATCH) {
            throw new CommandException(ErrorCode.InvalidLength, "Write batch sizes must be between 1 and "
                    + MAX_WRITE_BATCH + ". Got " + batch.size() + " operations in '" + field + "'.");
        }
        return batch;
    }

    /** {@code value} as a document; TypeMismatch {@code "<path> is not a document"} otherwise. */
    public BsonDocument document(BsonValue value, String path) {
        if (!value.isDocument()) {
            throw new CommandException(ErrorCode.TypeMismatch, path + " is not a document but " + typeName(value)
                    + " in the " + commandName + " command");
        }
        return value.asDocument();
    }

    /** An optional document field of {@code doc}; {@code {}} when absent or null. */
    public BsonDocument optionalDocument(BsonDocument doc, String field, String path) {
        BsonValue value = doc.get(field);
        return value == null || value.isNull() ? new BsonDocument() : document(value, path);
    }

    /** An optional boolean field of {@code doc}; numbers count as booleans (non-zero is true), as MongoDB accepts. */
    public boolean optionalBoolean(BsonDocument doc, String field, String path, boolean defaultValue) {
        BsonValue value = doc.get(field);
        if (value == null || value.isNull()) {
            return defaultValue;
        }
        if (value.isBoolean()) {
            return value.asBoolean().getValue();
        }
        if (value.isNumber()) {
            return value.asNumber().doubleValue() != 0;
        }
        throw typeMismatch(path, "a boolean", value);
    }

    /**
     * An optional whole non-negative number field of the command (int, long, or a double without a fraction).
     *
     * @throws CommandException TypeMismatch for a non-number, BadValue for a fraction or a negative value
     */
    public long optionalNonNegative(String field, long defaultValue) {
        BsonValue value = command.get(field);
        if (value == null || value.isNull()) {
            return defaultValue;
        }
        return nonNegative(value, field);
    }

    /** {@code value} as a whole non-negative number, named {@code path} in errors. */
    public long nonNegative(BsonValue value, String path) {
        if (!value.isNumber()) {
            throw typeMismatch(path, "a number", value);
        }
        double asDouble = value.asNumber().doubleValue();
        long asLong = value.asNumber().longValue();
        if (value.isDouble() && asDouble != Math.rint(asDouble) || asLong < 0) {
            throw new CommandException(ErrorCode.BadValue, "'" + path + "' of the " + commandName
                    + " command must be a whole number >= 0, not " + (value.isDouble() ? asDouble : asLong));
        }
        return asLong;
    }

    private CommandException typeMismatch(String path, String expected, BsonValue actual) {
        return new CommandException(ErrorCode.TypeMismatch, "'" + path + "' of the " + commandName
                + " command must be " + expected + ", not " + typeName(actual));
    }

    private static String typeName(BsonValue value) {
        return value.getBsonType().name().toLowerCase();
    }
}
