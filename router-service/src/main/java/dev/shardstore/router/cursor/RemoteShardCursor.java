package dev.shardstore.router.cursor;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorReplies;
import dev.shardstore.router.peer.PeerClient;
import dev.shardstore.router.routing.ShardRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A cursor open on a shard, continued with {@code getMore} and ended with {@code killCursors} over the internal
 * API. getMore carries no version: a cursor stays pinned to the shard that opened it, as in mongos.
 */
final class RemoteShardCursor implements ShardCursor {
    private static final Logger log = LoggerFactory.getLogger(RemoteShardCursor.class);

    private final PeerClient client;
    private final BsonDocument sessionFields;
    private final ShardRegistry shards;
    private final String shardId;
    private final String db;
    private final String collection;
    private final boolean forwarding;
    private long id;

    /**
     * @param collection the collection part of the cursor's namespace (as the shard's reply named it)
     * @param id         the shard's cursor id; 0 for a cursor the shard already closed
     * @param forwarding whether getMore batches stay raw, read-only documents ({@link PeerClient#runForwarding})
     * @param sessionFields what each getMore carries of the transaction the cursor was opened in ({@code lsid},
     *                   {@code txnNumber}, {@code autocommit: false}), so the shard reads its later batches in it too;
     *                   {@code {}} outside a transaction
     */
    RemoteShardCursor(PeerClient client, ShardRegistry shards, String shardId, String db, String collection, long id, boolean forwarding,
            BsonDocument sessionFields) {
        this.sessionFields = sessionFields.clone();
        this.client = Objects.requireNonNull(client, "client");
        this.shards = Objects.requireNonNull(shards, "shards");
        this.shardId = Objects.requireNonNull(shardId, "shardId");
        this.db = Objects.requireNonNull(db, "db");
        this.collection = Objects.requireNonNull(collection, "collection");
        this.id = id;
        this.forwarding = forwarding;
    }

    @Override
    public String shardId() {
        return shardId;
    }

    @Override
    public boolean exhausted() {
        return id == 0;
    }

    @Override
    public List<BsonDocument> getMore(int batchSize) {
        BsonDocument command = new BsonDocument("getMore", new BsonInt64(id)).append("collection", new BsonString(collection));
        if (batchSize > 0) {
            command.append("batchSize", new BsonInt32(batchSize));
        }
        command.putAll(sessionFields);
        BsonDocument reply;
        try {
            reply = forwarding ? ErrorReplies.requireOk(client.runForwarding(shardId, shards.hostOf(shardId), db, command))
                    : client.runChecked(shardId, shards.hostOf(shardId), db, command);
        } catch (CommandException e) {
            id = 0;
            throw e;
        }
        BsonDocument cursor = reply.getDocument("cursor");
        id = cursor.getNumber("id").longValue();
        return documents(cursor.getArray("nextBatch"));
    }

    @Override
    public void kill() {
        if (id == 0) {
            return;
        }
        BsonDocument kill = new BsonDocument("killCursors", new BsonString(collection))
                .append("cursors", new BsonArray(List.of(new BsonInt64(id))));
        id = 0;
        try {
            BsonDocument reply = client.run(shardId, shards.hostOf(shardId), db, kill);
            if (ErrorReplies.isError(reply)) {
                log.debug("shard {} refused to kill a cursor of {}.{}: {}", shardId, db, collection, reply.toJson());
            }
        } catch (CommandException e) {
            log.debug("could not kill a cursor of {}.{} on {}: {}", db, collection, shardId, e.getMessage());
        }
    }

    /** The documents of a batch array. */
    static List<BsonDocument> documents(BsonArray batch) {
        List<BsonDocument> out = new ArrayList<>(batch.size());
        for (BsonValue v : batch) {
            out.add(v.asDocument());
        }
        return out;
    }
}
