package dev.shardstore.support.security;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;

/**
 * A role and the database it is defined on: {@code {role: "readWrite", db: "shop"}}.
 *
 * @param role the role's name, not blank
 * @param db   its database, not blank
 */
public record RoleName(String role, String db) {
    public RoleName {
        if (role == null || role.isBlank() || db == null || db.isBlank()) {
            throw new CommandException(ErrorCode.BadValue, "a role has a name and a database");
        }
    }

    /** {@code {role, db}}. */
    public BsonDocument toBson() {
        return new BsonDocument("role", new BsonString(role)).append("db", new BsonString(db));
    }

    /**
     * A role as commands name one: {@code {role, db}}, or a bare name meaning that role on {@code defaultDb}.
     *
     * @throws CommandException FailedToParse (9) for another shape
     */
    public static RoleName parse(BsonValue value, String defaultDb) {
        if (value.isString()) {
            return new RoleName(value.asString().getValue(), defaultDb);
        }
        if (value.isDocument() && value.asDocument().isString("role") && value.asDocument().isString("db")) {
            return new RoleName(value.asDocument().getString("role").getValue(), value.asDocument().getString("db").getValue());
        }
        throw new CommandException(ErrorCode.FailedToParse, "a role is a name or {role: <string>, db: <string>}, was " + value);
    }

    /** {@code role@db}, as MongoDB's messages write it. */
    @Override
    public String toString() {
        return role + "@" + db;
    }
}
