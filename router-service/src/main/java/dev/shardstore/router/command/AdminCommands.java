package dev.shardstore.router.command;

import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.namespace.DatabaseNames;
import dev.shardstore.router.routing.ConfigServer;
import dev.shardstore.router.routing.DatabaseCache;
import dev.shardstore.router.routing.RoutingTableCache;
import dev.shardstore.router.routing.ShardRegistry;
import dev.shardstore.support.command.CommandHandler;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;
import java.util.List;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Cluster administration and diagnostics: addShard, listShards, dropDatabase, movePrimary, ping, buildInfo. */
@Configuration
public class AdminCommands {
    /** The project version reported by {@code buildInfo}; the jar manifest's, or "dev" when run from classes. */
    static final String VERSION = java.util.Optional.ofNullable(AdminCommands.class.getPackage().getImplementationVersion()).orElse("dev");

    /** {@code {addShard: "<url>", name?}} → forwarded to the config service, which checks the shard answers. */
    @Bean
    CommandHandler addShard(ConfigServer config, ShardRegistry shards) {
        return changingShards("addShard", config, shards);
    }

    /**
     * {@code {removeShard: "<id>"}} → forwarded to the config service (MongoDB's draining replies: started, ongoing,
     * completed); this router refreshes its shard registry afterwards.
     */
    @Bean
    CommandHandler removeShard(ConfigServer config, ShardRegistry shards) {
        return changingShards("removeShard", config, shards);
    }

    /** A command forwarded to the config service that changes {@code config.shards}: this router's registry refreshes after it. */
    private static CommandHandler changingShards(String name, ConfigServer config, ShardRegistry shards) {
        return CommandHandler.of(name, (db, cmd) -> {
            Namespaces.checkAdmin(db, name);
            BsonDocument reply = config.run(db, cmd);
            shards.refresh();
            return reply;
        });
    }

    @Bean
    CommandHandler listShards(ConfigServer config) {
        return CommandHandler.of("listShards", (db, cmd) -> {
            Namespaces.checkAdmin(db, "listShards");
            return config.run(db, cmd);
        });
    }

    /**
     * {@code {dropDatabase: 1}} on the database to drop → {@code {dropped: "<db>", ok: 1}}, or {@code {ok: 1}} if absent;
     * this router forgets the database and its collections' routing at once (others learn from DATABASE_DROPPED).
     */
    @Bean
    CommandHandler dropDatabase(ConfigServer config, DatabaseCache databases, RoutingTableCache collections) {
        return CommandHandler.of("dropDatabase", (db, cmd) -> {
            Namespaces.checkUserDatabase(db, "dropDatabase");
            try {
                return config.runLongRunning("admin", new BsonDocument("_configsvrDropDatabase", new BsonString(db)));
            } finally {
                databases.invalidate(db);
                collections.purgeDatabase(db);
            }
        });
    }

    /**
     * MongoDB's {@code {movePrimary: "<db>", to: "<shard>"}} on {@code admin} → {@code {ok: 1}}: makes {@code to} the
     * database's primary shard and moves its unsharded collections there (the config service's movePrimary
     * coordinator; docs/sharding-protocol.md). Moving to the current primary is a no-op; a movePrimary of the database to
     * the same shard that is already running is joined. This router forgets its cached placement of the database
     * whatever the outcome (as mongos purges it); other routers learn from DATABASE_VERSION_CHANGED or StaleDbVersion.
     * Errors: IllegalOperation off {@code admin}; InvalidNamespace when {@code movePrimary} is not a valid database name;
     * InvalidOptions (72) for admin/config/local or without {@code to}; TypeMismatch when {@code to} is not a string;
     * from the config service NamespaceNotFound (26), ShardNotFound (70), ConflictingOperationInProgress (117).
     */
    @Bean
    CommandHandler movePrimary(ConfigServer config, DatabaseCache databases) {
        return CommandHandler.of("movePrimary", (db, cmd) -> {
            Namespaces.checkAdmin(db, "movePrimary");
            BsonValue target = new CommandArgs(cmd).required(cmd, "movePrimary", "movePrimary");
            if (!target.isString()) {
                throw new CommandException(ErrorCode.InvalidNamespace, "'movePrimary' must be a database name string");
            }
            String moved = target.asString().getValue();
            try {
                DatabaseNames.validate(moved);
            } catch (CommandException e) {
                throw new CommandException(ErrorCode.InvalidNamespace, "'movePrimary': " + e.getMessage());
            }
            if (List.of("admin", "config", "local").contains(moved)) {
                throw new CommandException(ErrorCode.InvalidOptions, "Can't move primary for " + moved + " database");
            }
            BsonValue to = cmd.get("to");
            if (to == null || to.isString() && to.asString().getValue().isEmpty()) {
                throw new CommandException(ErrorCode.InvalidOptions, "you have to specify where you want to move it: 'to' names no shard");
            }
            if (!to.isString()) {
                throw new CommandException(ErrorCode.TypeMismatch, "'to' must be a shard name string");
            }
            try {
                config.runLongRunning("admin", new BsonDocument("_configsvrMovePrimary", new BsonString(moved)).append("to", to));
                return Replies.ok();
            } finally {
                databases.invalidate(moved);
            }
        });
    }

    @Bean
    CommandHandler ping() {
        return CommandHandler.of("ping", (db, cmd) -> Replies.ok());
    }

    /** {@code buildInfo}: this project's version, and the limits clients size their batches by. */
    @Bean
    CommandHandler buildInfo() {
        return CommandHandler.of("buildInfo", (db, cmd) -> Replies.ok(new BsonDocument("version", new BsonString(VERSION))
                .append("gitVersion", new BsonString("unknown"))
                .append("versionArray", versionArray())
                .append("bits", new BsonInt32(64))
                .append("maxBsonObjectSize", new BsonInt32(BsonBytes.MAX_DOCUMENT_SIZE))
                .append("storageEngines", new BsonArray(java.util.List.<BsonValue>of(new BsonString("postgresql"))))
                .append("modules", new BsonArray())));
    }

    private static BsonArray versionArray() {
        BsonArray parts = new BsonArray();
        for (String part : (VERSION + ".0.0.0").split("[.-]")) {
            if (parts.size() < 4) {
                parts.add(new BsonInt32(part.chars().allMatch(Character::isDigit) && !part.isEmpty() ? Integer.parseInt(part) : 0));
            }
        }
        return parts;
    }
}
