package dev.shardstore.shard.command;

import dev.shardstore.engine.aggregate.expression.CommandVariables;
import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.shard.cursor.QueryRunner;
import dev.shardstore.engine.query.Filter;
import dev.shardstore.shard.storage.CollectionCatalog;
import dev.shardstore.shard.storage.CollectionInfo;
import dev.shardstore.contracts.namespace.Namespace;
import java.util.Optional;
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
 * {@code executionTimeMillis}; writes are not performed. A missing collection explains as {@code EOF}.
 */
@Component
public class ExplainCommand extends ShardCommand {
    private static final Set<String> VERBOSITIES = Set.of("queryPlanner", "executionStats", "allPlansExecution");

    private final CollectionCatalog catalog;
    private final QueryRunner queries;

    public ExplainCommand(CommandInvoker invoker, CollectionCatalog catalog, QueryRunner queries) {
        super(invoker);
        this.catalog = catalog;
        this.queries = queries;
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
    protected BsonDocument execute(String db, BsonDocument command) {
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
        BsonDocument filterSpec;
        long skip = 0;
        long limit = 0;
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
            }
            case "aggregate" -> {
                BsonArray pipeline = args.requiredArray("pipeline");
                filterSpec = !pipeline.isEmpty() && pipeline.get(0).isDocument() && pipeline.get(0).asDocument().containsKey("$match")
                        ? args.document(pipeline.get(0).asDocument().get("$match"), "pipeline.0.$match")
                        : new BsonDocument();
            }
            default -> throw new CommandException(ErrorCode.CommandNotFound, "Explain failed due to unknown command: " + kind);
        }
        Filter filter = Filter.parse(filterSpec, CommandVariables.parse(explained.get("let"), "explain.let"));
        BsonValue hint = explained.get("hint");
        boolean stats = !verbosity.equals("queryPlanner");
        Optional<CollectionInfo> c = catalog.find(ns);
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
            reply = queries.explain(c.get(), filterSpec, filter, hint, skip, limit, stats);
        }
        reply.append("command", explained);
        return Replies.ok(reply);
    }
}
