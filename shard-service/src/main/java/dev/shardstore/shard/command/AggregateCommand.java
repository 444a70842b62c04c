package dev.shardstore.shard.command;

import dev.shardstore.engine.aggregate.expression.CommandVariables;
import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.engine.aggregate.CollectionSource;
import dev.shardstore.engine.aggregate.Pipeline;
import dev.shardstore.shard.cursor.Batch;
import dev.shardstore.shard.cursor.CursorManager;
import dev.shardstore.shard.cursor.FindQuery;
import dev.shardstore.shard.cursor.ListCursor;
import dev.shardstore.shard.cursor.QueryRunner;
import dev.shardstore.shard.cursor.ShardCursor;
import dev.shardstore.engine.query.Filter;
import dev.shardstore.shard.storage.CollectionCatalog;
import dev.shardstore.contracts.namespace.Namespace;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import dev.shardstore.shard.versioning.CollectionAccess;
import org.springframework.stereotype.Component;

/**
 * MongoDB's {@code aggregate} on one collection: {@code {aggregate: <coll>, pipeline: [<stage>, ...],
 * cursor: {batchSize?}, let?, hint?}} (the variables the pipeline's expressions see; the index of the leading
 * {@code $match}'s scan) → {@code {cursor: {firstBatch, id, ns}, ok: 1}}, paged by getMore like find (default
 * first batch 101). The collection is scanned with the filter of a leading {@code $match} ({@link
 * Pipeline#scanFilter()}), the rest of the pipeline runs in memory over the matching documents, and the cursor
 * hands out the computed result. A missing collection is read as empty (so {@code $facet} still answers one
 * document). {@code $lookup} reads other collections of the same database through this command's
 * {@link CollectionSource}, each under its shared collection lock.
 *
 * <p>Errors: FailedToParse (9) {@code "The 'cursor' option is required"}; TypeMismatch (14) for a
 * non-string collection (collection-less {@code aggregate: 1} is not supported) or a non-array pipeline;
 * the pipeline's parse and evaluation errors (Location40324, InvalidPipelineOperator (168), ...).
 */
@Component
public class AggregateCommand extends ShardCommand {
    private final CollectionCatalog catalog;
    private final QueryRunner queries;
    private final CursorManager cursors;

    public AggregateCommand(CommandInvoker invoker, CollectionCatalog catalog, QueryRunner queries,
            CursorManager cursors) {
        super(invoker);
        this.catalog = catalog;
        this.queries = queries;
        this.cursors = cursors;
    }

    @Override
    public String name() {
        return "aggregate";
    }

    @Override
    protected CollectionAccess access() {
        return CollectionAccess.READ;
    }

    @Override
    protected BsonDocument execute(String db, BsonDocument command) {
        CommandArgs args = new CommandArgs(command);
        Namespace ns = new Namespace(db, args.collectionName());
        BsonValue cursorSpec = command.get("cursor");
        if (cursorSpec == null) {
            throw new CommandException(ErrorCode.FailedToParse,
                    "The 'cursor' option is required, except for aggregate with the explain argument");
        }
        BsonDocument cursorOptions = args.document(cursorSpec, "cursor");
        long batchSize = cursorOptions.containsKey("batchSize")
                ? args.nonNegative(cursorOptions.get("batchSize"), "cursor.batchSize") : FindCommand.DEFAULT_BATCH_SIZE;
        if (args.optionalBoolean(command, "explain", "explain", false)) {
            // the router answers {aggregate, explain: true} with the explain command; shards are sent that command
            throw new CommandException(ErrorCode.NotImplemented, "aggregate with explain: true is answered by the explain command on a shard");
        }
        CollectionSource source = (collection, filter) -> read(new Namespace(db, collection), filter, null, null);
        BsonArray stages = args.requiredArray("pipeline");
        Pipeline pipeline = Pipeline.parse(stages, source, CommandVariables.parse(command.get("let"), "let"));
        // the leading $match as given, so the planner can derive index bounds from it (scanFilter is its parse)
        BsonDocument leadingMatch = !stages.isEmpty() && stages.get(0).isDocument()
                && stages.get(0).asDocument().get("$match") instanceof BsonDocument match ? match : null;
        List<BsonDocument> results = pipeline.run(read(ns, pipeline.scanFilter(), leadingMatch, command.get("hint")));
        ShardCursor cursor = new ListCursor(results, UnaryOperator.identity());
        Batch first = cursor.next(batchSize);
        long id = first.exhausted() ? 0 : cursors.register(ns.full(), ns, cursor);
        return Replies.cursor(true, first.documents(), id, ns.full());
    }

    /**
     * The documents of {@code ns} matching {@code filter} in scan order, none when it does not exist; planned on
     * {@code filterSpec} and {@code hint} (both may be null).
     */
    private List<BsonDocument> read(Namespace ns, Filter filter, BsonDocument filterSpec, BsonValue hint) {
        return catalog.find(ns).map(collection -> {
            ShardCursor scan = queries.find(collection, new FindQuery(filter, null, null, 0, 0, filterSpec, hint), Long.MAX_VALUE);
            List<BsonDocument> documents = new ArrayList<>();
            Batch batch;
            do {
                batch = scan.next(Long.MAX_VALUE);
                documents.addAll(batch.documents());
            } while (!batch.exhausted());
            return documents;
        }).orElse(List.of());
    }
}
