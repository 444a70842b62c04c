package dev.shardstore.shard.command;

import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.engine.aggregate.CollectionSource;
import dev.shardstore.engine.aggregate.Pipeline;
import dev.shardstore.engine.aggregate.expression.CommandVariables;
import dev.shardstore.engine.query.Filter;
import dev.shardstore.shard.cursor.Batch;
import dev.shardstore.shard.cursor.FindQuery;
import dev.shardstore.shard.cursor.QueryRunner;
import dev.shardstore.shard.cursor.ShardCursor;
import dev.shardstore.shard.storage.CollectionCatalog;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;
import org.springframework.stereotype.Component;

/**
 * Runs an aggregation pipeline over one collection of this shard (for {@code aggregate}, and for {@code find} on a
 * time-series collection, rewritten into a pipeline over its buckets): the collection is scanned with the filter of a
 * leading {@code $match} ({@link Pipeline#scanFilter()}, planned with that {@code $match} and the {@code hint}), the
 * rest runs in memory. A missing collection is read as empty. {@code $lookup} reads other collections of the same
 * database, each under the caller's shared lock of the pipeline's collection.
 */
@Component
class PipelineRunner {
    private final CollectionCatalog catalog;
    private final QueryRunner queries;

    PipelineRunner(CollectionCatalog catalog, QueryRunner queries) {
        this.catalog = catalog;
        this.queries = queries;
    }

    /**
     * The pipeline's output over {@code ns}.
     *
     * @throws dev.shardstore.contracts.error.CommandException the pipeline's parse and evaluation errors
     */
    List<BsonDocument> run(OperationContext opCtx, Namespace ns, BsonArray stages, CommandVariables variables, @Nullable BsonValue hint) {
        CollectionSource source = (collection, filter) -> read(opCtx, new Namespace(ns.db(), collection), filter, null, null);
        Pipeline pipeline = Pipeline.parse(stages, source, variables);
        // the leading $match as given, so the planner can derive index bounds from it (scanFilter is its parse)
        BsonDocument leadingMatch = !stages.isEmpty() && stages.get(0).isDocument()
                && stages.get(0).asDocument().get("$match") instanceof BsonDocument match ? match : null;
        return pipeline.run(read(opCtx, ns, pipeline.scanFilter(), leadingMatch, hint));
    }

    /**
     * The documents of {@code ns} matching {@code filter} in scan order, none when it does not exist; planned on
     * {@code filterSpec} and {@code hint} (both may be null).
     */
    private List<BsonDocument> read(OperationContext opCtx, Namespace ns, Filter filter, @Nullable BsonDocument filterSpec, @Nullable BsonValue hint) {
        return catalog.find(ns).map(collection -> {
            ShardCursor scan = queries.find(opCtx, collection, new FindQuery(filter, null, null, 0, 0, filterSpec, hint), Long.MAX_VALUE);
            List<BsonDocument> documents = new ArrayList<>();
            Batch batch;
            do {
                batch = scan.next(opCtx, Long.MAX_VALUE);
                documents.addAll(batch.documents());
            } while (!batch.exhausted());
            return documents;
        }).orElse(List.of());
    }
}
