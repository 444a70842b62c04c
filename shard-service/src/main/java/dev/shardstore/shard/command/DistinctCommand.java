package dev.shardstore.shard.command;

import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.engine.aggregate.expression.CommandVariables;
import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.shard.cursor.Batch;
import dev.shardstore.shard.cursor.FindQuery;
import dev.shardstore.shard.cursor.QueryRunner;
import dev.shardstore.shard.cursor.ShardCursor;
import dev.shardstore.engine.query.DistinctValues;
import dev.shardstore.engine.query.Filter;
import dev.shardstore.shard.storage.CollectionCatalog;
import dev.shardstore.shard.storage.CollectionInfo;
import dev.shardstore.contracts.namespace.Namespace;
import java.util.Optional;
import dev.shardstore.engine.timeseries.TimeseriesRewrite;
import dev.shardstore.shard.timeseries.TimeseriesCollections;
import org.bson.BsonInt32;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;
import org.springframework.stereotype.Component;

/**
 * MongoDB's {@code distinct}: {@code {distinct: <coll>, key: <dotted path>, query?, hint?}} → {@code {values: [...],
 * ok: 1}}, the distinct values of {@code key} among the documents matching {@code query} (an array field
 * contributes its elements; see {@link DistinctValues}), in BSON order; empty for a missing collection.
 * Errors: TypeMismatch (14) when {@code key} is not a string or {@code query} not a document; FailedToParse (9)
 * when {@code key} is absent; the filter's BadValue. On a time-series collection the values are those of its
 * measurements: the find pipeline over its buckets ({@link TimeseriesRewrite#find}, unpacking only the key's top-level
 * field and the filter's fields).
 */
@Component
public class DistinctCommand extends CollectionReadCommand {
    private static final long BATCH = 1000;

    private final QueryRunner queries;

    public DistinctCommand(CommandInvoker invoker, CollectionCatalog catalog, QueryRunner queries, TimeseriesCollections timeseries,
            PipelineRunner pipelines) {
        super(invoker, catalog, timeseries, pipelines);
        this.queries = queries;
    }

    @Override
    public String name() {
        return "distinct";
    }

    @Override
    protected BsonDocument execute(OperationContext opCtx, String db, BsonDocument command) {
        CommandArgs args = new CommandArgs(command);
        Namespace ns = new Namespace(db, args.collectionName());
        Target target = target(ns, command);
        DistinctValues distinct = new DistinctValues(args.requiredString("key"), target.collation());
        BsonDocument query = args.optionalDocument(command, "query", "query");
        Filter filter = Filter.parse(query, CommandVariables.withoutLet(), target.collation()); // distinct has no let
        Optional<CollectionInfo> buckets = target.buckets();
        if (buckets.isPresent()) {
            String key = args.requiredString("key");
            BsonArray pipeline = TimeseriesRewrite.find(TimeseriesCollections.optionsOf(opCtx, buckets.get()).orElseThrow(), query, null,
                    new BsonDocument(key, new BsonInt32(1)), 0, 0);
            pipelines.run(opCtx, buckets.get().namespace(), pipeline, CommandVariables.withoutLet(), null).forEach(distinct::add);
        } else {
            target.collection().ifPresent(c -> scan(opCtx, c, query, filter, command.get("hint"), distinct));
        }
        return Replies.ok(new BsonDocument("values", new BsonArray(distinct.values())));
    }

    private void scan(OperationContext opCtx, CollectionInfo collection, BsonDocument query, Filter filter, @Nullable BsonValue hint, DistinctValues distinct) {
        ShardCursor cursor = queries.find(opCtx, collection, new FindQuery(filter, null, null, 0, 0, query, hint), BATCH);
        for (Batch batch = cursor.next(opCtx, BATCH); ; batch = cursor.next(opCtx, BATCH)) {
            batch.documents().forEach(distinct::add);
            if (batch.exhausted()) {
                return;
            }
        }
    }
}
