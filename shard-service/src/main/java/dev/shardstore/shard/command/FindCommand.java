package dev.shardstore.shard.command;

import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.engine.aggregate.expression.CommandVariables;
import dev.shardstore.contracts.bson.Collation;
import dev.shardstore.contracts.bson.CommandArgs;

import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.shard.cursor.Batch;
import dev.shardstore.shard.cursor.CursorManager;
import dev.shardstore.shard.cursor.FindQuery;
import dev.shardstore.shard.cursor.QueryRunner;
import dev.shardstore.shard.cursor.ShardCursor;
import dev.shardstore.engine.query.Filter;
import dev.shardstore.engine.query.Projection;
import dev.shardstore.engine.query.Sort;
import dev.shardstore.shard.storage.CollectionCatalog;
import dev.shardstore.shard.storage.CollectionInfo;
import dev.shardstore.contracts.namespace.Namespace;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;
import dev.shardstore.engine.timeseries.TimeseriesRewrite;
import dev.shardstore.shard.cursor.ListCursor;
import dev.shardstore.engine.spill.MemoryBudgets;
import dev.shardstore.shard.timeseries.TimeseriesCollections;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.springframework.stereotype.Component;

/**
 * MongoDB's {@code find}: {@code {find: <coll>, filter? ($expr seeing let), let?, sort?, projection?, skip?, limit? (0 = none),
 * batchSize? (default 101), singleBatch? (default false), allowDiskUse?}} → {@code {cursor: {firstBatch, id, ns}, ok: 1}}.
 * A sort no index provides is a blocking sort within {@code internalQueryMaxBlockingSortMemoryUsageBytes} that spills past
 * it unless {@code allowDiskUse} (default {@code allowDiskUseByDefault}) is false, then QueryExceededMemoryLimitNoDiskUseAllowed
 * (292) ({@link MemoryBudgets}).
 * The cursor id is 0 when the first batch holds everything (or {@code singleBatch} is set); otherwise
 * the rest comes from getMore. A missing collection yields an empty, closed cursor. On a time-series collection the
 * find runs as a pipeline over its buckets ({@link TimeseriesRewrite#find}: bucket-level {@code $match}, unpacking
 * only the fields the query needs, then the filter, sort, skip and limit), and the projection is applied after it.
 */
@Component
public class FindCommand extends CollectionReadCommand {
    /** MongoDB's default first batch size. */
    static final long DEFAULT_BATCH_SIZE = 101;

    private final QueryRunner queries;
    private final CursorManager cursors;

    public FindCommand(CommandInvoker invoker, CollectionCatalog catalog, QueryRunner queries,
            CursorManager cursors, TimeseriesCollections timeseries, PipelineRunner pipelines) {
        super(invoker, catalog, timeseries, pipelines);
        this.queries = queries;
        this.cursors = cursors;
    }

    @Override
    public String name() {
        return "find";
    }

    @Override
    protected BsonDocument execute(OperationContext opCtx, String db, BsonDocument command) {
        CommandArgs args = new CommandArgs(command);
        Namespace ns = new Namespace(db, args.collectionName());
        BsonDocument filterSpec = args.optionalDocument(command, "filter", "filter");
        Target target = target(ns, command);
        Collation collation = target.collation();
        Filter filter = Filter.parse(filterSpec, CommandVariables.parse(command.get("let"), "let"), collation);
        BsonDocument sortSpec = args.optionalDocument(command, "sort", "sort");
        BsonDocument projectionSpec = args.optionalDocument(command, "projection", "projection");
        FindQuery query = new FindQuery(filter,
                sortSpec.isEmpty() ? null : Sort.parse(sortSpec, collation),
                projectionSpec.isEmpty() ? null : Projection.parse(projectionSpec),
                args.optionalNonNegative("skip", 0),
                args.optionalNonNegative("limit", 0),
                filterSpec, command.get("hint"));
        long batchSize = args.optionalNonNegative("batchSize", DEFAULT_BATCH_SIZE);
        boolean singleBatch = args.optionalBoolean(command, "singleBatch", "singleBatch", false);
        Optional<CollectionInfo> collection = target.collection();
        if (collection.isEmpty()) {
            return Replies.cursor(true, List.of(), 0, ns.full());
        }
        ShardCursor cursor = target.buckets().isPresent()
                ? timeseriesFind(opCtx, collection.get(), query, filterSpec, sortSpec, projectionSpec, command)
                : queries.findForReply(opCtx, collection.get(), query, batchSize, command);
        Batch first = cursor.next(opCtx, batchSize);
        if (singleBatch) {
            cursor.close(); // its spill files, if any: no getMore will come
        }
        long id = first.exhausted() || singleBatch ? 0 : cursors.register(opCtx, ns.full(), ns, cursor);
        return Replies.cursor(true, first.documents(), id, ns.full());
    }

    /** The find as a pipeline over the buckets ({@link TimeseriesRewrite#find}), with the find projection applied after it. */
    private ShardCursor timeseriesFind(OperationContext opCtx, CollectionInfo buckets, FindQuery query, BsonDocument filterSpec, BsonDocument sortSpec, BsonDocument projectionSpec,
            BsonDocument command) {
        BsonArray pipeline = TimeseriesRewrite.find(TimeseriesCollections.optionsOf(opCtx, buckets).orElseThrow(), filterSpec,
                sortSpec.isEmpty() ? null : sortSpec, projectionSpec.isEmpty() ? null : projectionSpec, query.skip(), query.limit());
        List<BsonDocument> measurements = pipelines.run(opCtx, buckets.namespace(), pipeline,
                CommandVariables.parse(command.get("let"), "let"), null);
        Projection projection = query.projection();
        return new ListCursor(measurements, projection == null ? UnaryOperator.identity() : doc -> projection.apply(doc, query.filter()));
    }
}
