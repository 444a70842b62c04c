package dev.shardstore.config.command;

import dev.shardstore.config.catalog.CatalogChunk;
import dev.shardstore.config.catalog.ChunkCatalog;
import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.sharding.ChunkRange;
import dev.shardstore.config.sharding.MoveRangeCoordinator;
import dev.shardstore.support.command.CommandHandler;
import java.util.List;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A chunk's {@code jumbo} flag (mongo/src/mongo/db/s/README.md "Jumbo Chunks"): the balancer sets it when a migration of the chunk failed
 * because it is too big, and never chooses such a chunk again; {@code clearJumboFlag} clears it. The flag concerns only the
 * balancer, so changing it bumps no version.
 */
@Configuration
public class JumboFlags {
    /**
     * {@code {_configsvrClearJumboFlag: "db.coll", find | bounds}} → {@code {ok: 1}}: the router's {@code clearJumboFlag}
     * (MongoDB's names); the chunk is resolved as moveChunk resolves it (NamespaceNotSharded, ShardKeyNotFound naming
     * {@code find}, BadValue naming {@code bounds}).
     */
    @Bean
    CommandHandler clearJumboFlag(MoveRangeCoordinator chunksOf, ChunkCatalog chunks) {
        return CommandHandler.of("_configsvrClearJumboFlag", (db, cmd) -> {
            ShardingArgs args = new ShardingArgs(cmd);
            List<String> given = List.of("find", "bounds").stream().filter(cmd::containsKey).toList();
            if (given.size() != 1) {
                throw new CommandException(ErrorCode.BadValue, "clearJumboFlag needs exactly one of 'find' and 'bounds', got " + given);
            }
            MoveRangeCoordinator.Target target;
            if (given.getFirst().equals("find")) {
                target = new MoveRangeCoordinator.Target.Find(args.document("find"));
            } else {
                List<BsonDocument> bounds = args.documents("bounds");
                if (bounds.size() != 2) {
                    throw new CommandException(ErrorCode.BadValue, "'bounds' must be [min, max], had " + bounds.size() + " elements");
                }
                target = new MoveRangeCoordinator.Target.Bounds(new ChunkRange(bounds.get(0), bounds.get(1)));
            }
            CatalogChunk chunk = chunksOf.chunk(args.namespace().toString(), target);
            chunks.setJumbo(chunk, false);
            return Replies.ok();
        });
    }

    /**
     * {@code {_configsvrSetJumboFlag: "db.coll", min, jumbo: bool}} → {@code {ok: 1}}: sets the flag of the chunk holding
     * {@code min}; the balancer's call after a migration refused with ChunkTooBig (MongoDB's balancer marks the chunk itself).
     */
    @Bean
    CommandHandler setJumboFlag(MoveRangeCoordinator chunksOf, ChunkCatalog chunks) {
        return CommandHandler.of("_configsvrSetJumboFlag", (db, cmd) -> {
            ShardingArgs args = new ShardingArgs(cmd);
            boolean jumbo = new CommandArgs(cmd).optionalBoolean(cmd, "jumbo", "jumbo", true);
            CatalogChunk chunk = chunksOf.chunk(args.namespace().toString(), new MoveRangeCoordinator.Target.Range(args.document("min"), null));
            chunks.setJumbo(chunk, jumbo);
            return Replies.ok(new BsonDocument("jumbo", BsonBoolean.valueOf(jumbo)).append("chunk", chunk.range().toBson()));
        });
    }
}
