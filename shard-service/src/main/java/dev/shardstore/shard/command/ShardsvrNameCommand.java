package dev.shardstore.shard.command;

import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.shard.ShardProperties;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.springframework.stereotype.Component;

/**
 * {@code _shardsvrName}: {@code {_shardsvrName: 1}} → {@code {name: <shardstore.shard.name>, ok: 1}}.
 * The config service's addShard calls it to check that the URL answers as the shard it names. Not
 * version-checked.
 */
@Component
public class ShardsvrNameCommand extends ShardCommand {
    private final String shardName;

    public ShardsvrNameCommand(CommandInvoker invoker, ShardProperties properties) {
        super(invoker);
        this.shardName = properties.name();
    }

    @Override
    public String name() {
        return "_shardsvrName";
    }

    @Override
    protected boolean checksDatabaseVersion() {
        return false;
    }

    @Override
    protected BsonDocument execute(OperationContext opCtx, String db, BsonDocument command) {
        return Replies.ok(new BsonDocument("name", new BsonString(shardName)));
    }
}
