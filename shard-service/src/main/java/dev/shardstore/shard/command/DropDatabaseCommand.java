package dev.shardstore.shard.command;

import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.shard.versioning.DatabaseShardingState;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.springframework.stereotype.Component;

/**
 * MongoDB's {@code dropDatabase} as the config service sends it to a shard: {@code {dropDatabase: 1}}
 * → {@code {dropped: <db>, ok: 1}}. Drops every collection of the database on this shard (see
 * {@link CollectionDropper}) and forgets the database's cached version, since a re-created database
 * has a new one.
 */
@Component
public class DropDatabaseCommand extends ShardCommand {
    private final CollectionDropper dropper;
    private final DatabaseShardingState shardingState;

    public DropDatabaseCommand(CommandInvoker invoker, CollectionDropper dropper, DatabaseShardingState shardingState) {
        super(invoker);
        this.dropper = dropper;
        this.shardingState = shardingState;
    }

    @Override
    public String name() {
        return "dropDatabase";
    }

    @Override
    protected BsonDocument execute(String db, BsonDocument command) {
        dropper.dropDatabase(db);
        shardingState.invalidate(db);
        return Replies.ok(new BsonDocument("dropped", new BsonString(db)));
    }
}
