package dev.shardstore.config.sharding;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.namespace.DatabaseNames;
import java.util.Objects;

/**
 * A collection namespace {@code db.coll}: the database is everything before the first dot (a valid database name),
 * the collection the rest (non-empty).
 *
 * @param db         the database name
 * @param collection the collection name
 */
public record Namespace(String db, String collection) {
    public Namespace {
        DatabaseNames.validate(db);
        if (Objects.requireNonNull(collection, "collection").isEmpty()) {
            throw new CommandException(ErrorCode.InvalidNamespace, "collection names cannot be empty");
        }
    }

    /**
     * Parses {@code db.coll}.
     *
     * @param field the command field it came from, named in errors
     * @throws CommandException InvalidNamespace naming {@code field} when it is not {@code db.coll} with a valid database name
     */
    public static Namespace parse(String value, String field) {
        int dot = value.indexOf('.');
        try {
            if (dot < 0) {
                throw new CommandException(ErrorCode.InvalidNamespace, "it has no '.'");
            }
            return new Namespace(value.substring(0, dot), value.substring(dot + 1));
        } catch (CommandException e) {
            throw new CommandException(ErrorCode.InvalidNamespace, "'" + field + "' must be a namespace 'db.collection', not '"
                    + value + "': " + e.getMessage());
        }
    }

    @Override
    public String toString() {
        return db + "." + collection;
    }
}
