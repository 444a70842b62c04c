package dev.shardstore.shard.command;

import dev.shardstore.support.operation.CurrentOpRequest;
import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.engine.aggregate.expression.CommandVariables;
import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.shard.cursor.Batch;
import dev.shardstore.shard.cursor.CursorManager;
import dev.shardstore.engine.spill.MemoryBudgets;
import dev.shardstore.shard.cursor.ShardCursor;
import dev.shardstore.contracts.namespace.Namespace;
import java.util.Optional;
import dev.shardstore.engine.timeseries.TimeseriesRewrite;
import dev.shardstore.shard.storage.CollectionCatalog;
import dev.shardstore.shard.storage.CollectionInfo;
import dev.shardstore.shard.timeseries.TimeseriesCollections;
import org.bson.BsonValue;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.springframework.stereotype.Component;

/**
 * MongoDB's {@code aggregate} on one collection: {@code {aggregate: <coll>, pipeline: [<stage>, ...],
 * cursor: {batchSize?}, let?, hint?, collation?}} (the variables the pipeline's expressions see; the index of the leading
 * {@code $match}'s scan; the collation every string comparison of the pipeline uses, MongoDB manual "Collation": a
 * leading {@code $match} comparing strings under a non-simple one gets no index bounds) → {@code {cursor: {firstBatch,
 * id, ns}, ok: 1}}, paged by getMore like find (default
 * first batch 101). The collection is scanned with the filter of a leading {@code $match} ({@link
 * Pipeline#scanFilter()}), the matching documents stream through the rest of the pipeline, whose blocking stages keep
 * to the memory budgets and {@code allowDiskUse} ({@link MemoryBudgets}), and the cursor hands out the computed result
 * ({@link PipelineRunner}), held in spill files past the sort budget. A missing collection is read as empty (so {@code $facet}
 * still answers one document). On a time-series collection the pipeline runs over its buckets, after a bucket-level
 * {@code $match} and {@code $_internalUnpackBucket} ({@link TimeseriesRewrite}); a non-simple collation is refused
 * there ({@link TimeseriesCollections#refuseCollation}).
 *
 * <p>On {@code admin}, {@code aggregate: 1} with {@code $currentOp} first lists the shard's running operations
 * ({@link CurrentOpCommands}).
 *
 * <p>Errors: FailedToParse (9) {@code "The 'cursor' option is required"}; TypeMismatch (14) for a
 * non-string collection (another collection-less {@code aggregate: 1} is not supported) or a non-array pipeline;
 * the pipeline's parse and evaluation errors (Location40324, InvalidPipelineOperator (168), ...).
 */
@Component
public class AggregateCommand extends CollectionReadCommand {
    private final CursorManager cursors;
    private final CurrentOpCommands currentOp;

    public AggregateCommand(CommandInvoker invoker, PipelineRunner pipelines, TimeseriesCollections timeseries, CursorManager cursors,
            CollectionCatalog catalog, CurrentOpCommands currentOp) {
        super(invoker, catalog, timeseries, pipelines);
        this.cursors = cursors;
        this.currentOp = currentOp;
    }

    @Override
    public String name() {
        return "aggregate";
    }

    @Override
    protected BsonDocument execute(OperationContext opCtx, String db, BsonDocument command) {
        CommandArgs args = new CommandArgs(command);
        if (CurrentOpRequest.uses(command.get("pipeline"))) {
            cursorOptions(args, command);
            return currentOp.aggregate(opCtx, db, command);
        }
        Namespace ns = new Namespace(db, args.collectionName());
        BsonDocument cursorOptions = cursorOptions(args, command);
        long batchSize = cursorOptions.containsKey("batchSize")
                ? args.nonNegative(cursorOptions.get("batchSize"), "cursor.batchSize") : FindCommand.DEFAULT_BATCH_SIZE;
        if (args.optionalBoolean(command, "explain", "explain", false)) {
            // the router answers {aggregate, explain: true} with the explain command; shards are sent that command
            throw new CommandException(ErrorCode.NotImplemented, "aggregate with explain: true is answered by the explain command on a shard");
        }
        BsonArray stages = args.requiredArray("pipeline");
        Namespace read = ns;
        Target target = target(ns, command);
        CommandVariables variables = CommandVariables.ofCommand(command, target.collation());
        Optional<CollectionInfo> buckets = target.buckets();
        if (buckets.isPresent()) {
            stages = TimeseriesRewrite.aggregate(TimeseriesCollections.optionsOf(opCtx, buckets.get()).orElseThrow(), stages);
            read = buckets.get().namespace();
        }
        ShardCursor cursor = pipelines.cursor(opCtx, read, stages, variables, command.get("hint"), command);
        Batch first = cursor.next(opCtx, batchSize);
        long id = first.exhausted() ? 0 : cursors.register(opCtx, ns.full(), ns, cursor);
        return Replies.cursor(true, first.documents(), id, ns.full());
    }

    /**
     * The command's {@code cursor} options.
     *
     * @throws CommandException FailedToParse (9) without them, TypeMismatch (14) when they are not a document
     */
    private static BsonDocument cursorOptions(CommandArgs args, BsonDocument command) {
        BsonValue cursorSpec = command.get("cursor");
        if (cursorSpec == null) {
            throw new CommandException(ErrorCode.FailedToParse,
                    "The 'cursor' option is required, except for aggregate with the explain argument");
        }
        return args.document(cursorSpec, "cursor");
    }
}
