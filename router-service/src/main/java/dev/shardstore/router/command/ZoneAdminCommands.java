package dev.shardstore.router.command;

import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.router.routing.ConfigServer;
import dev.shardstore.support.command.CommandHandler;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * MongoDB's zone commands, {@code clearJumboFlag: "db.coll", find | bounds} and {@code configureCollectionBalancing} on
 * {@code admin}, forwarded to the config service under its {@code _configsvr} names (as mongos
 * does): {@code addShardToZone: "<shard>", zone}, {@code removeShardFromZone: "<shard>", zone} and
 * {@code updateZoneKeyRange: "db.coll", min, max, zone: "<zone>" | null} → {@code {ok: 1}}. Errors: IllegalOperation off
 * {@code admin}; TypeMismatch naming the first field when it is not a string; from the config service ShardNotFound (70),
 * ZoneStillInUse (163), ZoneNotFound (177), RangeOverlapConflict (178), BadValue naming {@code min}/{@code max} or
 * {@code bounds}, NamespaceNotSharded (118), ShardKeyNotFound (61) naming {@code find}.
 */
@Configuration
public class ZoneAdminCommands {
    @Bean
    CommandHandler addShardToZone(ConfigServer config) {
        return forwarded(config, "addShardToZone", "_configsvrAddShardToZone");
    }

    @Bean
    CommandHandler removeShardFromZone(ConfigServer config) {
        return forwarded(config, "removeShardFromZone", "_configsvrRemoveShardFromZone");
    }

    @Bean
    CommandHandler updateZoneKeyRange(ConfigServer config) {
        return forwarded(config, "updateZoneKeyRange", "_configsvrUpdateZoneKeyRange");
    }

    @Bean
    CommandHandler clearJumboFlag(ConfigServer config) {
        return forwarded(config, "clearJumboFlag", "_configsvrClearJumboFlag");
    }

    /**
     * {@code {configureCollectionBalancing: "db.coll", chunkSize?: MiB, enableAutoMerger?: bool, defragmentCollection?: bool}}
     * → {@code {ok: 1}}, validated and stored by the config service ({@code _configsvrConfigureCollectionBalancing}).
     */
    @Bean
    CommandHandler configureCollectionBalancing(ConfigServer config) {
        return forwarded(config, "configureCollectionBalancing", "_configsvrConfigureCollectionBalancing");
    }

    private static CommandHandler forwarded(ConfigServer config, String name, String internalName) {
        return CommandHandler.of(name, (db, cmd) -> {
            Namespaces.checkAdmin(db, name);
            BsonValue target = new CommandArgs(cmd).required(cmd, name, name);
            if (!target.isString()) {
                throw new CommandException(ErrorCode.TypeMismatch, "'" + name + "' must be a string");
            }
            BsonDocument forward = new BsonDocument(internalName, target);
            cmd.entrySet().stream().skip(1).filter(e -> !e.getKey().startsWith("$")).forEach(e -> forward.append(e.getKey(), e.getValue()));
            return config.run("admin", forward);
        });
    }
}
