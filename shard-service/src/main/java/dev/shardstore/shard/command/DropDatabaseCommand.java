package dev.shardstore.shard.command;

import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.contracts.version.DatabaseVersion;
import dev.shardstore.shard.versioning.DatabaseVersionCheck;
import java.util.Optional;

import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.shard.versioning.DatabaseShardingState;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.springframework.stereotype.Component;

/**
 * MongoDB's {@code dropDatabase} as the config service sends it to a shard: {@code {dropDatabase: 1}}
 * → {@code {dropped: <db>, ok: 1}}. Drops every collection of the database on this shard (see
 * {@link CollectionDropper}). When the config service names the version it drops (in
 * {@code databaseVersion}), that version is first marked dropped so no stale router can write into
 * the database while the drop completes ({@link DatabaseShardingState#markDropped}); without one the
 * cached version is simply forgotten. The version is not checked: the config service is the authority
 * here, and a retried drop must succeed.
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
    protected boolean checksDatabaseVersion() {
        return false;
    }

    @Override
    public String name() {
        return "dropDatabase";
    }

    @Override
    protected BsonDocument execute(OperationContext opCtx, String db, BsonDocument command) {
        Optional<DatabaseVersion> dropping = DatabaseVersionCheck.receivedVersion(command);
        dropping.ifPresent(version -> shardingState.markDropped(db, version));
        dropper.dropDatabase(opCtx, db);
        if (dropping.isEmpty()) {
            shardingState.invalidate(db);
        }
        return Replies.ok(new BsonDocument("dropped", new BsonString(db)));
    }
}
