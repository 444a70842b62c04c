package dev.shardstore.shard.versioning;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.error.ErrorReplies;
import dev.shardstore.contracts.version.DatabaseVersion;
import dev.shardstore.shard.ShardProperties;
import dev.shardstore.support.ServiceSupportProperties;
import dev.shardstore.transport.http.CommandClient;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.springframework.stereotype.Component;

/**
 * Reads a database's entry from the config service's routing table:
 * {@code {_configsvrGetDatabase: <db>}} on {@code admin} answers
 * {@code {ok: 1, database: {_id, primary: <shard>, version: {uuid, lastMod, timestamp}}}}, or
 * NamespaceNotFound (26) when the database does not exist.
 */
@Component
public class ConfigDatabaseLookup {
    private final CommandClient client;
    private final String configUrl;
    private final String shardName;

    public ConfigDatabaseLookup(CommandClient client, ServiceSupportProperties support, ShardProperties shard) {
        this.client = client;
        this.configUrl = support.configUrl();
        this.shardName = shard.name();
    }

    /**
     * This shard's filtering information for {@code db}; {@link DatabaseFilteringInfo#NO_DATABASE}
     * when the config service does not know the database.
     *
     * @throws CommandException the config service's error, or HostUnreachable/NetworkTimeout when it
     *                          does not answer, or InternalError for a reply without a valid entry
     */
    public DatabaseFilteringInfo lookup(String db) {
        BsonDocument reply = client.run("config", configUrl, "admin", new BsonDocument("_configsvrGetDatabase", new BsonString(db)));
        if (ErrorReplies.isError(reply)) {
            CommandException error = ErrorReplies.toException(reply);
            if (error.code() == ErrorCode.NamespaceNotFound) {
                return DatabaseFilteringInfo.NO_DATABASE;
            }
            throw error;
        }
        try {
            BsonDocument entry = reply.getDocument("database");
            DatabaseVersion version = DatabaseVersion.fromBson(entry.getDocument("version"));
            return new DatabaseFilteringInfo(version, shardName.equals(entry.getString("primary").getValue()));
        } catch (RuntimeException e) {
            throw new CommandException(ErrorCode.InternalError,
                    "the config service answered _configsvrGetDatabase for '" + db + "' without a valid database entry: "
                            + reply.toJson(), e);
        }
    }
}
