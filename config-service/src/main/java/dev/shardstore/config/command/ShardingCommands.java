package dev.shardstore.config.command;

import dev.shardstore.config.catalog.CatalogChunk;
import dev.shardstore.config.catalog.ChunkCommits;
import dev.shardstore.config.catalog.ShardedCollectionCatalog;
import dev.shardstore.config.changelog.Changelog;
import dev.shardstore.config.sharding.DropCollectionCoordinator;
import dev.shardstore.config.sharding.MoveRangeCoordinator;
import dev.shardstore.config.sharding.MoveRangeCoordinator.Target;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.config.sharding.ShardCollectionCoordinator;
import dev.shardstore.config.sharding.SplitChunkCoordinator;
import dev.shardstore.config.sharding.SplitChunkCoordinator.SplitAt;
import dev.shardstore.config.sharding.UniqueIndexRule;
import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.sharding.ChunkRange;
import dev.shardstore.contracts.sharding.ShardedCollection;
import dev.shardstore.support.command.CommandHandler;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonBinary;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonNull;
import org.bson.BsonString;
import org.bson.UuidRepresentation;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The config service's sharded-collection commands (docs/sharding-protocol.md, "Config service commands"), sent to
 * {@code admin} by routers, shards and the balancer. Each takes the namespace {@code "db.coll"} as its first field.
 */
@Configuration
public class ShardingCommands {

    /**
     * {@code {_configsvrShardCollection: "db.coll", key, unique?, numInitialChunks?, timeseries?}} →
     * {@code {collectionsharded: "db.coll", collectionUUID: UUID, ok: 1}}.
     */
    @Bean
    CommandHandler shardCollection(ShardCollectionCoordinator coordinator) {
        return CommandHandler.of("_configsvrShardCollection", (db, cmd) -> {
            ShardingArgs args = new ShardingArgs(cmd);
            CommandArgs plain = new CommandArgs(cmd);
            ShardedCollection sharded = coordinator.shardCollection(args.namespace(), args.key(),
                    plain.optionalBoolean(cmd, "unique", "unique", false), plain.optionalNonNegative("numInitialChunks", 0),
                    cmd.containsKey("timeseries") ? plain.document(cmd.get("timeseries"), "timeseries") : null);
            return Replies.ok(new BsonDocument("collectionsharded", new BsonString(sharded.namespace()))
                    .append("collectionUUID", new BsonBinary(sharded.uuid(), UuidRepresentation.STANDARD)));
        });
    }

    /**
     * {@code {_configsvrGetRoutingTable: "db.coll", sinceVersion?}} → {@code {collection: doc | null, chunks: [...],
     * full: bool, ok: 1}}: only the chunks newer than {@code sinceVersion} when it is of the current epoch.
     */
    @Bean
    CommandHandler getRoutingTable(ShardedCollectionCatalog collections) {
        return CommandHandler.of("_configsvrGetRoutingTable", (db, cmd) -> {
            ShardingArgs args = new ShardingArgs(cmd);
            ShardedCollectionCatalog.RoutingSnapshot table = collections.routingTable(args.namespace().toString(), args.optionalVersion("sinceVersion"));
            return Replies.ok(new BsonDocument("collection", table.collection() == null ? BsonNull.VALUE : table.collection().toBson())
                    .append("chunks", new BsonArray(table.chunks().stream().map(CatalogChunk::toBson).toList()))
                    .append("full", BsonBoolean.valueOf(table.full())));
        });
    }

    /**
     * {@code {_configsvrSplitChunk: "db.coll", middle | find | bounds: [min, max]}} (the admin {@code split}) →
     * {@code {shardVersion, collectionVersion, ok: 1}}.
     */
    @Bean
    CommandHandler splitChunk(SplitChunkCoordinator coordinator) {
        return CommandHandler.of("_configsvrSplitChunk", (db, cmd) -> {
            ShardingArgs args = new ShardingArgs(cmd);
            List<String> given = List.of("middle", "find", "bounds").stream().filter(cmd::containsKey).toList();
            if (given.size() != 1) {
                throw new CommandException(ErrorCode.BadValue, "split needs exactly one of 'middle', 'find' and 'bounds', got " + given);
            }
            SplitAt at = switch (given.getFirst()) {
                case "middle" -> new SplitAt.Middle(args.document("middle"));
                case "find" -> new SplitAt.Find(args.document("find"));
                default -> {
                    List<BsonDocument> bounds = args.documents("bounds");
                    if (bounds.size() != 2) {
                        throw new CommandException(ErrorCode.BadValue, "'bounds' must be [min, max], had " + bounds.size() + " elements");
                    }
                    yield new SplitAt.Bounds(new ChunkRange(bounds.get(0), bounds.get(1)));
                }
            };
            return Replies.ok(coordinator.split(args.namespace().toString(), at).toBson());
        });
    }

    /**
     * {@code {_configsvrCommitChunkSplit: "db.coll", collEpoch, collTimestamp, expectedCollectionVersion?, min, max,
     * splitPoints: [...], shard}} → {@code {shardVersion, collectionVersion, ok: 1}}.
     */
    @Bean
    CommandHandler commitChunkSplit(ChunkCommits commits) {
        return CommandHandler.of("_configsvrCommitChunkSplit", (db, cmd) -> {
            ShardingArgs args = new ShardingArgs(cmd);
            return Replies.ok(commits.split(args.namespace().toString(), args.expectation(),
                    new ChunkRange(args.document("min"), args.document("max")), args.documents("splitPoints"), args.string("shard")).toBson());
        });
    }

    /**
     * {@code {_configsvrCommitChunksMerge: "db.coll", collEpoch, collTimestamp, expectedCollectionVersion?,
     * chunkRange: {min, max}, shard}} → {@code {shardVersion, collectionVersion, ok: 1}}.
     */
    @Bean
    CommandHandler commitChunksMerge(ChunkCommits commits) {
        return CommandHandler.of("_configsvrCommitChunksMerge", (db, cmd) -> {
            ShardingArgs args = new ShardingArgs(cmd);
            return Replies.ok(commits.merge(args.namespace().toString(), args.expectation(), args.range("chunkRange"),
                    args.string("shard")).toBson());
        });
    }

    /**
     * {@code {_configsvrCommitChunkMigration: "db.coll", collEpoch, collTimestamp, expectedCollectionVersion?,
     * migratedChunk: {min, max, lastmod?}, fromShard, toShard}} → {@code {shardVersion (the donor's), collectionVersion,
     * ok: 1}}; {@code lastmod}, the chunk's version when the donor started, is checked when given.
     */
    @Bean
    CommandHandler commitChunkMigration(ChunkCommits commits) {
        return CommandHandler.of("_configsvrCommitChunkMigration", (db, cmd) -> {
            ShardingArgs args = new ShardingArgs(cmd);
            return Replies.ok(commits.migrate(args.namespace().toString(), args.expectation(), args.range("migratedChunk"),
                    args.optionalVersionIn("migratedChunk", "lastmod"), args.string("fromShard"), args.string("toShard")).toBson());
        });
    }

    /**
     * {@code {_configsvrEnsureChunkVersionIsGreaterThan: "db.coll", collEpoch, collTimestamp, minKey, maxKey, version}} →
     * {@code {fenced: bool, ok: 1}}: a recovering migration donor's fence (see {@link ChunkCommits#ensureChunkVersionIsGreaterThan}).
     */
    @Bean
    CommandHandler ensureChunkVersionIsGreaterThan(ChunkCommits commits) {
        return CommandHandler.of("_configsvrEnsureChunkVersionIsGreaterThan", (db, cmd) -> {
            ShardingArgs args = new ShardingArgs(cmd);
            boolean fenced = commits.ensureChunkVersionIsGreaterThan(args.namespace().toString(), args.expectation(),
                    new ChunkRange(args.document("minKey"), args.document("maxKey")), args.version("version"));
            return Replies.ok(new BsonDocument("fenced", BsonBoolean.valueOf(fenced)));
        });
    }

    /**
     * {@code {_configsvrMoveRange: "db.coll", toShard, find | bounds: [min, max] | min (, max), waitForDelete?,
     * forceJumbo?, toField?}} → {@code {moved: bool, fromShard, toShard, min, max, ok: 1}}: the router's moveChunk and
     * moveRange ({@link MoveRangeCoordinator}); {@code toField} names the recipient field in errors ({@code to} for
     * moveChunk).
     */
    @Bean
    CommandHandler moveRange(MoveRangeCoordinator coordinator) {
        return CommandHandler.of("_configsvrMoveRange", (db, cmd) -> {
            ShardingArgs args = new ShardingArgs(cmd);
            CommandArgs plain = new CommandArgs(cmd);
            List<String> given = List.of("find", "bounds", "min").stream().filter(cmd::containsKey).toList();
            if (given.size() != 1) {
                throw new CommandException(ErrorCode.BadValue, "_configsvrMoveRange needs exactly one of 'find', 'bounds' and 'min', got " + given);
            }
            Target target = switch (given.getFirst()) {
                case "find" -> new Target.Find(args.document("find"));
                case "bounds" -> {
                    List<BsonDocument> bounds = args.documents("bounds");
                    if (bounds.size() != 2) {
                        throw new CommandException(ErrorCode.BadValue, "'bounds' must be [min, max], had " + bounds.size() + " elements");
                    }
                    yield new Target.Bounds(new ChunkRange(bounds.get(0), bounds.get(1)));
                }
                default -> new Target.Range(args.document("min"), args.optionalDocument("max"));
            };
            String toField = cmd.isString("toField") ? cmd.getString("toField").getValue() : "toShard";
            MoveRangeCoordinator.Outcome outcome = coordinator.move(args.namespace().toString(), target, args.string("toShard"), toField,
                    plain.optionalBoolean(cmd, "waitForDelete", "waitForDelete", false),
                    plain.optionalBoolean(cmd, "forceJumbo", "forceJumbo", false));
            return Replies.ok(new BsonDocument("moved", BsonBoolean.valueOf(outcome.moved()))
                    .append("fromShard", new BsonString(outcome.fromShard()))
                    .append("toShard", new BsonString(outcome.toShard()))
                    .append("min", outcome.range().min())
                    .append("max", outcome.range().max()));
        });
    }

    /**
     * {@code {_configsvrLogChange: "<what>", ns, shard, details?}} → {@code {ok: 1}}: a shard's {@code config.changelog}
     * entry ({@link Changelog}), written with the shard as {@code server}.
     */
    @Bean
    CommandHandler logChange(Changelog changelog) {
        return CommandHandler.of("_configsvrLogChange", (db, cmd) -> {
            ShardingArgs args = new ShardingArgs(cmd);
            CommandArgs plain = new CommandArgs(cmd);
            String shard = args.string("shard");
            BsonDocument details = args.optionalDocument("details");
            changelog.record(shard, shard, plain.requiredString("_configsvrLogChange"), args.string("ns"),
                    details == null ? new BsonDocument() : details);
            return Replies.ok();
        });
    }

    /**
     * {@code {_configsvrRefineCollectionShardKey: "db.coll", key}} → {@code {collection: {...}, ok: 1}}; a unique index the
     * new key does not lead is InvalidOptions ({@link UniqueIndexRule}).
     */
    @Bean
    CommandHandler refineCollectionShardKey(ShardedCollectionCatalog collections, UniqueIndexRule uniqueIndexes) {
        return CommandHandler.of("_configsvrRefineCollectionShardKey", (db, cmd) -> {
            ShardingArgs args = new ShardingArgs(cmd);
            uniqueIndexes.requireCompatible(args.namespace(), args.key());
            return Replies.ok(new BsonDocument("collection", collections.refine(args.namespace().toString(), args.key()).toBson()));
        });
    }

    /**
     * {@code {_configsvrCollMod: "db.system.buckets.coll", timeseries: {...}}} → {@code {collection: {...}, ok: 1}}:
     * the bucketing change of a sharded time-series collection, on its buckets namespace
     * ({@link ShardedCollectionCatalog#modifyTimeseries}).
     */
    @Bean
    CommandHandler collMod(ShardedCollectionCatalog collections) {
        return CommandHandler.of("_configsvrCollMod", (db, cmd) -> {
            ShardingArgs args = new ShardingArgs(cmd);
            if (!cmd.containsKey("timeseries")) {
                throw new CommandException(ErrorCode.FailedToParse, "_configsvrCollMod requires 'timeseries'");
            }
            return Replies.ok(new BsonDocument("collection",
                    collections.modifyTimeseries(args.namespace().toString(), cmd.get("timeseries")).toBson()));
        });
    }

    /**
     * {@code {_configsvrDropCollection: "db.coll"}} → {@code {ns: "db.coll", dropped: bool, ok: 1}}; {@code dropped} says
     * whether a sharded collection left the catalog (an unsharded one is still dropped on every shard).
     */
    @Bean
    CommandHandler dropCollection(DropCollectionCoordinator coordinator) {
        return CommandHandler.of("_configsvrDropCollection", (db, cmd) -> {
            Namespace namespace = new ShardingArgs(cmd).namespace();
            boolean dropped = coordinator.drop(namespace);
            return Replies.ok(new BsonDocument("ns", new BsonString(namespace.toString())).append("dropped", BsonBoolean.valueOf(dropped)));
        });
    }
}
