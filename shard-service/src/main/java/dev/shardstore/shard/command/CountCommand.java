package dev.shardstore.shard.command;

import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.engine.aggregate.expression.CommandVariables;
import dev.shardstore.contracts.bson.CommandArgs;

import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.shard.cursor.QueryRunner;
import dev.shardstore.engine.query.Filter;
import dev.shardstore.shard.storage.CollectionCatalog;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.engine.timeseries.TimeseriesRewrite;
import dev.shardstore.shard.storage.CollectionInfo;
import dev.shardstore.shard.timeseries.TimeseriesCollections;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.springframework.stereotype.Component;

/**
 * MongoDB's {@code count}: {@code {count: <coll>, query?, skip?, limit? (0 = none)}} → {@code {n, ok: 1}},
 * the number of matching documents after {@code skip}, at most {@code limit}; 0 for a missing collection. On a
 * time-series collection it counts the measurements: the find pipeline over its buckets
 * ({@link TimeseriesRewrite#find}, unpacking only {@code _id} and the filter's fields) followed by {@code $count}.
 */
@Component
public class CountCommand extends CollectionReadCommand {
    private final QueryRunner queries;

    public CountCommand(CommandInvoker invoker, CollectionCatalog catalog, QueryRunner queries, TimeseriesCollections timeseries,
            PipelineRunner pipelines) {
        super(invoker, catalog, timeseries, pipelines);
        this.queries = queries;
    }

    @Override
    public String name() {
        return "count";
    }

    @Override
    protected BsonDocument execute(OperationContext opCtx, String db, BsonDocument command) {
        CommandArgs args = new CommandArgs(command);
        Namespace ns = new Namespace(db, args.collectionName());
        BsonDocument filterSpec = args.optionalDocument(command, "query", "query");
        Target target = target(ns, command);
        Filter filter = Filter.parse(filterSpec, CommandVariables.withoutLet(), target.collation()); // count has no let
        long skip = args.optionalNonNegative("skip", 0);
        long limit = args.optionalNonNegative("limit", 0);
        long n = target.buckets().isPresent() ? countMeasurements(opCtx, target.buckets().get(), filterSpec, skip, limit)
                : target.collection().map(c -> queries.count(opCtx, c, filterSpec, filter, command.get("hint"), skip, limit)).orElse(0L);
        return Replies.ok(new BsonDocument("n", new BsonInt64(n)));
    }

    private long countMeasurements(OperationContext opCtx, CollectionInfo buckets, BsonDocument filterSpec, long skip, long limit) {
        BsonArray pipeline = TimeseriesRewrite.find(TimeseriesCollections.optionsOf(opCtx, buckets).orElseThrow(), filterSpec, null,
                new BsonDocument("_id", new BsonInt32(1)), skip, limit);
        pipeline.add(new BsonDocument("$count", new BsonString("n")));
        List<BsonDocument> counted = pipelines.run(opCtx, buckets.namespace(), pipeline, CommandVariables.withoutLet(), null);
        return counted.isEmpty() ? 0 : counted.getFirst().getNumber("n").longValue();
    }
}
