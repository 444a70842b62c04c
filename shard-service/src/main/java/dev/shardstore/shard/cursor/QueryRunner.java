package dev.shardstore.shard.cursor;

import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.engine.spill.ExternalSorter;
import dev.shardstore.engine.spill.MemoryBudgets;
import dev.shardstore.engine.spill.MemoryLimits;
import dev.shardstore.engine.spill.SpillStats;
import dev.shardstore.engine.query.Filter;
import dev.shardstore.shard.storage.CollectionInfo;
import dev.shardstore.shard.storage.DocumentStore;
import dev.shardstore.shard.storage.SnapshotRead;
import java.util.Optional;
import java.util.stream.Stream;
import dev.shardstore.engine.query.Sort;
import java.util.function.UnaryOperator;
import dev.shardstore.shard.plan.Plan;
import dev.shardstore.shard.plan.QueryPlanner;
import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonValue;
import dev.shardstore.shard.versioning.OperationShardingState;
import org.jspecify.annotations.Nullable;
import org.springframework.stereotype.Component;

/**
 * Plans ({@link QueryPlanner}) and starts queries over one collection: an {@code _id} equality reads by
 * primary key, a filter an index bounds scans that index's range, any other filter scans in {@code _id} order; a sort is a
 * blocking sort within {@code internalQueryMaxBlockingSortMemoryUsageBytes} ({@link MemoryBudgets}) that spills sorted runs
 * to disk past it when the find allows disk use ({@link ExternalSorter}), and whose result the cursor keeps (in memory, or
 * as those files until the cursor closes); an unsorted find pages lazily. A snapshot read outside a transaction
 * ({@link SnapshotRead}) keeps its whole result too, under the same budget.
 */
@Component
public class QueryRunner {
    private final DocumentStore store;
    private final QueryPlanner planner;
    private final MemoryBudgets budgets;

    public QueryRunner(DocumentStore store, QueryPlanner planner, MemoryBudgets budgets) {
        this.planner = planner;
        this.store = store;
        this.budgets = budgets;
    }

    /**
     * Starts a find whose blocking sort keeps to the shard's default limits ({@link MemoryBudgets#defaults()}).
     *
     * @param expected documents the first batch will probably take (sizes the first page read)
     * @throws dev.shardstore.contracts.error.CommandException QueryExceededMemoryLimitNoDiskUseAllowed (292)
     *                                                         when a sort needs more memory than allowed and may not spill
     */
    public ShardCursor find(OperationContext opCtx, CollectionInfo c, FindQuery query, long expected) {
        return find(opCtx, c, query, expected, false, new BsonDocument());
    }

    /**
     * {@link #find} for a cursor whose batches only go into replies ({@code find}, {@code getMore}): an unprojected find
     * in {@code _id} order returns each document as its stored bytes (a read-only {@link org.bson.RawBsonDocument}),
     * which the reply copies whole instead of re-encoding field by field (issue 10: a YCSB scan's shard spent about
     * a quarter of its CPU encoding the decoded documents' strings).
     *
     * @param command the find command: its {@code allowDiskUse} and the shard's sort budget ({@link MemoryBudgets#of})
     * @throws dev.shardstore.contracts.error.CommandException as {@link #find}; TypeMismatch (14) for a non-boolean
     *                                                         {@code allowDiskUse}
     */
    public ShardCursor findForReply(OperationContext opCtx, CollectionInfo c, FindQuery query, long expected, BsonDocument command) {
        return find(opCtx, c, query, expected, true, command);
    }

    private ShardCursor find(OperationContext opCtx, CollectionInfo c, FindQuery query, long expected, boolean asStored, BsonDocument command) {
        ReadingOperation reading = new ReadingOperation(opCtx);
        MemoryLimits limits = budgets.of(command, reading);
        Plan plan = planner.plan(c, query.filterSpec(), query.filter(), query.hint());
        UnaryOperator<BsonDocument> projection = Optional.ofNullable(query.projection())
                .<UnaryOperator<BsonDocument>>map(p -> doc -> p.apply(doc, query.filter()))
                .orElse(null);
        SnapshotRead snapshot = SnapshotRead.of(opCtx);
        // a snapshot read's rows come in plan order, then the overlay's (MatchingScan); outside a transaction its later
        // batches could not be read in its snapshot, so its cursor keeps the whole result
        boolean streams = snapshot == null ? query.sort() == null || query.sort().leadsWithAscendingId() && Plan.readsInIdOrder(plan)
                : snapshot.transaction() && query.sort() == null;
        if (streams) {
            long firstBatch = Math.max(1, query.limit() == 0 ? expected : Math.min(expected, query.limit()));
            int firstPage = (int) Math.min(wanted(query.skip(), firstBatch), MatchingScan.MAX_PAGE_ROWS);
            return new ScanCursor(new MatchingScan(opCtx, store, c, query.filter(), firstPage, plan), projection, asStored, query.skip(),
                    query.limit());
        }
        return new StreamCursor(blockingSort(opCtx, c, query, plan, limits, new SpillStats()).skip(query.skip()),
                projection == null ? UnaryOperator.identity() : projection, reading);
    }

    /**
     * For explain's {@code executionStats}: runs the blocking sort of {@code query} (a sort no index provides) to its end and
     * reports what it wrote to disk, as the fields of MongoDB's SORT stage ({@code {stage: "SORT", sortPattern, memLimit,
     * usedDisk, spills, spilledBytes}}); empty when the query has no sort or its plan provides the order.
     *
     * @throws dev.shardstore.contracts.error.CommandException 292 as {@link #find}
     */
    public Optional<BsonDocument> explainSort(OperationContext opCtx, CollectionInfo c, FindQuery query, BsonDocument sortSpec, MemoryLimits limits) {
        Plan plan = planner.plan(c, query.filterSpec(), query.filter(), query.hint());
        if (query.sort() == null || query.sort().leadsWithAscendingId() && Plan.readsInIdOrder(plan)) {
            return Optional.empty();
        }
        SpillStats stats = new SpillStats();
        try (Stream<BsonDocument> sorted = blockingSort(opCtx, c, query, plan, limits, stats)) {
            sorted.forEach(document -> { }); // reads the merge, as the cursor would
        }
        return Optional.of(new BsonDocument("stage", new BsonString("SORT")).append("sortPattern", sortSpec)
                .append("memLimit", new BsonInt64(limits.sortBytes())).append("type", new BsonString("simple"))
                .append("usedDisk", BsonBoolean.valueOf(stats.usedDisk())).append("spills", new BsonInt64(stats.spills()))
                .append("spilledBytes", new BsonInt64(stats.spilledBytes())));
    }

    /** The best {@code skip + limit} matches of {@code query} in its order, sorted within {@code limits}; the caller closes it. */
    private Stream<BsonDocument> blockingSort(OperationContext opCtx, CollectionInfo c, FindQuery query, Plan plan, MemoryLimits limits,
            SpillStats stats) {
        Sort sort = query.sort();
        ExternalSorter sorter = ExternalSorter.of("find", sort == null ? (a, b) -> 0 : sort.comparator(), wanted(query.skip(), query.limit()),
                limits, stats);
        try {
            MatchingScan scan = new MatchingScan(opCtx, store, c, query.filter(), MatchingScan.MAX_PAGE_ROWS, plan);
            for (Optional<Match> m = scan.peek(); m.isPresent(); m = scan.peek()) {
                sorter.add(m.get().document(), m.get().stored().size());
                scan.consume();
            }
        } catch (RuntimeException | Error e) { // an OutOfMemoryError too: the spill files go, whatever ends the read
            sorter.close();
            throw e;
        }
        return sorter.sorted();
    }

    /**
     * The number of documents matching {@code filter}, after {@code skip} and capped by {@code limit}
     * (0 for none), as MongoDB's {@code count} command computes it. A filter that matches everything
     * counts rows without reading documents.
     */
    public long count(OperationContext opCtx, CollectionInfo c, Filter filter, long skip, long limit) {
        return count(opCtx, c, null, filter, null, skip, limit);
    }

    /**
     * {@link #count(OperationContext, CollectionInfo, Filter, long, long)} planned with the filter document and a
     * {@code hint} ({@link QueryPlanner}).
     */
    public long count(OperationContext opCtx, CollectionInfo c, @Nullable BsonDocument filterSpec, Filter filter, @Nullable BsonValue hint, long skip, long limit) {
        long cap = wanted(skip, limit);
        long matching;
        Plan plan = planner.plan(c, filterSpec, filter, hint);
        // counting rows is only right when no orphan may hide among them
        if (filter.isMatchAll() && plan instanceof Plan.CollScan
                && OperationShardingState.filterFor(opCtx, c.namespace().full()).isEmpty()) {
            matching = store.count(c);
        } else {
            matching = 0;
            MatchingScan scan = new MatchingScan(opCtx, store, c, filter, MatchingScan.MAX_PAGE_ROWS, plan);
            for (Optional<Match> m = scan.peek(); m.isPresent() && matching < cap; m = scan.peek()) {
                matching++;
                scan.consume();
            }
        }
        return Math.max(0, Math.min(matching, cap) - skip);
    }

    /**
     * Explain of a find or count: the plan and, with {@code executionStats}, a run of the query to
     * its end (no projection, sort in memory) counting what it read.
     *
     * @return {@code {queryPlanner, executionStats?}} without {@code ok}
     */
    public BsonDocument explain(OperationContext opCtx, CollectionInfo c, @Nullable BsonDocument filterSpec, Filter filter, @Nullable BsonValue hint,
            long skip, long limit, boolean executionStats) {
        BsonDocument parsed = filterSpec == null ? new BsonDocument() : filterSpec;
        Plan plan = planner.plan(c, filterSpec, filter, hint);
        BsonDocument out = new BsonDocument("queryPlanner", new BsonDocument("namespace", new BsonString(c.namespace().full()))
                .append("parsedQuery", parsed)
                .append("winningPlan", plan.winningPlan(parsed))
                .append("rejectedPlans", new BsonArray()));
        if (executionStats) {
            long start = System.nanoTime();
            long cap = wanted(skip, limit);
            long matching = 0;
            MatchingScan scan = new MatchingScan(opCtx, store, c, filter, MatchingScan.MAX_PAGE_ROWS, plan);
            for (Optional<Match> m = scan.peek(); m.isPresent() && matching < cap; m = scan.peek()) {
                matching++;
                scan.consume();
            }
            long returned = Math.max(0, matching - skip);
            out.append("executionStats", new BsonDocument("executionSuccess", BsonBoolean.TRUE)
                    .append("nReturned", new BsonInt64(returned))
                    .append("executionTimeMillis", new BsonInt64((System.nanoTime() - start) / 1_000_000))
                    .append("totalKeysExamined", new BsonInt64(scan.keysExamined()))
                    .append("totalDocsExamined", new BsonInt64(scan.docsExamined())));
        }
        return out;
    }

    /** Matching documents a query with {@code skip} and {@code limit} (0 = none) needs to see at most. */
    private static long wanted(long skip, long limit) {
        return limit == 0 || skip > Long.MAX_VALUE - limit ? Long.MAX_VALUE : skip + limit;
    }
}
