package dev.shardstore.config.command;

import dev.shardstore.config.catalog.CatalogChunk;
import dev.shardstore.config.catalog.ChunkCommits;
import dev.shardstore.config.catalog.CollectionCatalog;
import dev.shardstore.config.sharding.DropCollectionCoordinator;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.config.sharding.ShardCollectionCoordinator;
import dev.shardstore.config.sharding.SplitChunkCoordinator;
import dev.shardstore.config.sharding.SplitChunkCoordinator.SplitAt;
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
     * {@code {_configsvrShardCollection: "db.coll", key, unique?, numInitialChunks?}} →
     * {@code {collectionsharded: "db.coll", collectionUUID: UUID, ok: 1}}.
     */
    @Bean
    CommandHandler shardCollection(ShardCollectionCoordinator coordinator) {
        return CommandHandler.of("_configsvrShardCollection", (db, cmd) -> {
            ShardingArgs args = new ShardingArgs(cmd);
            CommandArgs plain = new CommandArgs(cmd);
            ShardedCollection sharded = coordinator.shardCollection(args.namespace(), args.key(),
                    plain.optionalBoolean(cmd, "unique", "unique", false), plain.optionalNonNegative("numInitialChunks", 0));
            return Replies.ok(new BsonDocument("collectionsharded", new BsonString(sharded.namespace()))
                    .append("collectionUUID", new BsonBinary(sharded.uuid(), UuidRepresentation.STANDARD)));
        });
    }

    /**
     * {@code {_configsvrGetRoutingTable: "db.coll", sinceVersion?}} → {@code {collection: doc | null, chunks: [...],
     * full: bool, ok: 1}}: only the chunks newer than {@code sinceVersion} when it is of the current epoch.
     */
    @Bean
    CommandHandler getRoutingTable(CollectionCatalog collections) {
        return CommandHandler.of("_configsvrGetRoutingTable", (db, cmd) -> {
            ShardingArgs args = new ShardingArgs(cmd);
            CollectionCatalog.RoutingSnapshot table = collections.routingTable(args.namespace().toString(), args.optionalVersion("sinceVersion"));
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
     * migratedChunk: {min, max}, fromShard, toShard}} → {@code {shardVersion (the donor's), collectionVersion, ok: 1}}.
     */
    @Bean
    CommandHandler commitChunkMigration(ChunkCommits commits) {
        return CommandHandler.of("_configsvrCommitChunkMigration", (db, cmd) -> {
            ShardingArgs args = new ShardingArgs(cmd);
            return Replies.ok(commits.migrate(args.namespace().toString(), args.expectation(), args.range("migratedChunk"),
                    args.string("fromShard"), args.string("toShard")).toBson());
        });
    }

    /** {@code {_configsvrRefineCollectionShardKey: "db.coll", key}} → {@code {collection: {...}, ok: 1}}. */
    @Bean
    CommandHandler refineCollectionShardKey(CollectionCatalog collections) {
        return CommandHandler.of("_configsvrRefineCollectionShardKey", (db, cmd) -> {
            ShardingArgs args = new ShardingArgs(cmd);
            return Replies.ok(new BsonDocument("collection", collections.refine(args.namespace().toString(), args.key()).toBson()));
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
