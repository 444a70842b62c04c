package dev.shardstore.router.command;

import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.sharding.RoutingTable;
import dev.shardstore.router.routing.ConfigServer;
import dev.shardstore.router.routing.RoutingTableCache;
import dev.shardstore.router.routing.VersionedRouter;
import dev.shardstore.support.command.CommandHandler;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * MongoDB's {@code collMod} through the router: {@code {collMod: <coll>, timeseries?: {granularity} |
 * {bucketMaxSpanSeconds, bucketRoundingSeconds}, expireAfterSeconds?: <seconds> | "off"}} → {@code {ok: 1}} (the
 * other options MongoDB documents are refused naming them by the command option table). An unsharded collection's
 * command goes to the primary shard. On a sharded time-series collection (mongo/src/mongo/db/s/README_timeseries.md "Sharding
 * metadata" and "DDL operations") a bucketing change is first made on the config service ({@code _configsvrCollMod}
 * on the buckets namespace: {@code config.collections}' {@code timeseriesFields} is the source of truth, and the
 * chunk versions it bumps make every router and shard refresh its cached bucketing), then the command goes to every
 * shard owning chunks plus the primary, with fresh routing, which update their local options. The config change is
 * idempotent, so a collMod that failed on a shard can be retried as it is.
 *
 * <p>Errors: NamespaceNotFound (26) for a missing database or collection; the config service's and shards' errors
 * (InvalidOptions for a finer granularity, a decreasing bucketing, or time-series options of another collection).
 */
@Configuration
public class ClusterCollModCommand {
    private final VersionedRouter router;

    public ClusterCollModCommand(VersionedRouter router) {
        this.router = router;
    }

    /** {@code collMod}. */
    @Bean
    CommandHandler collMod(ConfigServer config, RoutingTableCache collections) {
        return CommandHandler.of("collMod", (opCtx, db, cmd) -> {
            Namespaces.checkUserDatabase(db, "collMod");
            String collection = new CommandArgs(cmd).collectionName();
            boolean sharded = router.run(opCtx, db, collection, false, routing -> {
                RoutingTable table = routing.table();
                if (table == null) {
                    return false;
                }
                if (cmd.containsKey("timeseries")) {
                    String buckets = table.namespace();
                    try {
                        config.run("admin", new BsonDocument("_configsvrCollMod", new BsonString(buckets))
                                .append("timeseries", cmd.get("timeseries")));
                    } finally {
                        collections.markStale(buckets);
                    }
                }
                return true;
            }).orElseThrow(() -> notFound(db, collection));
            return router.run(opCtx, db, collection, false, routing -> {
                if (!routing.isSharded() || !sharded) {
                    return CollectionDdlCommands.checked(router.send(routing, routing.database().primary(), db, cmd));
                }
                router.sendAll(routing, CollectionDdlCommands.indexHolders(routing), db, shard -> cmd).values()
                        .forEach(CollectionDdlCommands::checked);
                return Replies.ok();
            }).orElseThrow(() -> notFound(db, collection));
        });
    }

    private static CommandException notFound(String db, String collection) {
        return new CommandException(ErrorCode.NamespaceNotFound, "ns does not exist: " + db + "." + collection);
    }
}
