package dev.shardstore.shard.command;

import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.engine.aggregate.expression.CommandVariables;
import dev.shardstore.contracts.bson.Collation;
import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.engine.query.Sort;
import dev.shardstore.engine.spill.MemoryBudgets;
import dev.shardstore.shard.cursor.FindQuery;
import dev.shardstore.shard.cursor.QueryRunner;
import dev.shardstore.engine.query.Filter;
import dev.shardstore.shard.storage.CollectionCatalog;
import dev.shardstore.shard.storage.CollectionCollation;
import dev.shardstore.shard.storage.CollectionInfo;
import dev.shardstore.contracts.namespace.Namespace;
import java.util.Optional;
import dev.shardstore.contracts.timeseries.TimeseriesOptions;
import dev.shardstore.engine.timeseries.TimeseriesRewrite;
import dev.shardstore.shard.timeseries.TimeseriesCollections;
import java.util.Set;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;
import dev.shardstore.shard.versioning.CollectionAccess;
import org.jspecify.annotations.Nullable;
import org.springframework.stereotype.Component;

/**
 * MongoDB's {@code explain}: {@code {explain: {find | count | update | delete | aggregate ...}, verbosity?}}
 * → {@code {queryPlanner: {namespace, parsedQuery, winningPlan, rejectedPlans: []}, executionStats?, ok}}.
 * The query explained is a find's {@code filter}, a count's {@code query}, the first update or delete
 * statement's {@code q}, or an aggregate's leading {@code $match}, with the command's {@code hint}.
 * {@code executionStats} and {@code allPlansExecution} (the default, as in MongoDB) run the read part to
 * its end and report {@code nReturned}, {@code totalKeysExamined}, {@code totalDocsExamined},
 * {@code executionTimeMillis}, and for a find whose sort no index provides its blocking sort as {@code executionStages}
 * ({@code {stage: "SORT", sortPattern, memLimit, usedDisk, spills, spilledBytes}}, MongoDB's fields, under the find's
 * {@code allowDiskUse}); writes are not performed. A missing collection explains as {@code EOF}. A find or
 * aggregate on a time-series collection explains its scan of the buckets and lists the rewritten pipeline under
 * {@code stages}.
 */
@Component
public class ExplainCommand extends ShardCommand {
    private static final Set<String> VERBOSITIES = Set.of("queryPlanner", "executionStats", "allPlansExecution");

    private final CollectionCatalog catalog;
    private final QueryRunner queries;
    private final TimeseriesCollections timeseries;
    private final MemoryBudgets budgets;

    public ExplainCommand(CommandInvoker invoker, CollectionCatalog catalog, QueryRunner queries, TimeseriesCollections timeseries,
            MemoryBudgets budgets) {
        super(invoker);
        this.catalog = catalog;
        this.queries = queries;
        this.timeseries = timeseries;
        this.budgets = budgets;
    }

    @Override
    protected boolean servesTimeseries() {
        return true;
    }

    @Override
    public String name() {
        return "explain";
    }

    @Override
    protected CollectionAccess access() {
        return CollectionAccess.READ;
    }

    /** The explained command's collection: its {@code shardVersion} sits next to {@code explain}. */
    @Override
    protected @Nullable Namespace namespace(String db, BsonDocument command) {
        BsonValue inner = command.get("explain");
        return inner != null && inner.isDocument() ? super.namespace(db, inner.asDocument()) : null;
    }

    @Override
    protected BsonDocument execute(OperationContext opCtx, String db, BsonDocument command) {
        BsonValue inner = command.get("explain");
        if (inner == null || !inner.isDocument() || inner.asDocument().isEmpty()) {
            throw new CommandException(ErrorCode.FailedToParse, "explain command requires a nested object");
        }
        BsonDocument explained = inner.asDocument();
        String verbosity = command.containsKey("verbosity") && command.get("verbosity").isString()
                ? command.getString("verbosity").getValue() : "allPlansExecution";
        if (!VERBOSITIES.contains(verbosity)) {
            throw new CommandException(ErrorCode.FailedToParse, "verbosity string must be one of {'queryPlanner', 'executionStats', 'allPlansExecution'}");
        }
        String kind = explained.getFirstKey();
        CommandArgs args = new CommandArgs(explained);
        Namespace ns = new Namespace(db, args.collectionName());
        Optional<CollectionInfo> buckets = timeseries.buckets(ns);
        if (buckets.isPresent()) {
            return Replies.ok(explainTimeseries(opCtx, buckets.get(), kind, args, explained, verbosity));
        }
        BsonDocument filterSpec;
        long skip = 0;
        long limit = 0;
        String collationPath = kind + ".collation";
        BsonValue collationSpec = explained.get("collation");
        switch (kind) {
            case "find" -> {
                filterSpec = args.optionalDocument(explained, "filter", "filter");
                skip = args.optionalNonNegative("skip", 0);
                limit = args.optionalNonNegative("limit", 0);
            }
            case "count" -> {
                filterSpec = args.optionalDocument(explained, "query", "query");
                skip = args.optionalNonNegative("skip", 0);
                limit = args.optionalNonNegative("limit", 0);
            }
            case "update", "delete" -> {
                BsonArray statements = args.requiredArray(kind.equals("update") ? "updates" : "deletes");
                if (statements.isEmpty() || !statements.get(0).isDocument()) {
                    throw new CommandException(ErrorCode.FailedToParse, "explain of " + kind + " needs one statement");
                }
                filterSpec = args.optionalDocument(statements.get(0).asDocument(), "q", kind + "s.0.q");
                collationPath = kind + "." + kind + "s.0.collation"; // a write's collation is its statement's
                collationSpec = statements.get(0).asDocument().get("collation");
            }
            case "aggregate" -> {
                BsonArray pipeline = args.requiredArray("pipeline");
                filterSpec = !pipeline.isEmpty() && pipeline.get(0).isDocument() && pipeline.get(0).asDocument().containsKey("$match")
                        ? args.document(pipeline.get(0).asDocument().get("$match"), "pipeline.0.$match")
                        : new BsonDocument();
            }
            default -> throw new CommandException(ErrorCode.CommandNotFound, "Explain failed due to unknown command: " + kind);
        }
        // the plan the command itself would run: under its collation, else the collection's default
        Optional<CollectionInfo> c = catalog.find(ns);
        Collation collation = CollectionCollation.effective(collationPath, collationSpec, c);
        Filter filter = Filter.parse(filterSpec, CommandVariables.parse(explained.get("let"), "explain.let"), collation);
        BsonValue hint = explained.get("hint");
        boolean stats = !verbosity.equals("queryPlanner");
        BsonDocument reply;
        if (c.isEmpty()) {
            reply = new BsonDocument("queryPlanner", new BsonDocument("namespace", new BsonString(ns.full()))
                    .append("parsedQuery", filterSpec)
                    .append("winningPlan", new BsonDocument("stage", new BsonString("EOF")))
                    .append("rejectedPlans", new BsonArray()));
            if (stats) {
                reply.append("executionStats", BsonDocument.parse(
                        "{executionSuccess: true, nReturned: {$numberLong: '0'}, executionTimeMillis: {$numberLong: '0'},"
                                + " totalKeysExamined: {$numberLong: '0'}, totalDocsExamined: {$numberLong: '0'}}"));
            }
        } else {
            reply = queries.explain(opCtx, c.get(), filterSpec, filter, hint, skip, limit, stats);
            BsonDocument sortSpec = kind.equals("find") ? args.optionalDocument(explained, "sort", "sort") : new BsonDocument();
            if (stats && !sortSpec.isEmpty()) {
                // the blocking sort's own statistics, MongoDB's SORT stage with usedDisk, spills and spilledBytes
                FindQuery query = new FindQuery(filter, Sort.parse(sortSpec, collation), null, skip, limit, filterSpec, hint);
                BsonDocument executionStats = reply.getDocument("executionStats");
                queries.explainSort(opCtx, c.get(), query, sortSpec, budgets.of(explained, opCtx::checkForInterrupt))
                        .ifPresent(sort -> executionStats.append("executionStages", sort));
            }
        }
        reply.append("command", explained);
        return Replies.ok(reply);
    }

    /**
     * A find or aggregate on a time-series collection: the plan of the bucket-level {@code $match} over the buckets
     * collection (so {@code totalDocsExamined} counts buckets), and under {@code stages} the pipeline the read runs
     * as, {@code $_internalUnpackBucket} included ({@link TimeseriesRewrite}).
     */
    private BsonDocument explainTimeseries(OperationContext opCtx, CollectionInfo buckets, String kind, CommandArgs args, BsonDocument explained, String verbosity) {
        TimeseriesOptions options = TimeseriesCollections.optionsOf(opCtx, buckets).orElseThrow();
        TimeseriesCollections.refuseCollation(Optional.of(buckets), kind, Collation.parse(kind + ".collation", explained.get("collation")));
        BsonArray pipeline = switch (kind) {
            case "find" -> {
                BsonDocument sort = args.optionalDocument(explained, "sort", "sort");
                BsonDocument projection = args.optionalDocument(explained, "projection", "projection");
                yield TimeseriesRewrite.find(options, args.optionalDocument(explained, "filter", "filter"), sort.isEmpty() ? null : sort,
                        projection.isEmpty() ? null : projection, args.optionalNonNegative("skip", 0), args.optionalNonNegative("limit", 0));
            }
            case "aggregate" -> TimeseriesRewrite.aggregate(options, args.requiredArray("pipeline"));
            default -> throw new CommandException(ErrorCode.NotImplemented, "explain of " + kind + " on the time-series collection "
                    + args.collectionName() + " is not supported");
        };
        BsonDocument bucketMatch = pipeline.get(0).asDocument().get("$match") instanceof BsonDocument match ? match : new BsonDocument();
        Filter filter = Filter.parse(bucketMatch);
        BsonDocument reply = queries.explain(opCtx, buckets, bucketMatch, filter, null, 0, 0, !verbosity.equals("queryPlanner"));
        reply.append("stages", pipeline);
        reply.append("command", explained);
        return reply;
    }
}
