package dev.shardstore.config.settings;

import dev.shardstore.config.catalog.ShardedCollectionCatalog;
import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.support.command.CommandHandler;
import java.util.function.BiConsumer;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The config service's balancer-related commands (mongo/src/mongo/db/s/README.md "Auto-splitting and auto-balancing"): settings and the action
 * log, called by the balancer service; zones, called by routers for {@code addShardToZone}, {@code removeShardFromZone} and
 * {@code updateZoneKeyRange} (MongoDB's {@code _configsvr} names).
 */
@Configuration
public class SettingsCommands {
    /**
     * {@code {_configsvrSetSettings: "<_id>", set: {...}}} → {@code {settings: {_id, ...}, ok: 1}}: sets fields of one
     * {@code config.settings} document ({@link ClusterSettings#set}); BadValue naming the document or field otherwise.
     */
    @Bean
    CommandHandler setSettings(ClusterSettings settings) {
        return CommandHandler.of("_configsvrSetSettings", (db, cmd) -> {
            CommandArgs args = new CommandArgs(cmd);
            BsonDocument fields = args.document(args.required(cmd, "set", "set"), "set");
            return Replies.ok(new BsonDocument("settings", settings.set(args.requiredString("_configsvrSetSettings"), fields)));
        });
    }

    /** {@code {_configsvrLogAction: "<what>", server, details}} → {@code {ok: 1}}: a {@code config.actionlog} entry. */
    @Bean
    CommandHandler logAction(ActionLog actionLog) {
        return CommandHandler.of("_configsvrLogAction", (db, cmd) -> {
            CommandArgs args = new CommandArgs(cmd);
            actionLog.record(args.requiredString("server"), args.requiredString("_configsvrLogAction"),
                    args.document(args.required(cmd, "details", "details"), "details"));
            return Replies.ok();
        });
    }

    /**
     * {@code {_configsvrBalancerRound: 1, start?: bool}} → {@code {numBalancerRounds, ok: 1}}: with {@code start: true} a
     * balancer round starting now is counted and its number returned; without, the count so far ({@link BalancerRounds}).
     */
    @Bean
    CommandHandler balancerRound(BalancerRounds rounds) {
        return CommandHandler.of("_configsvrBalancerRound", (db, cmd) -> {
            CommandArgs args = new CommandArgs(cmd);
            long number = args.optionalBoolean(cmd, "start", "start", false) ? rounds.next() : rounds.count();
            return Replies.ok(new BsonDocument("numBalancerRounds", new org.bson.BsonInt64(number)));
        });
    }

    /**
     * {@code {_configsvrConfigureCollectionBalancing: "db.coll", chunkSize?: MiB, enableAutoMerger?: bool,
     * defragmentCollection?: bool}} → {@code {ok: 1}}: the router's {@code configureCollectionBalancing} (MongoDB's shape).
     * {@code chunkSize} (1..1024 MiB, or 0 for the cluster's {@code chunksize} again) becomes the collection's
     * {@code maxChunkSizeBytes}, which the balancer uses for it; {@code enableAutoMerger} lets the auto-merger join its
     * chunks or not. Errors: NamespaceNotSharded (118); BadValue naming {@code chunkSize} out of range; TypeMismatch naming a
     * field of the wrong type; NotImplemented naming {@code defragmentCollection: true} (this balancer does not defragment).
     */
    @Bean
    CommandHandler configureCollectionBalancing(ShardedCollectionCatalog collections) {
        String name = "_configsvrConfigureCollectionBalancing";
        return CommandHandler.of(name, (db, cmd) -> {
            CommandArgs args = new CommandArgs(cmd);
            String ns = Namespace.parse(args.requiredString(name)).full();
            if (args.optionalBoolean(cmd, "defragmentCollection", "defragmentCollection", false)) {
                throw new CommandException(ErrorCode.NotImplemented, "'defragmentCollection' is not supported: this balancer does not"
                        + " defragment collections (the auto-merger joins small contiguous chunks instead)");
            }
            Long chunkSizeBytes = null;
            if (cmd.containsKey("chunkSize")) {
                BsonValue chunkSize = cmd.get("chunkSize");
                if (!chunkSize.isNumber()) {
                    throw new CommandException(ErrorCode.TypeMismatch, "'chunkSize' must be a number of MiB");
                }
                double mib = chunkSize.asNumber().doubleValue();
                if (mib != 0 && (mib < 1 || mib > 1024)) {
                    throw new CommandException(ErrorCode.BadValue, "'chunkSize' must be between 1 and 1024 MiB, or 0 for the cluster's"
                            + " chunksize, not " + mib);
                }
                chunkSizeBytes = (long) (mib * 1024 * 1024);
            }
            Boolean autoMerger = cmd.containsKey("enableAutoMerger") ? args.optionalBoolean(cmd, "enableAutoMerger", "enableAutoMerger", true) : null;
            collections.configureBalancing(ns, chunkSizeBytes, autoMerger, null);
            return Replies.ok();
        });
    }

    /** {@code {_configsvrAddShardToZone: "<shard>", zone}} → {@code {ok: 1}} ({@link ZoneCatalog#addShardToZone}). */
    @Bean
    CommandHandler addShardToZone(ZoneCatalog zones) {
        return shardAndZone("_configsvrAddShardToZone", zones::addShardToZone);
    }

    /** {@code {_configsvrRemoveShardFromZone: "<shard>", zone}} → {@code {ok: 1}} ({@link ZoneCatalog#removeShardFromZone}). */
    @Bean
    CommandHandler removeShardFromZone(ZoneCatalog zones) {
        return shardAndZone("_configsvrRemoveShardFromZone", zones::removeShardFromZone);
    }

    /** {@code {<name>: "<shard>", zone: "<zone>"}} → {@code {ok: 1}} after {@code change(shard, zone)}. */
    private static CommandHandler shardAndZone(String name, BiConsumer<String, String> change) {
        return CommandHandler.of(name, (db, cmd) -> {
            CommandArgs args = new CommandArgs(cmd);
            change.accept(args.requiredString(name), args.requiredString("zone"));
            return Replies.ok();
        });
    }

    /**
     * {@code {_configsvrUpdateZoneKeyRange: "db.coll", min, max, zone: "<zone>" | null}} → {@code {ok: 1}}
     * ({@link ZoneCatalog#updateZoneKeyRange}); TypeMismatch naming {@code zone} when it is neither a string nor null.
     */
    @Bean
    CommandHandler updateZoneKeyRange(ZoneCatalog zones) {
        return CommandHandler.of("_configsvrUpdateZoneKeyRange", (db, cmd) -> {
            CommandArgs args = new CommandArgs(cmd);
            BsonValue zone = args.required(cmd, "zone", "zone");
            if (!zone.isString() && !zone.isNull()) {
                throw new CommandException(ErrorCode.TypeMismatch,
                        "'zone' must be a zone name string or null");
            }
            zones.updateZoneKeyRange(Namespace.parse(args.requiredString("_configsvrUpdateZoneKeyRange")).full(),
                    args.document(args.required(cmd, "min", "min"), "min"), args.document(args.required(cmd, "max", "max"), "max"),
                    zone.isNull() ? null : zone.asString().getValue());
            return Replies.ok();
        });
    }
}
