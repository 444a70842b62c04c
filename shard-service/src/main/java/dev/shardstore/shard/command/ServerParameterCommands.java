package dev.shardstore.shard.command;

import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.support.parameter.ServerParameters;
import dev.shardstore.engine.spill.MemoryBudgets;
import dev.shardstore.engine.spill.MemoryPool;
import dev.shardstore.support.failpoint.FailPoints;
import dev.shardstore.engine.spill.SpillDirectory;
import java.util.Map;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The shard's {@code getParameter} and {@code setParameter} (MongoDB's commands of those names, on {@code admin}
 * only), over the process's {@link ServerParameters}: shapes and errors there. The router sends a client's
 * {@code setParameter} to every shard. Also the {@link MemoryBudgets} its blocking sorts and groups read them through.
 */
@Configuration
class ServerParameterCommands {
    /**
     * Fail point: a sorter of a command has written its runs and is about to merge them (its spill files exist). A
     * pause here can be ended by a {@code killOp} of the command, whose sorter then deletes its files.
     */
    static final String SPILL_BEFORE_MERGE = "spill.beforeMerge";

    /**
     * The shard's budgets, with its spill directory: {@code shardstore.spill.directory} when set (the local cluster gives
     * each shard one under its home), else {@code <java.io.tmpdir>/shardstore-spill/<pid>} ({@link SpillDirectory#configured}),
     * emptied of a previous process's files now.
     */
    @Bean
    MemoryBudgets memoryBudgets(ServerParameters parameters, @Value("${shardstore.spill.directory:}") String directory, FailPoints failPoints) {
        return new MemoryBudgets(() -> parameters.longValue(ServerParameters.SORT_MEMORY), () -> parameters.longValue(ServerParameters.GROUP_MEMORY),
                () -> parameters.booleanValue(ServerParameters.ALLOW_DISK_USE_BY_DEFAULT), SpillDirectory.configured(directory),
                interruption -> failPoints.hit(SPILL_BEFORE_MERGE, interruption::check),
                new MemoryPool(() -> parameters.longValue(ServerParameters.BLOCKING_STAGES_MEMORY)));
    }

    @Bean
    ShardCommand getParameter(CommandInvoker invoker, ServerParameters parameters) {
        return ShardCommand.adminOnly(invoker, "getParameter", (opCtx, db, command) -> Replies.ok(parameters.get(command, Map.of())));
    }

    @Bean
    ShardCommand setParameter(CommandInvoker invoker, ServerParameters parameters) {
        return ShardCommand.adminOnly(invoker, "setParameter", (opCtx, db, command) -> Replies.ok(parameters.set(command)));
    }
}
