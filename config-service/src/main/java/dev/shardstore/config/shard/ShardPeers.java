package dev.shardstore.config.shard;

import dev.shardstore.contracts.http.CommandClient;
import dev.shardstore.contracts.http.InternalApi;
import dev.shardstore.contracts.version.DatabaseVersion;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.springframework.stereotype.Component;

/** The config service's calls to shards, over the internal command API. */
@Component
public class ShardPeers {
    private final CommandClient client;

    public ShardPeers(CommandClient client) {
        this.client = client;
    }

    /**
     * Asks the shard at {@code host} for its configured name ({@code _shardsvrName}).
     *
     * @throws dev.shardstore.contracts.error.CommandException HostUnreachable/NetworkTimeout when it does not answer
     */
    public String name(String host) {
        return client.runChecked("the shard", host, "admin", new BsonDocument("_shardsvrName", new BsonInt32(1)))
                .getString("name").getValue();
    }

    /** The shard's total data size in bytes ({@code listDatabases.totalSize}). */
    public long totalSize(String shardId, String host) {
        return client.runChecked(shardId, host, "admin", new BsonDocument("listDatabases", new BsonInt32(1)))
                .getNumber("totalSize").longValue();
    }

    /**
     * Drops every collection of {@code db} on that shard, naming the version being dropped so the shard
     * refuses stale routers until the catalog entry is gone.
     */
    public void dropDatabase(String shardId, String host, String db, DatabaseVersion version) {
        client.runChecked(shardId, host, db, new BsonDocument("dropDatabase", new BsonInt32(1))
                .append(InternalApi.DATABASE_VERSION_FIELD, version.toBson()));
    }
}
