package dev.shardstore.shard.command;

import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.engine.aggregate.CollectionSource;
import dev.shardstore.engine.aggregate.Pipeline;
import dev.shardstore.engine.aggregate.expression.CommandVariables;
import dev.shardstore.shard.migration.ActiveMigrationsRegistry;
import dev.shardstore.shard.resharding.ReshardingDonors;
import dev.shardstore.shard.resharding.ReshardingRecipients;
import dev.shardstore.shard.migration.MigrationProgress;
import dev.shardstore.support.operation.CurrentOpRequest;
import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.support.operation.OperationRegistry;
import dev.shardstore.support.security.ClientSecurityProperties;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonDocument;
import org.springframework.context.annotation.Bean;
import org.springframework.stereotype.Component;

/**
 * The shard's {@code $currentOp} aggregation stage and {@code killOp} command (MongoDB manual "$currentOp
 * (aggregation)", "killOp"; docs/architecture.md "The operation context").
 *
 * <p>{@code {aggregate: 1, pipeline: [{$currentOp: {allUsers?, localOps?}}, ...], cursor: {}}} on {@code admin} →
 * a cursor on {@code admin.$cmd.aggregate} over one document per command running on this shard
 * ({@link dev.shardstore.support.operation.RunningOperation#describe}: {@code {type: "op", opid, active, op, ns,
 * command, secs_running, microsecs_running, desc, effectiveUsers?}}; the {@code $currentOp} aggregate itself among
 * them), then its running migrations ({@link MigrationProgress#describe}, {@code type: "op"}) and reshardings, as donor
 * and as recipient ({@link ReshardingDonors#describe}, {@link ReshardingRecipients#describe}). The stages after the
 * first run on those documents with the query engine ({@code $lookup} reads nothing there: no collection is the
 * input). The whole result is the first batch. Options and their errors: {@link CurrentOpRequest}; with
 * authorization on and without {@code allUsers}, a client sees only its own users' operations and no migration (a
 * router's fan-out runs as a cluster member and sees all).
 *
 * <p>{@code {killOp: 1, op: <int or long>}} on {@code admin} marks that operation killed: it stops with
 * Interrupted (11601) at its next check for interrupt (between scan pages, every 128 documents of a blocking stage,
 * in a fail point's pause). The reply is MongoDB's {@code {info: "attempting to kill op", ok: 1}}, also for an
 * operation that has ended or never existed. A missing {@code op} is FailedToParse (9), a non-numeric one
 * TypeMismatch (14) ({@link OperationRegistry#killOpTarget}).
 */
@Component
public class CurrentOpCommands {
    private static final CollectionSource NO_COLLECTIONS = (collection, filter) -> List.of();

    private final OperationRegistry operations;
    private final ActiveMigrationsRegistry migrations;
    private final ReshardingDonors donors;
    private final ReshardingRecipients recipients;
    private final boolean authorizationEnforced;

    public CurrentOpCommands(OperationRegistry operations, ActiveMigrationsRegistry migrations, ReshardingDonors donors,
            ReshardingRecipients recipients, ClientSecurityProperties security) {
        this.donors = donors;
        this.recipients = recipients;
        this.operations = operations;
        this.migrations = migrations;
        this.authorizationEnforced = security.enforced();
    }

    /**
     * Answers an aggregate whose pipeline {@link CurrentOpRequest#uses} the stage.
     *
     * @throws dev.shardstore.contracts.error.CommandException as {@link CurrentOpRequest#parse}; the later stages' errors
     */
    BsonDocument aggregate(OperationContext opCtx, String db, BsonDocument command) {
        CurrentOpRequest request = CurrentOpRequest.parse(db, command);
        Pipeline following = Pipeline.parse(CurrentOpRequest.following(command), NO_COLLECTIONS, CommandVariables.ofCommand(command));
        List<BsonDocument> listed = new ArrayList<>(request.list(operations, opCtx.caller(), authorizationEnforced));
        if (request.showsEveryOperation(opCtx.caller(), authorizationEnforced)) {
            migrations.active().stream().map(MigrationProgress::describe).forEach(listed::add);
            listed.addAll(donors.describe());
            listed.addAll(recipients.describe());
        }
        return Replies.cursor(true, following.over(listed), 0, db + ".$cmd.aggregate");
    }

    /** {@code killOp}, see the class comment. */
    @Bean
    ShardCommand killOp(CommandInvoker invoker) {
        return ShardCommand.adminOnly(invoker, "killOp", (opCtx, db, command) -> {
            operations.kill(OperationRegistry.killOpTarget(command));
            return OperationRegistry.killOpReply();
        });
    }
}
