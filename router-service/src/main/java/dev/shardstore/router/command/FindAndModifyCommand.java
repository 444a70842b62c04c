package dev.shardstore.router.command;

import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.engine.aggregate.expression.CommandVariables;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.error.ErrorReplies;
import dev.shardstore.router.routing.CollectionRouting;
import dev.shardstore.router.routing.ShardKeyEqualities;
import dev.shardstore.router.routing.VersionedRouter;
import dev.shardstore.support.command.CommandHandler;
import java.util.Optional;
import java.util.Set;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.springframework.stereotype.Component;

/**
 * {@code findAndModify} (also spelled {@code findandmodify}): forwarded whole to one shard and its reply returned
 * as it is ({@code {lastErrorObject, value, ok}}); a shard's error reply is thrown. Creates the database when
 * missing, like {@code update}.
 *
 * <p>Sharded collection: {@code query} must pin the shard key with equalities (mongos: "Query for sharded
 * findAndModify must contain the shard key", ShardKeyNotFound 61), and an upsert must; without the shard key
 * but with an {@code _id} equality the shards owning chunks are tried one after another until one matched
 * ({@code lastErrorObject.n > 0}), so at most one document is modified even if two shards hold that {@code _id}.
 */
@Component
public class FindAndModifyCommand implements CommandHandler {
    private final VersionedRouter router;

    public FindAndModifyCommand(VersionedRouter router) {
        this.router = router;
    }

    @Override
    public String name() {
        return "findAndModify";
    }

    @Override
    public Set<String> aliases() {
        return Set.of("findandmodify");
    }

    @Override
    public BsonDocument run(String db, BsonDocument command) {
        Namespaces.checkUserDatabase(db, "findAndModify");
        CommandArgs args = new CommandArgs(command);
        String collection = args.collectionName();
        BsonDocument query = args.optionalDocument(command, "query", "query");
        boolean upsert = args.optionalBoolean(command, "upsert", "upsert", false);
        CommandVariables.parse(command.get("let"), "let"); // refused before any shard is asked
        BsonDocument reply = router.run(db, collection, true, routing -> modify(routing, db, command, query, upsert)).orElseThrow();
        if (ErrorReplies.isError(reply)) {
            throw ErrorReplies.toException(reply);
        }
        return reply;
    }

    private BsonDocument modify(CollectionRouting routing, String db, BsonDocument command, BsonDocument query, boolean upsert) {
        if (!routing.isSharded()) {
            return router.send(routing, routing.database().primary(), db, command);
        }
        QueryTargeting.requireNotTimeseries(routing, "findAndModify");
        Optional<String> owner = QueryTargeting.owner(routing.table(), query);
        if (owner.isPresent()) {
            return router.send(routing, owner.get(), db, command);
        }
        if (upsert || !ShardKeyEqualities.hasIdEquality(query)) {
            throw new CommandException(ErrorCode.ShardKeyNotFound, "Query for sharded findAndModify must contain the shard key: query "
                    + query.toJson() + ", shard key pattern: " + routing.table().shardKey().pattern().toJson());
        }
        BsonDocument reply = null;
        for (String shard : routing.table().shards()) {
            reply = router.send(routing, shard, db, command);
            if (ErrorReplies.isError(reply) || matched(reply)) {
                return reply;
            }
        }
        return reply;
    }

    private static boolean matched(BsonDocument reply) {
        BsonDocument last = reply.getDocument("lastErrorObject", new BsonDocument());
        return last.getNumber("n", new BsonInt32(0)).intValue() > 0;
    }
}
