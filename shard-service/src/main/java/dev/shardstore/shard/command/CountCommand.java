package dev.shardstore.shard.command;

import dev.shardstore.engine.aggregate.expression.CommandVariables;
import dev.shardstore.contracts.bson.CommandArgs;

import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.shard.cursor.QueryRunner;
import dev.shardstore.engine.query.Filter;
import dev.shardstore.shard.storage.CollectionCatalog;
import dev.shardstore.contracts.namespace.Namespace;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import dev.shardstore.shard.versioning.CollectionAccess;
import org.springframework.stereotype.Component;

/**
 * MongoDB's {@code count}: {@code {count: <coll>, query?, skip?, limit? (0 = none)}} → {@code {n, ok: 1}},
 * the number of matching documents after {@code skip}, at most {@code limit}; 0 for a missing collection.
 */
@Component
public class CountCommand extends ShardCommand {
    private final CollectionCatalog catalog;
    private final QueryRunner queries;

    public CountCommand(CommandInvoker invoker, CollectionCatalog catalog, QueryRunner queries) {
        super(invoker);
        this.catalog = catalog;
        this.queries = queries;
    }

    @Override
    public String name() {
        return "count";
    }

    @Override
    protected CollectionAccess access() {
        return CollectionAccess.READ;
    }

    @Override
    protected BsonDocument execute(String db, BsonDocument command) {
        CommandArgs args = new CommandArgs(command);
        Namespace ns = new Namespace(db, args.collectionName());
        BsonDocument filterSpec = args.optionalDocument(command, "query", "query");
        Filter filter = Filter.parse(filterSpec, CommandVariables.withoutLet()); // count has no let
        long skip = args.optionalNonNegative("skip", 0);
        long limit = args.optionalNonNegative("limit", 0);
        long n = catalog.find(ns).map(c -> queries.count(c, filterSpec, filter, command.get("hint"), skip, limit)).orElse(0L);
        return Replies.ok(new BsonDocument("n", new BsonInt64(n)));
    }
}
