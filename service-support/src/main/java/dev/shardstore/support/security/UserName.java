package dev.shardstore.support.security;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import org.bson.BsonDocument;
import org.bson.BsonString;

/**
 * A user and its authentication database: {@code {user: "alice", db: "admin"}}; {@code admin.system.users}'s
 * {@code _id} is {@code "<db>.<user>"}.
 *
 * @param user the user's name, not blank
 * @param db   the database it authenticates on, not blank
 */
public record UserName(String user, String db) {
    public UserName {
        if (user == null || user.isBlank() || db == null || db.isBlank()) {
            throw new CommandException(ErrorCode.BadValue, "a user has a name and a database");
        }
    }

    /** {@code admin.system.users}' {@code _id}: {@code "<db>.<user>"}. */
    public String id() {
        return db + "." + user;
    }

    /** {@code {user, db}}. */
    public BsonDocument toBson() {
        return new BsonDocument("user", new BsonString(user)).append("db", new BsonString(db));
    }

    /** {@code user@db}, as MongoDB's messages write it. */
    @Override
    public String toString() {
        return user + "@" + db;
    }
}
