package dev.shardstore.shard.resharding;

import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.shard.command.CommandInvoker;
import dev.shardstore.shard.command.ShardCommand;
import java.util.UUID;
import org.bson.BsonDocument;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The shard's resharding commands, sent by the resharding coordinator to {@code admin}, each with the namespace
 * {@code "db.coll"} first and the operation's {@code reshardingUUID}. Internal: no versions, no lock.
 */
@Configuration
public class ReshardingCommands {
    /**
     * {@code {_shardsvrReshardingDonorStart: "db.coll", reshardingUUID}} → {@code {minFetchTimestamp: Timestamp, ok: 1}}
     * ({@link ReshardingDonors#start}).
     */
    @Bean
    ShardCommand reshardingDonorStart(CommandInvoker invoker, ReshardingDonors donors) {
        String name = "_shardsvrReshardingDonorStart";
        return ShardCommand.adminOnly(invoker, name, (opCtx, db, cmd) -> Replies.ok(
                new BsonDocument("minFetchTimestamp", donors.start(reshardingUuid(cmd), namespace(cmd, name)))));
    }

    /** {@code {_shardsvrReshardingDonorAbort: "db.coll", reshardingUUID}} → {@code {ok: 1}} ({@link ReshardingDonors#end}). */
    @Bean
    ShardCommand reshardingDonorAbort(CommandInvoker invoker, ReshardingDonors donors) {
        String name = "_shardsvrReshardingDonorAbort";
        return ShardCommand.adminOnly(invoker, name, (opCtx, db, cmd) -> {
            namespace(cmd, name);
            donors.end(reshardingUuid(cmd));
            return Replies.ok();
        });
    }

    private static Namespace namespace(BsonDocument cmd, String name) {
        return Namespace.parse(new CommandArgs(cmd).requiredString(name), name);
    }

    private static UUID reshardingUuid(BsonDocument cmd) {
        return new CommandArgs(cmd).requiredUuid("reshardingUUID");
    }
}
