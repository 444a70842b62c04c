package dev.shardstore.router.command;

import dev.shardstore.router.write.QueryTargeting;
import dev.shardstore.router.write.WriteWithoutShardKey;
import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.contracts.bson.Collation;
import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.engine.aggregate.expression.CommandVariables;
import dev.shardstore.contracts.error.ErrorReplies;
import dev.shardstore.contracts.sharding.RoutingTable;
import dev.shardstore.router.routing.CollectionRouting;
import dev.shardstore.router.routing.ShardKeyTargeter;
import dev.shardstore.router.routing.VersionedRouter;
import dev.shardstore.support.command.CommandHandler;
import java.util.Optional;
import java.util.Set;
import org.bson.BsonDocument;
import org.springframework.stereotype.Component;

/**
 * {@code findAndModify} (also spelled {@code findandmodify}): forwarded whole to one shard and its reply returned
 * as it is ({@code {lastErrorObject, value, ok}}); a shard's error reply is thrown. Creates the database when
 * missing, like {@code update}.
 *
 * <p>Sharded collection: a {@code query} that pins the shard key with equalities goes to the shard owning that key
 * (not one comparing strings on the key under a non-simple {@code collation}: {@link ShardKeyTargeter#routable});
 * any other (upserts included) runs as {@link WriteWithoutShardKey} (MongoDB 7.1): the one document matching first in
 * {@code sort} order across the shards is modified on its owner, exactly one even when it moves meanwhile.
 */
@Component
public class ClusterFindAndModifyCommand implements CommandHandler {
    private final VersionedRouter router;

    public ClusterFindAndModifyCommand(VersionedRouter router) {
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
    public BsonDocument run(OperationContext opCtx, String db, BsonDocument command) {
        Namespaces.checkUserDatabase(db, "findAndModify");
        CommandArgs args = new CommandArgs(command);
        String collection = args.collectionName();
        BsonDocument query = args.optionalDocument(command, "query", "query");
        boolean upsert = args.optionalBoolean(command, "upsert", "upsert", false);
        CommandVariables.parse(command.get("let"), "let"); // refused before any shard is asked
        BsonDocument reply = router.run(opCtx, db, collection, true, routing -> modify(routing, db, collection, command, query, upsert)).orElseThrow();
        if (ErrorReplies.isError(reply)) {
            throw ErrorReplies.toException(reply);
        }
        return reply;
    }

    private BsonDocument modify(CollectionRouting routing, String db, String collection, BsonDocument command, BsonDocument query, boolean upsert) {
        RoutingTable table = routing.table();
        if (table == null) {
            return router.send(routing, routing.database().primary(), db, command);
        }
        QueryTargeting.requireNotTimeseries(routing, "findAndModify");
        Collation collation = Collation.parse("findAndModify.collation", command.get("collation"));
        Optional<String> owner = QueryTargeting.owner(table, ShardKeyTargeter.routable(table, query, collation));
        if (owner.isPresent()) {
            return router.send(routing, owner.get(), db, command);
        }
        return new WriteWithoutShardKey(router, db, collection, command).findAndModify(routing, upsert);
    }
}
