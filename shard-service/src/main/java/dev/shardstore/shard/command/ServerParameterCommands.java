package dev.shardstore.shard.command;

import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.support.parameter.ServerParameters;
import java.util.Map;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The shard's {@code getParameter} and {@code setParameter} (MongoDB's commands of those names, on {@code admin}
 * only), over the process's {@link ServerParameters}: shapes and errors there. The router sends a client's
 * {@code setParameter} to every shard.
 */
@Configuration
class ServerParameterCommands {
    @Bean
    ShardCommand getParameter(CommandInvoker invoker, ServerParameters parameters) {
        return ShardCommand.adminOnly(invoker, "getParameter", (opCtx, db, command) -> Replies.ok(parameters.get(command, Map.of())));
    }

    @Bean
    ShardCommand setParameter(CommandInvoker invoker, ServerParameters parameters) {
        return ShardCommand.adminOnly(invoker, "setParameter", (opCtx, db, command) -> Replies.ok(parameters.set(command)));
    }
}
