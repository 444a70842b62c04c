package dev.shardstore.router.command;

import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.error.ErrorReplies;
import dev.shardstore.contracts.sharding.RoutingTable;
import dev.shardstore.router.cursor.RouterCursorManager;
import dev.shardstore.router.routing.CollectionRouting;
import dev.shardstore.router.routing.ConfigServer;
import dev.shardstore.router.routing.RoutingTableCache;
import dev.shardstore.router.routing.VersionedRouter;
import dev.shardstore.support.command.CommandHandler;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Collection DDL through the router: {@code drop}, {@code createIndexes}, {@code dropIndexes}, {@code listIndexes}.
 * Unsharded collections: forwarded to the primary shard, its reply returned as it is. Sharded collections, as
 * mongos does them: {@code drop} is the config service's {@code _configsvrDropCollection} (it drops on every
 * shard and removes the routing table); index commands go to every shard owning chunks plus the primary, the
 * replies merged as mongos' {@code {raw: {<shard>: reply}, ok: 1}} (a shard's error fails the command);
 * {@code listIndexes} reads the primary, or the first owning shard when the primary owns no chunk.
 */
@Configuration
public class CollectionDdlCommands {
    private final VersionedRouter router;
    private final RouterCursorManager cursors;

    public CollectionDdlCommands(VersionedRouter router, RouterCursorManager cursors) {
        this.router = router;
        this.cursors = cursors;
    }

    /**
     * {@code drop}: a missing database answers ok, as MongoDB does for a missing collection. Dropping a sharded
     * time-series collection drops its sharded buckets collection (mongo/src/mongo/db/s/README_timeseries.md "DDL operations").
     */
    @Bean
    CommandHandler drop(ConfigServer config, RoutingTableCache collections) {
        return CommandHandler.of("drop", (opCtx, db, cmd) -> {
            Namespaces.checkUserDatabase(db, "drop");
            String collection = new CommandArgs(cmd).collectionName();
            String ns = db + "." + collection;
            return router.run(opCtx, db, collection, false, routing -> {
                RoutingTable table = routing.table();
                if (table == null) {
                    return checked(router.send(routing, routing.database().primary(), db, cmd));
                }
                // a sharded time-series collection is registered as its buckets collection, which is what is dropped
                String sharded = table.namespace();
                try {
                    config.runLongRunning("admin", new BsonDocument("_configsvrDropCollection", new BsonString(sharded)));
                } finally {
                    collections.markStale(sharded);
                }
                return Replies.ok(new BsonDocument("ns", new BsonString(ns)));
            }).orElseGet(Replies::ok);
        });
    }

    /** {@code createIndexes}: creates the database (and, on the shard, the collection) when missing. */
    @Bean
    CommandHandler createIndexes() {
        return indexCommand("createIndexes", true, Replies::ok);
    }

    /** {@code dropIndexes}: a missing database is NamespaceNotFound (26), as for a missing collection. */
    @Bean
    CommandHandler dropIndexes() {
        return indexCommand("dropIndexes", false, () -> {
            throw new CommandException(ErrorCode.NamespaceNotFound, "ns not found");
        });
    }

    /** {@code listIndexes}: the shard's cursor is adopted like find's. */
    @Bean
    CommandHandler listIndexes() {
        return CommandHandler.of("listIndexes", (opCtx, db, cmd) -> {
            Namespaces.checkUserDatabase(db, "listIndexes");
            String collection = new CommandArgs(cmd).collectionName();
            return router.run(opCtx, db, collection, false, routing -> {
                String shard = indexReader(routing);
                return cursors.adopt(db, collection, shard, checked(router.send(routing, shard, db, cmd)));
            }).orElseThrow(() -> new CommandException(ErrorCode.NamespaceNotFound, "ns does not exist: " + db + "." + collection));
        });
    }

    private CommandHandler indexCommand(String name, boolean createDatabase, Supplier<BsonDocument> whenMissing) {
        return CommandHandler.of(name, (opCtx, db, cmd) -> {
            Namespaces.checkUserDatabase(db, name);
            String collection = new CommandArgs(cmd).collectionName();
            return router.run(opCtx, db, collection, createDatabase, routing -> {
                if (!routing.isSharded()) {
                    return checked(router.send(routing, routing.database().primary(), db, cmd));
                }
                return raw(router.sendAll(routing, indexHolders(routing), db, shard -> cmd));
            }).orElseGet(whenMissing);
        });
    }

    /** The shards owning chunks plus the primary (which keeps the collection's indexes even without chunks). */
    static List<String> indexHolders(CollectionRouting routing) {
        List<String> shards = new ArrayList<>(routing.allShards());
        if (!shards.contains(routing.database().primary())) {
            shards.add(routing.database().primary());
        }
        return shards;
    }

    private static String indexReader(CollectionRouting routing) {
        String primary = routing.database().primary();
        return routing.allShards().contains(primary) ? primary : routing.allShards().get(0);
    }

    /** mongos' merged reply of a command run on several shards; the first shard error (in shard order) is thrown. */
    private static BsonDocument raw(Map<String, BsonDocument> replies) {
        BsonDocument raw = new BsonDocument();
        replies.forEach((shard, reply) -> raw.append(shard, checked(reply)));
        return Replies.ok(new BsonDocument("raw", raw));
    }

    static BsonDocument checked(BsonDocument reply) {
        if (ErrorReplies.isError(reply)) {
            throw ErrorReplies.toException(reply);
        }
        return reply;
    }
}
