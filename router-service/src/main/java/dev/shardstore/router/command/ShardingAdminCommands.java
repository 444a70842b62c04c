package dev.shardstore.router.command;

import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.bson.Collation;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.namespace.DatabaseNames;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.contracts.timeseries.BucketsNamespace;
import dev.shardstore.contracts.sharding.RoutingTable;
import dev.shardstore.contracts.sharding.ShardKeyPattern;
import dev.shardstore.router.routing.ConfigServer;
import dev.shardstore.router.routing.RoutingTableCache;
import dev.shardstore.support.command.CommandHandler;
import java.util.List;
import java.util.function.Supplier;
import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The sharding admin commands on {@code admin}, validated here (a 4xx naming the field) and committed by the
 * config service (docs/sharding-protocol.md): {@code shardCollection} → {@code _configsvrShardCollection},
 * {@code split} → {@code _configsvrSplitChunk}, {@code mergeChunks} → {@code _configsvrCommitChunksMerge} with
 * the collection epoch and timestamp of this router's routing table. Afterwards the router marks its own cache
 * entry stale; other routers learn through ROUTING_CHANGED or StaleConfig.
 */
@Configuration
public class ShardingAdminCommands {
    private final ConfigServer config;
    private final RoutingTableCache collections;

    public ShardingAdminCommands(ConfigServer config, RoutingTableCache collections) {
        this.config = config;
        this.collections = collections;
    }

    /**
     * {@code {shardCollection: "db.coll", key: {...}, unique?: bool, numInitialChunks?: n, timeseries?: {...}, collation?: {locale:
     * "simple"}}} → MongoDB's
     * {@code {collectionsharded: "db.coll", collectionUUID, ok: 1}}.
     */
    @Bean
    CommandHandler shardCollection() {
        return CommandHandler.of("shardCollection", (db, cmd) -> {
            Namespaces.checkAdmin(db, "shardCollection");
            CommandArgs args = new CommandArgs(cmd);
            String ns = namespace(cmd, "shardCollection");
            BsonDocument key = args.document(args.required(cmd, "key", "key"), "key");
            ShardKeyPattern.of(key); // BadValue naming 'key' when it is not a shard key pattern
            // chunks are ranges in binary order: MongoDB's shard key index must have the simple collation
            BsonValue collation = cmd.get("collation");
            if (collation != null && !Collation.parse("shardCollection.collation", collation).isSimple()) {
                throw new CommandException(ErrorCode.BadValue, "shardCollection.collation: the collation for shardCollection must be"
                        + " {locale: 'simple'}, but found: " + collation.asDocument().toJson());
            }
            BsonDocument forward = new BsonDocument("_configsvrShardCollection", new BsonString(ns))
                    .append("key", key)
                    .append("unique", BsonBoolean.valueOf(args.optionalBoolean(cmd, "unique", "unique", false)));
            if (cmd.containsKey("numInitialChunks")) {
                forward.append("numInitialChunks", new BsonInt64(args.optionalNonNegative("numInitialChunks", 0)));
            }
            if (cmd.containsKey("timeseries")) {
                forward.append("timeseries", args.document(cmd.get("timeseries"), "timeseries"));
            }
            // a time-series namespace is registered as its buckets collection: both entries may change
            BsonDocument reply = changing(ns, () -> changing(bucketsOf(ns), () -> config.runLongRunning("admin", forward)));
            return Replies.ok(new BsonDocument("collectionsharded", new BsonString(ns))
                    .append("collectionUUID", reply.get("collectionUUID")));
        });
    }

    /**
     * {@code {enableSharding: "<db>"}} → {@code {ok: 1}}: creates the database in the catalog when it does not
     * exist yet (its primary shard chosen as for any new database); a no-op otherwise, since every database may
     * hold sharded collections (MongoDB 6.0+: shardCollection no longer needs it). {@code primaryShard} is
     * refused with InvalidOptions: place the database with {@code movePrimary} afterwards.
     *
     * @throws CommandException IllegalOperation off {@code admin} or for {@code admin}/{@code config}/{@code local};
     *                          TypeMismatch/InvalidNamespace naming {@code enableSharding} for a bad name
     */
    @Bean
    CommandHandler enableSharding() {
        return CommandHandler.of("enableSharding", (db, cmd) -> {
            Namespaces.checkAdmin(db, "enableSharding");
            BsonValue value = new CommandArgs(cmd).required(cmd, "enableSharding", "enableSharding");
            if (!value.isString()) {
                throw new CommandException(ErrorCode.TypeMismatch, "'enableSharding' must be a database name string");
            }
            String name = shardableDatabase(value.asString().getValue(), "enableSharding");
            if (cmd.containsKey("primaryShard")) {
                throw new CommandException(ErrorCode.InvalidOptions,
                        "'enableSharding.primaryShard' is not supported: the database gets the usual primary; move it with movePrimary");
            }
            config.createDatabase(name);
            return Replies.ok(new BsonDocument());
        });
    }

    /** {@code {split: "db.coll", middle | find | bounds}}: exactly one of the three (mongos' rule). */
    @Bean
    CommandHandler split() {
        return CommandHandler.of("split", (db, cmd) -> {
            Namespaces.checkAdmin(db, "split");
            CommandArgs args = new CommandArgs(cmd);
            String ns = namespace(cmd, "split");
            List<String> given = List.of("middle", "find", "bounds").stream().filter(cmd::containsKey).toList();
            if (given.size() != 1) {
                throw new CommandException(ErrorCode.BadValue,
                        "split needs exactly one of 'middle', 'find' or 'bounds', was given " + (given.isEmpty() ? "none" : given));
            }
            String how = given.get(0);
            BsonValue value = how.equals("bounds") ? bounds(args, cmd) : args.document(args.required(cmd, how, how), how);
            changing(ns, () -> config.run("admin", new BsonDocument("_configsvrSplitChunk", new BsonString(ns)).append(how, value)));
            return Replies.ok();
        });
    }

    /**
     * {@code {mergeChunks: "db.coll", bounds: [min, max]}}: the chunks exactly covering {@code [min, max)}, all on the
     * shard owning {@code min}, become one. NamespaceNotSharded (118) when the collection is not sharded.
     */
    @Bean
    CommandHandler mergeChunks() {
        return CommandHandler.of("mergeChunks", (db, cmd) -> {
            Namespaces.checkAdmin(db, "mergeChunks");
            String ns = namespace(cmd, "mergeChunks");
            BsonArray bounds = bounds(new CommandArgs(cmd), cmd);
            try {
                changing(ns, () -> config.run("admin", commitMerge(ns, bounds)));
            } catch (CommandException e) {
                if (e.code() != ErrorCode.StaleEpoch && e.code() != ErrorCode.StaleConfig) {
                    throw e;
                }
                // Our table was older than the catalog: once more with the refreshed one.
                changing(ns, () -> config.run("admin", commitMerge(ns, bounds)));
            }
            return Replies.ok();
        });
    }

    /** {@code _configsvrCommitChunksMerge} for {@code bounds} with this router's epoch and owner of {@code min}. */
    private BsonDocument commitMerge(String ns, BsonArray bounds) {
        BsonDocument min = bounds.get(0).asDocument();
        RoutingTable table = collections.get(ns)
                .orElseThrow(() -> new CommandException(ErrorCode.NamespaceNotSharded, "ns " + ns + " is not sharded"));
        byte[] minKey;
        try {
            minKey = table.shardKey().encode(min);
        } catch (CommandException e) {
            throw new CommandException(ErrorCode.BadValue, "'bounds.0': " + e.getMessage());
        }
        return new BsonDocument("_configsvrCommitChunksMerge", new BsonString(ns))
                .append("collEpoch", new BsonObjectId(table.collection().epoch()))
                .append("collTimestamp", table.collection().timestamp())
                .append("chunkRange", new BsonDocument("min", min).append("max", bounds.get(1)))
                .append("shard", new BsonString(table.findChunk(minKey).shard()));
    }

    /** Runs a config change of {@code ns}, then marks this router's entry stale whatever the outcome. */
    /** {@code db.system.buckets.coll} for {@code "db.coll"} (itself for a system collection, which has none). */
    private static String bucketsOf(String ns) {
        Namespace namespace = Namespace.parse(ns);
        return BucketsNamespace.candidate(namespace).orElse(namespace).toString();
    }

    private BsonDocument changing(String ns, Supplier<BsonDocument> change) {
        try {
            return change.get();
        } finally {
            collections.markStale(ns);
        }
    }

    /**
     * The command's namespace argument {@code "db.coll"}.
     *
     * @throws CommandException TypeMismatch when not a string; InvalidNamespace naming the field when it is not
     *                          {@code db.coll} with a valid user database
     */
    static String namespace(BsonDocument cmd, String field) {
        BsonValue value = new CommandArgs(cmd).required(cmd, field, field);
        if (!value.isString()) {
            throw new CommandException(ErrorCode.TypeMismatch, "'" + field + "' must be a namespace string \"db.collection\"");
        }
        String ns = value.asString().getValue();
        int dot = ns.indexOf('.');
        if (dot <= 0 || dot == ns.length() - 1) {
            throw new CommandException(ErrorCode.InvalidNamespace, "'" + field + "' must be \"db.collection\", was '" + ns + "'");
        }
        shardableDatabase(ns.substring(0, dot), field);
        return ns;
    }

    /**
     * {@code db} when it is a valid user database name, which may hold sharded collections.
     *
     * @throws CommandException InvalidNamespace naming {@code field} for a bad name; IllegalOperation for
     *                          {@code admin}, {@code config} and {@code local}
     */
    private static String shardableDatabase(String db, String field) {
        try {
            DatabaseNames.validate(db);
        } catch (CommandException e) {
            throw new CommandException(e.code(), "'" + field + "': " + e.getMessage());
        }
        if (List.of("admin", "config", "local").contains(db)) {
            throw new CommandException(ErrorCode.IllegalOperation, "'" + field + "': the '" + db + "' database cannot have sharded collections");
        }
        return db;
    }

    /** {@code bounds}: an array of two documents {@code [min, max]}. */
    static BsonArray bounds(CommandArgs args, BsonDocument cmd) {
        BsonValue value = args.required(cmd, "bounds", "bounds");
        if (!value.isArray() || value.asArray().size() != 2) {
            throw new CommandException(ErrorCode.BadValue, "'bounds' must be an array of two documents [min, max]");
        }
        args.document(value.asArray().get(0), "bounds.0");
        args.document(value.asArray().get(1), "bounds.1");
        return value.asArray();
    }
}
