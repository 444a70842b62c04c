package dev.shardstore.shard.storage;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.nio.charset.StandardCharsets;

/**
 * A collection namespace {@code db.collection}, validated as MongoDB validates names
 * (InvalidNamespace, 73): a database name is 1 to 63 bytes without {@code / \ . " $}, space or NUL;
 * a collection name is non-empty, has no {@code $} or NUL and does not start with {@code .}; the whole
 * namespace is at most 255 bytes. Names are data, never SQL: tables are named by the catalog.
 *
 * @param db         the database name
 * @param collection the collection name
 */
public record Namespace(String db, String collection) {
    private static final int MAX_DB_NAME_BYTES = 63;
    private static final int MAX_NAMESPACE_BYTES = 255;
    private static final String FORBIDDEN_IN_DB_NAME = "/\\. \"$\0";

    /**
     * @throws CommandException InvalidNamespace (73) naming the offending name
     */
    public Namespace {
        validateDatabaseName(db);
        if (collection == null || collection.isEmpty()) {
            throw invalid("collection names cannot be empty");
        }
        if (collection.indexOf('$') >= 0 || collection.indexOf('\0') >= 0) {
            throw invalid("invalid collection name '" + collection + "': it may not contain '$' or a NUL character");
        }
        if (collection.startsWith(".")) {
            throw invalid("invalid collection name '" + collection + "': it may not start with '.'");
        }
        if ((db + "." + collection).getBytes(StandardCharsets.UTF_8).length > MAX_NAMESPACE_BYTES) {
            throw invalid("namespace '" + db + "." + collection + "' is longer than " + MAX_NAMESPACE_BYTES + " bytes");
        }
    }

    /**
     * Checks a database name (MongoDB's {@code DatabaseName::validate}).
     *
     * @throws CommandException InvalidNamespace (73) for an empty or too long name or a forbidden character
     */
    public static void validateDatabaseName(String db) {
        if (db == null || db.isEmpty()) {
            throw invalid("database names cannot be empty");
        }
        for (int i = 0; i < db.length(); i++) {
            if (FORBIDDEN_IN_DB_NAME.indexOf(db.charAt(i)) >= 0) {
                throw invalid("invalid database name '" + db.replace("\0", "\\0")
                        + "': it may not contain any of / \\ . \" $, a space or a NUL character");
            }
        }
        if (db.getBytes(StandardCharsets.UTF_8).length > MAX_DB_NAME_BYTES) {
            throw invalid("database name '" + db + "' is longer than " + MAX_DB_NAME_BYTES + " bytes");
        }
    }

    private static CommandException invalid(String message) {
        return new CommandException(ErrorCode.InvalidNamespace, message);
    }

    /** {@code db.collection}. */
    public String full() {
        return db + "." + collection;
    }

    @Override
    public String toString() {
        return full();
    }
}
