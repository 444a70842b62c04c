package dev.shardstore.router.command;

import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.error.ErrorReplies;
import dev.shardstore.router.cursor.RouterCursorManager;
import dev.shardstore.router.routing.ShardReply;
import dev.shardstore.router.routing.VersionedRouter;
import dev.shardstore.support.command.CommandHandler;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.bson.BsonDocument;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Database-level commands routed to the database's primary shard with its DatabaseVersion ({@code listCollections},
 * {@code create}; the read commands are {@link ReadCommands}'). {@code create} creates the database when it does
 * not exist; {@code listCollections} of a database that does not exist answers as MongoDB does for an empty one.
 * Shard error replies are re-thrown as they are.
 */
@Configuration
public class PrimaryShardCommands {
    private final VersionedRouter router;
    private final RouterCursorManager cursors;

    public PrimaryShardCommands(VersionedRouter router, RouterCursorManager cursors) {
        this.router = router;
        this.cursors = cursors;
    }

    @Bean
    CommandHandler listCollections() {
        return CommandHandler.of("listCollections", (opCtx, db, cmd) -> {
            Namespaces.checkUserDatabase(db, "listCollections");
            return router.runOnDatabase(opCtx, db, false, database -> new ShardReply(database.primary(), router.sendToPrimary(opCtx, database, cmd)))
                    .map(reply -> cursors.adopt(opCtx, db, "$cmd.listCollections", reply.shardId(), unwrap(reply)))
                    .orElseGet(() -> Replies.cursor(true, List.of(), 0, db + ".$cmd.listCollections"));
        });
    }

    @Bean
    CommandHandler create() {
        return write("create", true, Replies::ok);
    }

    /**
     * A command forwarded to the primary shard.
     *
     * @param create      whether it creates the database when missing
     * @param whenMissing the reply when the database does not exist (and {@code create} is false)
     */
    private CommandHandler write(String name, boolean create, Supplier<BsonDocument> whenMissing) {
        return CommandHandler.of(name, (opCtx, db, cmd) -> {
            Namespaces.checkUserDatabase(db, name);
            String collection = new CommandArgs(cmd).collectionName();
            return toPrimary(opCtx, db, collection, cmd, create).map(PrimaryShardCommands::unwrap).orElseGet(whenMissing);
        });
    }

    /**
     * Runs {@code cmd} on the primary shard of {@code db} through the versioned loop: the collection's routing is
     * resolved (and its versions attached), and the statement retried on stale routing.
     */
    private Optional<ShardReply> toPrimary(OperationContext opCtx, String db, String collection, BsonDocument cmd, boolean create) {
        return router.run(opCtx, db, collection, create, routing -> {
            String primary = routing.database().primary();
            return new ShardReply(primary, router.send(opCtx, routing, primary, db, cmd));
        });
    }

    private static BsonDocument unwrap(ShardReply reply) {
        if (ErrorReplies.isError(reply.reply())) {
            throw ErrorReplies.toException(reply.reply());
        }
        return reply.reply();
    }
}
