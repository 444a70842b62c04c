package dev.shardstore.router.command;

import dev.shardstore.router.query.ViewResolution;
import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.router.cursor.RouterCursorManager;
import dev.shardstore.router.query.AggregateOutput;
import dev.shardstore.router.query.ConfigAggregate;
import dev.shardstore.router.query.ClusterCurrentOp;
import dev.shardstore.router.query.DatabaseAggregate;
import dev.shardstore.support.operation.CurrentOpRequest;
import dev.shardstore.router.query.OutputStage;
import dev.shardstore.router.query.ShardedDataDistribution;
import dev.shardstore.router.session.SessionStages;
import dev.shardstore.router.query.ShardedExplainer;
import dev.shardstore.router.query.ShardedReads;
import dev.shardstore.router.routing.ConfigServer;
import dev.shardstore.support.command.CommandHandler;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The read commands: {@code find}, {@code getMore}, {@code killCursors}, {@code count}, {@code distinct},
 * {@code aggregate} (with {@code $shardedDataDistribution} on admin) and {@code explain}, on sharded and unsharded
 * collections alike, and on views ({@link ViewResolution}) ({@link ShardedReads}, {@link ShardedExplainer}, {@link ShardedDataDistribution}). A database that does not exist reads as empty.
 */
@Configuration
public class ReadCommands {
    private final ShardedReads reads;
    private final ShardedExplainer explainer;

    public ReadCommands(ShardedReads reads, ShardedExplainer explainer) {
        this.reads = reads;
        this.explainer = explainer;
    }

    /** {@code find}; on the config database it reads the catalog (config.shards, config.databases, ...) like mongos. */
    @Bean
    CommandHandler find(ConfigServer config) {
        return CommandHandler.of("find", (opCtx, db, cmd) -> {
            new CommandArgs(cmd).collectionName();
            if ("config".equals(db)) {
                return config.run(db, cmd);
            }
            Namespaces.checkUserDatabase(db, "find");
            return ViewResolution.orResolved(cmd, () -> reads.find(opCtx, db, cmd), aggregate -> reads.aggregate(opCtx, db, aggregate), reply -> reply);
        });
    }

    /**
     * {@code aggregate} on a collection, {@code $shardedDataDistribution}, {@code $currentOp} ({@link ClusterCurrentOp})
     * or {@code $listLocalSessions} with {@code aggregate: 1} on admin, {@code $listSessions} on {@code config.system.sessions}, another
     * database-level {@code aggregate: 1} ({@link DatabaseAggregate}: {@code $documents}), or a collection of the
     * config database ({@link ConfigAggregate}).
     */
    @Bean
    CommandHandler aggregate(ShardedDataDistribution distribution, SessionStages sessionStages, DatabaseAggregate databaseLevel,
            AggregateOutput output, ConfigAggregate configAggregate, ClusterCurrentOp currentOp) {
        return CommandHandler.of("aggregate", (opCtx, db, cmd) -> {
            BsonValue pipeline = cmd.get("pipeline");
            if (pipeline != null && pipeline.isArray() && ShardedDataDistribution.uses(pipeline.asArray())) {
                return distribution.aggregate(opCtx, db, cmd);
            }
            if (CurrentOpRequest.uses(pipeline)) {
                return currentOp.aggregate(opCtx, db, cmd);
            }
            String sessionStage = pipeline != null && pipeline.isArray() ? SessionStages.leadingStage(pipeline.asArray()) : null;
            if (sessionStage != null) {
                return sessionStages.aggregate(db, cmd, sessionStage);
            }
            if (DatabaseAggregate.isDatabaseLevel(cmd) && !cmd.containsKey("explain")) {
                return databaseLevel.aggregate(opCtx, db, cmd);
            }
            if ("config".equals(db)) {
                return configAggregate.aggregate(cmd);
            }
            new CommandArgs(cmd).collectionName();
            Namespaces.checkUserDatabase(db, "aggregate");
            if (cmd.containsKey("explain") && new CommandArgs(cmd).optionalBoolean(cmd, "explain", "explain", false)) {
                return explainAggregate(opCtx, db, cmd);
            }
            if (pipeline != null && pipeline.isArray()) {
                OutputStage.checkPlacement(pipeline.asArray());
                if (OutputStage.endsWithOutput(pipeline.asArray())) {
                    // $out/$merge: read (a view resolved as below), then write through the router
                    return output.aggregate(opCtx, db, cmd, read -> ViewResolution.orResolved(read, () -> reads.aggregate(opCtx, db, read),
                            aggregate -> reads.aggregate(opCtx, db, aggregate), reply -> reply));
                }
            }
            return ViewResolution.orResolved(cmd, () -> reads.aggregate(opCtx, db, cmd), aggregate -> reads.aggregate(opCtx, db, aggregate), reply -> reply);
        });
    }

    /** {@code aggregate} with {@code explain: true}: the explain command's answer for the same aggregate. */
    private BsonDocument explainAggregate(OperationContext opCtx, String db, BsonDocument cmd) {
        BsonDocument aggregate = cmd.clone();
        aggregate.remove("explain");
        aggregate.putIfAbsent("cursor", new BsonDocument());
        return explain(opCtx, db, new BsonDocument("explain", aggregate).append("verbosity", new BsonString("queryPlanner")));
    }

    @Bean
    CommandHandler getMore(RouterCursorManager cursors) {
        return CommandHandler.of("getMore", (opCtx, db, command) -> cursors.getMore(opCtx, db, command));
    }

    @Bean
    CommandHandler killCursors(RouterCursorManager cursors) {
        return CommandHandler.of("killCursors", (opCtx, db, command) -> cursors.killCursors(opCtx, db, command));
    }

    @Bean
    CommandHandler count() {
        return CommandHandler.of("count", (opCtx, db, cmd) -> {
            Namespaces.checkUserDatabase(db, "count");
            return ViewResolution.orResolved(cmd, () -> reads.count(opCtx, db, cmd), aggregate -> reads.aggregate(opCtx, db, aggregate), ViewResolution::countReply);
        });
    }

    @Bean
    CommandHandler distinct() {
        return CommandHandler.of("distinct", (opCtx, db, cmd) -> {
            Namespaces.checkUserDatabase(db, "distinct");
            return ViewResolution.orResolved(cmd, () -> reads.distinct(opCtx, db, cmd), aggregate -> reads.aggregate(opCtx, db, aggregate),
                    ViewResolution::distinctReply);
        });
    }

    /**
     * {@code explain} of a find, count, distinct, update, delete or aggregate; a missing database explains as
     * MongoDB's {@code EOF} plan.
     */
    @Bean
    CommandHandler explainCommand() {
        return CommandHandler.of("explain", this::explain);
    }

    private BsonDocument explain(OperationContext opCtx, String db, BsonDocument cmd) {
        Namespaces.checkUserDatabase(db, "explain");
        BsonValue inner = cmd.get("explain");
        if (inner == null || !inner.isDocument() || inner.asDocument().isEmpty()) {
            throw new CommandException(ErrorCode.FailedToParse, "explain command requires a nested object");
        }
        String collection = new CommandArgs(inner.asDocument()).collectionName();
        return ViewResolution.orResolved(inner.asDocument(), () -> explainPlain(opCtx, db, cmd, collection),
                aggregate -> explain(opCtx, db, new BsonDocument("explain", aggregate).append("verbosity", cmd.get("verbosity", new BsonString("queryPlanner")))),
                reply -> reply);
    }

    private BsonDocument explainPlain(OperationContext opCtx, String db, BsonDocument cmd, String collection) {
        return explainer.explain(opCtx, db, cmd).orElseGet(() -> Replies.ok(
                new BsonDocument("queryPlanner", new BsonDocument("namespace", new BsonString(db + "." + collection))
                        .append("winningPlan", new BsonDocument("stage", new BsonString("EOF")))
                        .append("rejectedPlans", new BsonArray()))));
    }
}
