package dev.shardstore.shard.command;

import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.contracts.bson.Replies;
import org.bson.BsonDocument;
import org.springframework.stereotype.Component;

/** MongoDB's {@code ping}: {@code {ping: 1}} → {@code {ok: 1}} on any database. Not version-checked. */
@Component
public class PingCommand extends ShardCommand {
    public PingCommand(CommandInvoker invoker) {
        super(invoker);
    }

    @Override
    public String name() {
        return "ping";
    }

    @Override
    protected boolean checksDatabaseVersion() {
        return false;
    }

    @Override
    protected BsonDocument execute(OperationContext opCtx, String db, BsonDocument command) {
        return Replies.ok();
    }
}
