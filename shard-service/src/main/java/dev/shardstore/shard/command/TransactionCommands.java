package dev.shardstore.shard.command;

import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.session.SessionsApi;
import dev.shardstore.shard.transaction.TransactionCoordinator;
import dev.shardstore.shard.transaction.TransactionParticipant;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The shard's {@code commitTransaction}, {@code abortTransaction} and {@code prepareTransaction} (MongoDB's, sent to a
 * participant on {@code admin} with the transaction's {@code lsid}, {@code txnNumber} and {@code autocommit: false}; a
 * prepared transaction's commit with the coordinator's {@code commitTimestamp}): {@code {ok: 1}} or the participant's
 * error ({@link TransactionParticipant#commit}, {@link TransactionParticipant#abort},
 * {@link TransactionParticipant#prepare}).
 */
@Configuration(proxyBeanMethods = false)
class TransactionCommands {
    @Bean
    ShardCommand commitTransactionCommand(CommandInvoker invoker, TransactionParticipant participant) {
        return ShardCommand.adminOnly(invoker, "commitTransaction", (opCtx, db, command) -> {
            participant.commit(opCtx, command);
            return Replies.ok();
        });
    }

    /** {@code {prepareTransaction: 1, lsid, txnNumber, autocommit: false}} → {@code {prepareTimestamp, ok: 1}}. */
    @Bean
    ShardCommand prepareTransactionCommand(CommandInvoker invoker, TransactionParticipant participant) {
        return ShardCommand.adminOnly(invoker, "prepareTransaction", (opCtx, db, command) ->
                Replies.ok(new BsonDocument("prepareTimestamp", new BsonTimestamp(participant.prepare(opCtx)))));
    }

    /**
     * {@code {coordinateCommitTransaction: 1, participants: [{shardId}], lsid, txnNumber, autocommit: false}}, sent by
     * the router to the transaction's coordinator: two-phase commit ({@link TransactionCoordinator}).
     */
    @Bean
    ShardCommand coordinateCommitTransactionCommand(CommandInvoker invoker, TransactionCoordinator coordinator) {
        return ShardCommand.adminOnly(invoker, "coordinateCommitTransaction", (opCtx, db, command) -> {
            coordinator.coordinateCommit(opCtx, TransactionCoordinator.participantsOf(command));
            return Replies.ok();
        });
    }

    /**
     * {@code {killSessions: [lsid, ...]}}, which the router sends every shard after its own: aborts the sessions' open
     * transactions here ({@link TransactionParticipant#abortSessions}; all of them for an empty array).
     */
    @Bean
    ShardCommand killSessionsCommand(CommandInvoker invoker, TransactionParticipant participant) {
        return ShardCommand.adminOnly(invoker, "killSessions", (opCtx, db, command) -> {
            participant.abortSessions(SessionsApi.lsids(command, "killSessions"));
            return Replies.ok();
        });
    }

    @Bean
    ShardCommand abortTransactionCommand(CommandInvoker invoker, TransactionParticipant participant) {
        return ShardCommand.adminOnly(invoker, "abortTransaction", (opCtx, db, command) -> {
            participant.abort(opCtx);
            return Replies.ok();
        });
    }
}
