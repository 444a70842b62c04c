package dev.shardstore.support.catalog;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.version.DatabaseVersion;
import java.util.Objects;
import java.util.Optional;
import org.bson.BsonDocument;
import org.bson.BsonString;

/**
 * Loads a database's entry from the config service, for the router's database cache and the shard's database sharding
 * state alike: {@code {_configsvrGetDatabase: <db>}} (or {@code _configsvrCreateDatabase}) on {@code admin} answers
 * {@code {ok: 1, database: {_id, primary: <shard>, version: {uuid, lastMod, timestamp}}}}; {@code _configsvrGetDatabase}
 * answers NamespaceNotFound (26) when the database does not exist. Not retried: a caller that cannot reach the config
 * service gets the error at once (a shard's StaleDbVersion or a client's retry is the next attempt). Stateless and
 * thread-safe.
 */
public final class DatabaseLoader {
    private final ConfigCommands config;

    public DatabaseLoader(ConfigCommands config) {
        this.config = Objects.requireNonNull(config, "config");
    }

    /**
     * The entry of {@code db}; empty when the config service does not know the database.
     *
     * @throws CommandException the config service's error, HostUnreachable / NetworkTimeout when it does not answer, or
     *                          InternalError for a reply without a valid entry
     */
    public Optional<DatabaseEntry> lookup(String db) {
        try {
            return Optional.of(entryOf(db, "_configsvrGetDatabase"));
        } catch (CommandException e) {
            if (e.code() == ErrorCode.NamespaceNotFound) {
                return Optional.empty();
            }
            throw e;
        }
    }

    /**
     * The entry of {@code db}, which the config service creates (with a primary of its choosing) when it does not exist.
     *
     * @throws CommandException as {@link #lookup}
     */
    public DatabaseEntry create(String db) {
        return entryOf(db, "_configsvrCreateDatabase");
    }

    private DatabaseEntry entryOf(String db, String commandName) {
        BsonDocument reply = config.run(new BsonDocument(commandName, new BsonString(db)));
        try {
            BsonDocument entry = reply.getDocument("database");
            return new DatabaseEntry(entry.getString("_id").getValue(), entry.getString("primary").getValue(),
                    DatabaseVersion.fromBson(entry.getDocument("version")));
        } catch (RuntimeException e) {
            throw new CommandException(ErrorCode.InternalError, "the config service answered " + commandName + " for '" + db
                    + "' without a valid database entry: " + reply.toJson(), e);
        }
    }
}
