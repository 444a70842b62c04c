package dev.shardstore.config.command;

import dev.shardstore.config.catalog.ReshardingCatalog;
import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.contracts.sharding.ShardKeyPattern;
import dev.shardstore.support.command.CommandHandler;
import java.util.List;
import java.util.UUID;
import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The resharding coordinator's calls on the catalog (the resharding service sends them to {@code admin}; MongoDB's
 * coordinator writes {@code config.collections} itself, on the config server it runs on).
 */
@Configuration
public class ReshardingCatalogCommands {
    /**
     * {@code {_configsvrReshardingRegister: "db.coll", reshardingUUID: UUID, key, numInitialChunks, forceRedistribution}}
     * → {@code {noChange: bool, donorShards: [name], recipientShards: [name], ok: 1}} ({@link ReshardingCatalog#register}).
     */
    @Bean
    CommandHandler reshardingRegister(ReshardingCatalog catalog) {
        return CommandHandler.of("_configsvrReshardingRegister", (db, cmd) -> {
            CommandArgs args = new CommandArgs(cmd);
            Namespace namespace = Namespace.parse(args.requiredString("_configsvrReshardingRegister"), "_configsvrReshardingRegister");
            ShardKeyPattern key;
            try {
                key = ShardKeyPattern.of(args.document(args.required(cmd, "key", "key"), "key"));
            } catch (IllegalArgumentException e) {
                throw new CommandException(ErrorCode.BadValue, "'key': " + e.getMessage());
            }
            ReshardingCatalog.Registration registered = catalog.register(namespace, reshardingUuid(cmd), key,
                    args.optionalBoolean(cmd, "forceRedistribution", "forceRedistribution", false));
            return Replies.ok(new BsonDocument("noChange", BsonBoolean.valueOf(registered.noChange()))
                    .append("donorShards", names(registered.donors()))
                    .append("recipientShards", names(registered.recipients())));
        });
    }

    /** {@code {_configsvrReshardingUnregister: "db.coll", reshardingUUID: UUID}} → {@code {ok: 1}} ({@link ReshardingCatalog#unregister}). */
    @Bean
    CommandHandler reshardingUnregister(ReshardingCatalog catalog) {
        return CommandHandler.of("_configsvrReshardingUnregister", (db, cmd) -> {
            Namespace namespace = Namespace.parse(new CommandArgs(cmd).requiredString("_configsvrReshardingUnregister"), "_configsvrReshardingUnregister");
            catalog.unregister(namespace, reshardingUuid(cmd));
            return Replies.ok();
        });
    }

    private static UUID reshardingUuid(BsonDocument cmd) {
        return new CommandArgs(cmd).requiredUuid("reshardingUUID");
    }

    private static BsonArray names(List<String> shards) {
        return new BsonArray(shards.stream().map(s -> (BsonValue) new BsonString(s)).toList());
    }
}
