package dev.shardstore.shard.versioning;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.error.ErrorReplies;
import dev.shardstore.contracts.sharding.Chunk;
import dev.shardstore.contracts.sharding.RoutingTable;
import dev.shardstore.contracts.sharding.ShardedCollection;
import dev.shardstore.support.ServiceSupportProperties;
import dev.shardstore.transport.http.CommandClient;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;
import org.springframework.stereotype.Component;

/**
 * Reads a collection's routing table from the config service (docs/sharding-protocol.md):
 * {@code {_configsvrGetRoutingTable: "db.coll", sinceVersion?}} on {@code admin} answers
 * {@code {ok: 1, collection: <config.collections entry> | null, chunks: [...], full: bool}}.
 *
 * <p>With a previous table, asks only for the chunks newer than its collection version and applies them
 * ({@link RoutingTable#withChanges}); a full answer (the epoch changed), a collection of another epoch or changes
 * that do not fit the previous table replace it by a table built from scratch (reference: "Types of refreshes").
 */
@Component
public class ConfigRoutingTableLookup {
    private final CommandClient client;
    private final String configUrl;

    public ConfigRoutingTableLookup(CommandClient client, ServiceSupportProperties support) {
        this.client = client;
        this.configUrl = support.configUrl();
    }

    /**
     * The current filtering information of {@code namespace}, refreshed from {@code previous} when given.
     *
     * @throws CommandException the config service's error, HostUnreachable/NetworkTimeout when it does not answer,
     *                          or InternalError for a reply that is not a valid routing table
     */
    public CollectionFilteringInfo lookup(String namespace, @Nullable CollectionFilteringInfo previous) {
        RoutingTable known = previous == null ? null : previous.routingTable();
        if (known != null) {
            BsonDocument reply = ask(namespace, known);
            try {
                ShardedCollection collection = collectionOf(reply);
                if (collection == null) {
                    return CollectionFilteringInfo.UNSHARDED;
                }
                if (!reply.getBoolean("full").getValue() && collection.epoch().equals(known.collection().epoch())
                        && collection.timestamp().equals(known.collection().timestamp())) {
                    return new CollectionFilteringInfo(known.withChanges(chunksOf(reply)).withCollection(collection));
                }
                if (reply.getBoolean("full").getValue()) {
                    return new CollectionFilteringInfo(RoutingTable.of(collection, chunksOf(reply)));
                }
            } catch (RuntimeException e) {
                // the changes do not fit the cached table (or the answer is malformed): start over with a full refresh
            }
        }
        BsonDocument reply = ask(namespace, null);
        try {
            ShardedCollection collection = collectionOf(reply);
            return collection == null ? CollectionFilteringInfo.UNSHARDED
                    : new CollectionFilteringInfo(RoutingTable.of(collection, chunksOf(reply)));
        } catch (RuntimeException e) {
            throw new CommandException(ErrorCode.InternalError, "the config service answered _configsvrGetRoutingTable for '"
                    + namespace + "' without a valid routing table: " + e.getMessage(), e);
        }
    }

    private BsonDocument ask(String namespace, @Nullable RoutingTable since) {
        BsonDocument command = new BsonDocument("_configsvrGetRoutingTable", new BsonString(namespace));
        if (since != null) {
            command.append("sinceVersion", since.collectionVersion().toBson());
        }
        BsonDocument reply = client.run("config", configUrl, "admin", command);
        if (ErrorReplies.isError(reply)) {
            throw ErrorReplies.toException(reply);
        }
        return reply;
    }

    private static @Nullable ShardedCollection collectionOf(BsonDocument reply) {
        BsonValue entry = reply.get("collection");
        return entry == null || entry.isNull() ? null : ShardedCollection.fromBson(entry.asDocument());
    }

    private static List<Chunk> chunksOf(BsonDocument reply) {
        return reply.getArray("chunks").stream().map(c -> Chunk.fromBson(c.asDocument())).toList();
    }
}
