package dev.shardstore.shard.command;

import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.engine.aggregate.CollectionSource;
import dev.shardstore.engine.aggregate.Pipeline;
import dev.shardstore.engine.aggregate.expression.CommandVariables;
import dev.shardstore.engine.query.Filter;
import dev.shardstore.engine.spill.MemoryLimits;
import dev.shardstore.shard.cursor.Batch;
import dev.shardstore.shard.cursor.FindQuery;
import dev.shardstore.engine.spill.MemoryBudgets;
import dev.shardstore.shard.cursor.QueryRunner;
import dev.shardstore.shard.cursor.ShardCursor;
import dev.shardstore.shard.cursor.ReadingOperation;
import dev.shardstore.shard.cursor.StreamCursor;
import dev.shardstore.shard.storage.CollectionCatalog;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;
import org.springframework.stereotype.Component;

/**
 * Runs an aggregation pipeline over one collection of this shard (for {@code aggregate}, and for {@code find} on a
 * time-series collection, rewritten into a pipeline over its buckets): the collection is scanned with the filter of a
 * leading {@code $match} ({@link Pipeline#scanFilter()}, planned with that {@code $match} and the {@code hint}), and the
 * scanned documents stream through the rest page by page, blocking stages within the command's {@link MemoryLimits}
 * (docs/architecture.md "Memory limits"). A missing collection is read as empty. {@code $lookup} reads other
 * collections of the same database, each under the caller's shared lock of the pipeline's collection.
 */
@Component
class PipelineRunner {
    private final CollectionCatalog catalog;
    private final QueryRunner queries;
    private final MemoryBudgets budgets;

    PipelineRunner(CollectionCatalog catalog, QueryRunner queries, MemoryBudgets budgets) {
        this.catalog = catalog;
        this.queries = queries;
        this.budgets = budgets;
    }

    /**
     * The whole output of the pipeline over {@code ns}, with the shard's default limits (for count, distinct and
     * time-series finds, whose outputs are small or paged by the caller).
     *
     * @throws dev.shardstore.contracts.error.CommandException the pipeline's parse and evaluation errors, 292 as
     *                                                         {@link MemoryLimits} says
     */
    List<BsonDocument> run(OperationContext opCtx, Namespace ns, BsonArray stages, CommandVariables variables, @Nullable BsonValue hint) {
        try (Stream<BsonDocument> output = stream(opCtx, ns, stages, variables, hint, budgets.defaults(opCtx::checkForInterrupt)).documents()) {
            return output.toList();
        }
    }

    /**
     * The pipeline's output over {@code ns} as a cursor for getMores that reads no database after the command: the
     * scan ends before the command does. What is read before the database is done with is held in memory up to the
     * sort budget and past it, with disk use, in spill files the cursor deletes when it closes; the rest (the output
     * of a blocking stage that consumed the scan, when no later stage reads a collection) comes straight from that
     * stage ({@link StreamCursor#buffered}). Its limits are {@code command}'s ({@link MemoryBudgets#of}).
     *
     * @throws dev.shardstore.contracts.error.CommandException as {@link #run}
     */
    ShardCursor cursor(OperationContext opCtx, Namespace ns, BsonArray stages, CommandVariables variables, @Nullable BsonValue hint,
            BsonDocument command) {
        ReadingOperation reading = new ReadingOperation(opCtx); // each getMore's operation, once it reads
        MemoryLimits limits = budgets.of(command, reading);
        Output output = stream(opCtx, ns, stages, variables, hint, limits);
        return StreamCursor.buffered(output.documents(), limits, UnaryOperator.identity(), output.readsDone(), reading);
    }

    /**
     * A pipeline's output, to be closed by the caller.
     *
     * @param readsDone true once reading the rest of {@code documents} reads no database: the scan has ended (a blocking
     *                  stage read it to its end) and no stage reads another collection
     */
    private record Output(Stream<BsonDocument> documents, BooleanSupplier readsDone) {}

    /** The pipeline's output over {@code ns}. */
    private Output stream(OperationContext opCtx, Namespace ns, BsonArray stages, CommandVariables variables, @Nullable BsonValue hint,
            MemoryLimits limits) {
        CollectionSource source = (collection, filter) -> {
            try (Stream<BsonDocument> read = scan(opCtx, new Namespace(ns.db(), collection), filter, null, null)) {
                return read.toList();
            }
        };
        Pipeline pipeline = Pipeline.parse(stages, source, variables, limits);
        // the leading $match as given, so the planner can derive index bounds from it (scanFilter is its parse)
        BsonDocument leadingMatch = !stages.isEmpty() && stages.get(0).isDocument()
                && stages.get(0).asDocument().get("$match") instanceof BsonDocument match ? match : null;
        AtomicBoolean scanEnded = new AtomicBoolean();
        Stream<BsonDocument> scanned = scan(opCtx, ns, pipeline.scanFilter(), leadingMatch, hint).onClose(() -> scanEnded.set(true));
        boolean lookups = pipeline.readsOtherCollections();
        return new Output(pipeline.stream(scanned), () -> scanEnded.get() && !lookups);
    }

    /**
     * The documents of {@code ns} matching {@code filter} in scan order, none when it does not exist, read a batch at a
     * time as the stream is consumed; planned on {@code filterSpec} and {@code hint} (both may be null).
     */
    private Stream<BsonDocument> scan(OperationContext opCtx, Namespace ns, Filter filter, @Nullable BsonDocument filterSpec,
            @Nullable BsonValue hint) {
        return catalog.find(ns).map(collection -> {
            ShardCursor scan = queries.find(opCtx, collection, new FindQuery(filter, null, null, 0, 0, filterSpec, hint), Long.MAX_VALUE);
            Iterator<BsonDocument> documents = new Iterator<>() {
                private Iterator<BsonDocument> batch = List.<BsonDocument>of().iterator();
                private boolean exhausted;

                @Override
                public boolean hasNext() {
                    while (!batch.hasNext() && !exhausted) {
                        Batch next = scan.next(opCtx, Long.MAX_VALUE);
                        exhausted = next.exhausted();
                        batch = new ArrayList<>(next.documents()).iterator();
                    }
                    return batch.hasNext();
                }

                @Override
                public BsonDocument next() {
                    if (!hasNext()) {
                        throw new NoSuchElementException();
                    }
                    return batch.next();
                }
            };
            return StreamSupport.stream(Spliterators.spliteratorUnknownSize(documents, Spliterator.ORDERED), false).onClose(scan::close);
        }).orElse(Stream.empty());
    }
}
