package dev.shardstore.router.command;

import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.error.ErrorReplies;
import dev.shardstore.router.cursor.RouterCursorManager;
import dev.shardstore.router.routing.ConfigServer;
import dev.shardstore.router.routing.ShardReply;
import dev.shardstore.router.routing.VersionedRouter;
import dev.shardstore.support.command.CommandHandler;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonNull;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Commands on unsharded collections, routed to the database's primary shard with its
 * DatabaseVersion (the read commands are {@link ReadCommands}'). Writes create the database when it does not exist; reads of a database that does
 * not exist answer as MongoDB does for an empty one. Shard error replies are re-thrown as they are.
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
        return CommandHandler.of("listCollections", (db, cmd) -> {
            Namespaces.checkUserDatabase(db, "listCollections");
            return router.runOnDatabase(db, false, database -> new ShardReply(database.primary(), router.sendToPrimary(database, cmd)))
                    .map(reply -> cursors.adopt(db, "$cmd.listCollections", reply.shardId(), unwrap(reply)))
                    .orElseGet(() -> Replies.cursor(true, List.of(), 0, db + ".$cmd.listCollections"));
        });
    }

    @Bean
    CommandHandler update() {
        return write("update", true, () -> Replies.ok(new BsonDocument("n", new BsonInt32(0)).append("nModified", new BsonInt32(0))));
    }

    @Bean
    CommandHandler delete() {
        return write("delete", false, () -> Replies.ok(new BsonDocument("n", new BsonInt32(0))));
    }

    /**
     * {@code findAndModify}, also spelled {@code findandmodify}; creates the database like {@code update} (so the
     * reply for a missing database, nothing matched, is never needed but given as MongoDB would).
     */
    @Bean
    CommandHandler findAndModify() {
        CommandHandler handler = write("findAndModify", true, () -> Replies.ok(
                new BsonDocument("lastErrorObject", new BsonDocument("n", new BsonInt32(0))).append("value", BsonNull.VALUE)));
        return withAlias(handler, "findandmodify");
    }

    /** {@code handler} also answering to MongoDB's legacy spelling {@code alias}. */
    private static CommandHandler withAlias(CommandHandler handler, String alias) {
        return new CommandHandler() {
            @Override
            public String name() {
                return handler.name();
            }

            @Override
            public Set<String> aliases() {
                return Set.of(alias);
            }

            @Override
            public BsonDocument run(String db, BsonDocument command) {
                return handler.run(db, command);
            }
        };
    }

    @Bean
    CommandHandler create() {
        return write("create", true, Replies::ok);
    }

    @Bean
    CommandHandler drop() {
        return write("drop", false, Replies::ok);
    }

    /** {@code createIndexes}: forwarded to the primary shard; creates the database (and the collection) when missing. */
    @Bean
    CommandHandler createIndexes() {
        return write("createIndexes", true, Replies::ok);
    }

    /** {@code dropIndexes}: forwarded; a missing database is NamespaceNotFound (26), as for a missing collection. */
    @Bean
    CommandHandler dropIndexes() {
        return write("dropIndexes", false, () -> {
            throw new CommandException(ErrorCode.NamespaceNotFound, "ns not found");
        });
    }

    /** {@code listIndexes}: forwarded; the shard's cursor is adopted like find's. */
    @Bean
    CommandHandler listIndexes() {
        return CommandHandler.of("listIndexes", (db, cmd) -> {
            Namespaces.checkUserDatabase(db, "listIndexes");
            String collection = new CommandArgs(cmd).collectionName();
            ShardReply reply = toPrimary(db, collection, cmd, false)
                    .orElseThrow(() -> new CommandException(ErrorCode.NamespaceNotFound, "ns does not exist: " + db + "." + collection));
            return cursors.adopt(db, collection, reply.shardId(), unwrap(reply));
        });
    }

    /**
     * A command forwarded to the primary shard.
     *
     * @param create      whether it creates the database when missing
     * @param whenMissing the reply when the database does not exist (and {@code create} is false)
     */
    private CommandHandler write(String name, boolean create, Supplier<BsonDocument> whenMissing) {
        return CommandHandler.of(name, (db, cmd) -> {
            Namespaces.checkUserDatabase(db, name);
            String collection = new CommandArgs(cmd).collectionName();
            return toPrimary(db, collection, cmd, create).map(PrimaryShardCommands::unwrap).orElseGet(whenMissing);
        });
    }

    /**
     * Runs {@code cmd} on the primary shard of {@code db} through the versioned loop: the collection's routing is
     * resolved (and its versions attached), and the statement retried on stale routing.
     */
    private Optional<ShardReply> toPrimary(String db, String collection, BsonDocument cmd, boolean create) {
        return router.run(db, collection, create, routing -> {
            String primary = routing.database().primary();
            return new ShardReply(primary, router.send(routing, primary, db, cmd));
        });
    }

    private static BsonDocument unwrap(ShardReply reply) {
        if (ErrorReplies.isError(reply.reply())) {
            throw ErrorReplies.toException(reply.reply());
        }
        return reply.reply();
    }
}
