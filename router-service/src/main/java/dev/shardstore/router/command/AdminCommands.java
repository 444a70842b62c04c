package dev.shardstore.router.command;

import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.bson.Replies;
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
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Cluster administration and diagnostics: addShard, listShards, dropDatabase, ping, buildInfo. */
@Configuration
public class AdminCommands {
    /** The project version reported by {@code buildInfo}; the jar manifest's, or "dev" when run from classes. */
    static final String VERSION = java.util.Optional.ofNullable(AdminCommands.class.getPackage().getImplementationVersion()).orElse("dev");

    /** {@code {addShard: "<url>", name?}} → forwarded to the config service, which checks the shard answers. */
    @Bean
    CommandHandler addShard(ConfigServer config, ShardRegistry shards) {
        return CommandHandler.of("addShard", (db, cmd) -> {
            Namespaces.checkAdmin(db, "addShard");
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
                return config.run("admin", new BsonDocument("_configsvrDropDatabase", new BsonString(db)));
            } finally {
                databases.invalidate(db);
                collections.purgeDatabase(db);
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
