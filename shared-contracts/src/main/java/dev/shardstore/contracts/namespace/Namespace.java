package dev.shardstore.contracts.namespace;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.nio.charset.StandardCharsets;

/**
 * A collection namespace {@code db.collection}, validated as MongoDB validates names
 * (InvalidNamespace, 73): the database name by {@link DatabaseNames};
 * a collection name is non-empty, has no {@code $} or NUL and does not start with {@code .}; the whole
 * namespace is at most 255 bytes. Shared by every service, so a name one accepts the others accept too.
 *
 * @param db         the database name
 * @param collection the collection name
 */
public record Namespace(String db, String collection) {
    private static final int MAX_NAMESPACE_BYTES = 255;

    /**
     * @throws CommandException InvalidNamespace (73) naming the offending name
     */
    public Namespace {
        DatabaseNames.validate(db);
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
     * Parses {@code db.collection} (the first dot separates the database from the collection).
     *
     * @throws CommandException InvalidNamespace (73) for a string without a database and a collection part, or an
     *                          invalid name
     */
    public static Namespace parse(String full) {
        int dot = full.indexOf('.');
        if (dot <= 0) {
            throw invalid("invalid namespace '" + full + "': expected <database>.<collection>");
        }
        return new Namespace(full.substring(0, dot), full.substring(dot + 1));
    }

    /**
     * Parses {@code db.collection} given in the command field {@code field}.
     *
     * @throws CommandException InvalidNamespace (73) naming {@code field} and the problem
     */
    public static Namespace parse(String value, String field) {
        try {
            return parse(value);
        } catch (CommandException e) {
            throw invalid("'" + field + "' must be a namespace 'db.collection', not '" + value + "': " + e.getMessage());
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
