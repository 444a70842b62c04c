package dev.shardstore.router.routing;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.router.peer.PeerClient;
import dev.shardstore.support.ServiceSupportProperties;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.springframework.stereotype.Component;

/** The router's calls to the config service (internal command API, {@code _configsvr*} commands). */
@Component
public class ConfigServer {
    private static final String PEER = "config";
    private final PeerClient client;
    private final LongRunningClient longRunning;
    private final String url;

    public ConfigServer(PeerClient client, LongRunningClient longRunning, ServiceSupportProperties properties) {
        this.client = client;
        this.longRunning = longRunning;
        this.url = properties.configUrl();
    }

    /** The database's catalog entry, created by the config service if needed. */
    public BsonDocument createDatabase(String db) {
        return run("admin", new BsonDocument("_configsvrCreateDatabase", new BsonString(db))).getDocument("database");
    }

    /** {@code listShards} reply. */
    public BsonDocument listShards() {
        return run("admin", new BsonDocument("listShards", new BsonInt32(1)));
    }

    /**
     * The documents of {@code config.<collection>} matching {@code filter} (a find's filter, run by the config
     * service), read to the end of its cursor.
     *
     * @throws CommandException the config service's error (BadValue for a bad filter, for example)
     */
    public List<BsonDocument> find(String collection, BsonDocument filter) {
        List<BsonDocument> documents = new ArrayList<>();
        BsonDocument cursor = run("config", new BsonDocument("find", new BsonString(collection)).append("filter", filter))
                .getDocument("cursor");
        BsonArray batch = cursor.getArray("firstBatch");
        while (true) {
            batch.forEach(v -> documents.add(v.asDocument()));
            long id = cursor.getNumber("id").longValue();
            if (id == 0) {
                return documents;
            }
            cursor = run("config", new BsonDocument("getMore", new BsonInt64(id)).append("collection", new BsonString(collection)))
                    .getDocument("cursor");
            batch = cursor.getArray("nextBatch");
        }
    }

    /** Runs any command on the config service and returns its successful reply. */
    public BsonDocument run(String db, BsonDocument command) {
        return client.runChecked(PEER, url, db, command);
    }

    /**
     * Runs a command that answers when its cluster operation is over (a DDL coordinator, a migration) and returns its
     * successful reply; its reply may stay silent up to the migration timeout ({@link LongRunningClient}).
     */
    public BsonDocument runLongRunning(String db, BsonDocument command) {
        return longRunning.runChecked(PEER, url, db, command);
    }
}
