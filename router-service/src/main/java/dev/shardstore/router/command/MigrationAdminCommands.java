package dev.shardstore.router.command;

import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.router.routing.ConfigServer;
import dev.shardstore.router.routing.LongRunningClient;
import dev.shardstore.router.routing.RoutingTableCache;
import dev.shardstore.router.routing.ShardRegistry;
import dev.shardstore.support.command.CommandHandler;
import java.util.List;
import java.util.Map;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The chunk migration admin commands on {@code admin} (MongoDB's; docs/sharding-protocol.md, "Chunk migration"),
 * validated here (a 4xx naming the field) and run as in MongoDB 6+: router → config service {@code _configsvrMoveRange}
 * (catalog checks, splits, serialization with DDL) → donor shard {@code _shardsvrMoveRange}, which answers when the
 * migration is over. Those calls, and {@code cleanupOrphaned}'s to the shards, use a client whose request timeout is
 * {@code shardstore.router.migration-timeout}. Afterwards the router marks its cache entry of the namespace stale; other
 * routers learn through {@code MIGRATION_COMMITTED}/{@code ROUTING_CHANGED} or StaleConfig.
 */
@Configuration
public class MigrationAdminCommands {
    private final RoutingTableCache collections;
    private final ShardRegistry shards;
    private final LongRunningClient longRunning;
    private final ConfigServer config;

    public MigrationAdminCommands(RoutingTableCache collections, ShardRegistry shards, LongRunningClient longRunning,
            ConfigServer config) {
        this.collections = collections;
        this.shards = shards;
        this.longRunning = longRunning;
        this.config = config;
    }

    /**
     * {@code {moveChunk: "db.coll", find: {<shard key>: v} | bounds: [min, max], to: "<shard>", _waitForDelete?: bool,
     * forceJumbo?: bool}} → {@code {millis, ok: 1}}: moves the chunk holding the shard key {@code find} names (every shard
     * key field is needed), or the chunk that is exactly {@code bounds}. A move to the owning shard succeeds without
     * moving anything.
     */
    @Bean
    CommandHandler moveChunk() {
        return CommandHandler.of("moveChunk", (db, cmd) -> {
            Namespaces.checkAdmin(db, "moveChunk");
            CommandArgs args = new CommandArgs(cmd);
            String ns = ShardingAdminCommands.namespace(cmd, "moveChunk");
            List<String> given = List.of("find", "bounds").stream().filter(cmd::containsKey).toList();
            if (given.size() != 1) {
                throw new CommandException(ErrorCode.BadValue, "moveChunk needs exactly one of 'find' or 'bounds', was given "
                        + (given.isEmpty() ? "none" : given));
            }
            String to = recipient(args, "to");
            BsonDocument forward = new BsonDocument("_configsvrMoveRange", new BsonString(ns));
            if (given.getFirst().equals("find")) {
                forward.append("find", args.document(args.required(cmd, "find", "find"), "find"));
            } else {
                forward.append("bounds", ShardingAdminCommands.bounds(args, cmd));
            }
            forward.append("toShard", new BsonString(to)).append("toField", new BsonString("to"))
                    .append("waitForDelete", BsonBoolean.valueOf(args.optionalBoolean(cmd, "_waitForDelete", "_waitForDelete", false)))
                    .append("forceJumbo", BsonBoolean.valueOf(args.optionalBoolean(cmd, "forceJumbo", "forceJumbo", false)));
            long start = System.nanoTime();
            move(ns, forward);
            return Replies.ok(new BsonDocument("millis", new BsonInt64((System.nanoTime() - start) / 1_000_000)));
        });
    }

    /**
     * {@code {moveRange: "db.coll", min: {...}, max?: {...}, toShard: "<shard>", forceJumbo?: bool, waitForDelete?: bool}}
     * → {@code {ok: 1}}: moves {@code [min, max)}, which must lie in one chunk (that chunk is split at {@code min} and
     * {@code max} first when they are inside it); without {@code max}, up to about half the max chunk size from {@code min}.
     */
    @Bean
    CommandHandler moveRange() {
        return CommandHandler.of("moveRange", (db, cmd) -> {
            Namespaces.checkAdmin(db, "moveRange");
            CommandArgs args = new CommandArgs(cmd);
            String ns = ShardingAdminCommands.namespace(cmd, "moveRange");
            BsonDocument forward = new BsonDocument("_configsvrMoveRange", new BsonString(ns))
                    .append("min", args.document(args.required(cmd, "min", "min"), "min"));
            BsonValue max = cmd.get("max");
            if (max != null && !max.isNull()) {
                forward.append("max", args.document(max, "max"));
            }
            forward.append("toShard", new BsonString(recipient(args, "toShard")))
                    .append("waitForDelete", BsonBoolean.valueOf(args.optionalBoolean(cmd, "waitForDelete", "waitForDelete", false)))
                    .append("forceJumbo", BsonBoolean.valueOf(args.optionalBoolean(cmd, "forceJumbo", "forceJumbo", false)));
            move(ns, forward);
            return Replies.ok();
        });
    }

    /**
     * {@code {cleanupOrphaned: "db.coll"}} → {@code {ok: 1}} once no shard holds an orphaned range of the collection any
     * more (each shard's {@code cleanupOrphaned} waits for its range deleter; a donor's range waits
     * {@code orphanCleanupDelaySecs} after its migration).
     */
    @Bean
    CommandHandler cleanupOrphaned() {
        return CommandHandler.of("cleanupOrphaned", (db, cmd) -> {
            Namespaces.checkAdmin(db, "cleanupOrphaned");
            String ns = ShardingAdminCommands.namespace(cmd, "cleanupOrphaned");
            shards.refreshQuietly();
            for (Map.Entry<String, String> shard : shards.all().entrySet()) {
                longRunning.runChecked(shard.getKey(), shard.getValue(), "admin", new BsonDocument("cleanupOrphaned", new BsonString(ns)));
            }
            return Replies.ok();
        });
    }

    /** Runs the config service's {@code _configsvrMoveRange}, then marks this router's entry stale whatever the outcome. */
    private void move(String ns, BsonDocument forward) {
        try {
            config.runLongRunning("admin", forward);
        } finally {
            collections.markStale(ns);
        }
    }

    /**
     * The recipient shard named by {@code field}.
     *
     * @throws CommandException FailedToParse/TypeMismatch naming the field; ShardNotFound (70) naming it for an unknown shard
     */
    private String recipient(CommandArgs args, String field) {
        String to = args.requiredString(field);
        try {
            shards.hostOf(to);
        } catch (CommandException e) {
            if (e.code() == ErrorCode.ShardNotFound) {
                throw new CommandException(ErrorCode.ShardNotFound, "'" + field + "': no shard named '" + to + "' is registered");
            }
            throw e;
        }
        return to;
    }
}
