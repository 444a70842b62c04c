package dev.shardstore.config.command;

import dev.shardstore.config.catalog.DatabaseCatalog;
import dev.shardstore.config.catalog.DatabaseEntity;
import dev.shardstore.config.catalog.ShardCatalog;
import dev.shardstore.config.catalog.ShardEntity;
import dev.shardstore.config.catalog.ShardingDdlCoordinators;
import dev.shardstore.config.sharding.DropCollectionCoordinator;
import dev.shardstore.config.sharding.MovePrimaryCoordinator;
import dev.shardstore.config.sharding.ShardingDdlCoordinatorService;
import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.support.command.CommandHandler;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The config service's commands. Public ones keep MongoDB's names and shapes ({@code addShard},
 * {@code listShards}); internal ones use MongoDB's {@code _configsvr} prefix and are called by routers
 * and shards.
 */
@Configuration
public class ConfigCommands {

    /** {@code {addShard: "<url>", name?: "<id>"}} → {@code {shardAdded: "<id>", ok: 1}}. */
    @Bean
    CommandHandler addShard(ShardCatalog shards) {
        return CommandHandler.of("addShard", (db, cmd) -> {
            String name = cmd.containsKey("name") ? new CommandArgs(cmd).requiredString("name") : null;
            ShardEntity added = shards.addShard(new CommandArgs(cmd).requiredString("addShard"), name);
            return Replies.ok(new BsonDocument("shardAdded", new BsonString(added.id())));
        });
    }

    /** {@code {removeShard: "<id>"}} → MongoDB's draining replies ({@link ShardCatalog#removeShard}). */
    @Bean
    CommandHandler removeShard(ShardCatalog shards) {
        return CommandHandler.of("removeShard", (db, cmd) -> Replies.ok(shards.removeShard(new CommandArgs(cmd).requiredString("removeShard"))));
    }

    /** {@code {listShards: 1}} → {@code {shards: [{_id, host, state}], ok: 1}}. */
    @Bean
    CommandHandler listShards(ShardCatalog shards) {
        return CommandHandler.of("listShards", (db, cmd) -> Replies.ok(new BsonDocument("shards",
                new BsonArray(shards.listShards().stream().map(ShardEntity::toBson).toList()))));
    }

    /** {@code {_configsvrGetDatabase: "<db>"}} → {@code {database: {...}, ok: 1}}, NamespaceNotFound when absent. */
    @Bean
    CommandHandler getDatabase(DatabaseCatalog databases) {
        return CommandHandler.of("_configsvrGetDatabase", (db, cmd) -> {
            String name = new CommandArgs(cmd).requiredString("_configsvrGetDatabase");
            DatabaseEntity entry = databases.find(name).orElseThrow(
                    () -> new CommandException(ErrorCode.NamespaceNotFound, "database '" + name + "' not found"));
            return Replies.ok(new BsonDocument("database", entry.toBson()));
        });
    }

    /** {@code {_configsvrCreateDatabase: "<db>"}} → {@code {database: {...}, ok: 1}}; creates it when absent. */
    @Bean
    CommandHandler createDatabase(DatabaseCatalog databases) {
        return CommandHandler.of("_configsvrCreateDatabase", (db, cmd) -> Replies.ok(new BsonDocument("database",
                databases.getOrCreate(new CommandArgs(cmd).requiredString("_configsvrCreateDatabase")).toBson())));
    }

    /**
     * {@code {_configsvrDropDatabase: "<db>"}} → {@code {dropped: "<db>", ok: 1}}, or {@code {ok: 1}} when it did not exist.
     * Its sharded collections are dropped first, on every shard. It runs under the database's key in the DDL coordinator
     * framework, so it cannot overlap a movePrimary of the database: ConflictingOperationInProgress (117) while one runs
     * or is unfinished.
     */
    @Bean
    CommandHandler dropDatabase(DatabaseCatalog databases, DropCollectionCoordinator shardedCollections, ShardingDdlCoordinatorService ddl,
            ShardingDdlCoordinators coordinators) {
        return CommandHandler.of("_configsvrDropDatabase", (db, cmd) -> {
            String name = new CommandArgs(cmd).requiredString("_configsvrDropDatabase");
            boolean dropped = ddl.run(name, "dropDatabase", name, () -> {
                coordinators.requireNone(name, "dropDatabase");
                if (!DatabaseCatalog.RESERVED.contains(name)) {
                    shardedCollections.dropShardedCollectionsOf(name);
                }
                return databases.drop(name);
            });
            return dropped ? Replies.ok(new BsonDocument("dropped", new BsonString(name))) : Replies.ok();
        });
    }

    /**
     * {@code {_configsvrMovePrimary: "<db>", to: "<shard>"}} → {@code {ok: 1}}: runs (or joins) the movePrimary
     * coordinator ({@link MovePrimaryCoordinator}); moving to the current primary is a no-op.
     */
    @Bean
    CommandHandler movePrimary(MovePrimaryCoordinator coordinator) {
        return CommandHandler.of("_configsvrMovePrimary", (db, cmd) -> {
            CommandArgs args = new CommandArgs(cmd);
            coordinator.movePrimary(args.requiredString("_configsvrMovePrimary"), args.requiredString("to"));
            return Replies.ok();
        });
    }

    /** {@code {_configsvrListDatabases: 1}} → {@code {databases: [{_id, primary, version}], ok: 1}}. */
    @Bean
    CommandHandler listDatabases(DatabaseCatalog databases) {
        return CommandHandler.of("_configsvrListDatabases", (db, cmd) -> Replies.ok(new BsonDocument("databases",
                new BsonArray(databases.list().stream().map(DatabaseEntity::toBson).toList()))));
    }
}
