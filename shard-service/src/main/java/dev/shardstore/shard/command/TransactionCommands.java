package dev.shardstore.shard.command;

import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.shard.transaction.TransactionParticipant;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The shard's {@code commitTransaction} and {@code abortTransaction} (MongoDB's, sent by the router to a participant on
 * {@code admin} with the transaction's {@code lsid}, {@code txnNumber} and {@code autocommit: false}): {@code {ok: 1}}
 * or the participant's error ({@link TransactionParticipant#commit}, {@link TransactionParticipant#abort}).
 */
@Configuration(proxyBeanMethods = false)
class TransactionCommands {
    @Bean
    ShardCommand commitTransactionCommand(CommandInvoker invoker, TransactionParticipant participant) {
        return ShardCommand.adminOnly(invoker, "commitTransaction", (opCtx, db, command) -> {
            participant.commit(opCtx);
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
