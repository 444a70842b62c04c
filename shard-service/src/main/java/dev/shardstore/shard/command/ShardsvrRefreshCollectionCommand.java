package dev.shardstore.shard.command;

import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.shard.versioning.CollectionShardingState;
import dev.shardstore.shard.versioning.CollectionShardingRuntime;
import dev.shardstore.shard.versioning.CollectionFilteringInfo;
import dev.shardstore.contracts.namespace.Namespace;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.springframework.stereotype.Component;

/**
 * {@code _shardsvrRefreshCollection: "db.coll"} on {@code admin} → {@code {sharded: bool, ok: 1}}: reloads the collection's
 * filtering metadata from the config service now (incrementally when it is cached), as the config service asks
 * after committing a routing change (docs/sharding-protocol.md). It also ends the critical section that
 * {@code _shardsvrPrepareShardCollection} entered (shardCollection's commit, or its failure, is what it waited for);
 * another operation's section (a dropCollection's) is left alone. Errors: InvalidNamespace (73) for a malformed
 * namespace; the config service's error when the load fails.
 */
@Component
public class ShardsvrRefreshCollectionCommand extends ShardCommand {
    private final CollectionShardingState state;
    private final CollectionShardingRuntime runtime;

    public ShardsvrRefreshCollectionCommand(CommandInvoker invoker, CollectionShardingState state, CollectionShardingRuntime runtime) {
        super(invoker);
        this.state = state;
        this.runtime = runtime;
    }

    @Override
    public String name() {
        return "_shardsvrRefreshCollection";
    }

    @Override
    protected boolean checksDatabaseVersion() {
        return false;
    }

    @Override
    protected BsonDocument execute(OperationContext opCtx, String db, BsonDocument command) {
        Namespace ns = Namespace.parse(new CommandArgs(command).requiredString(name()));
        // the section's waiters are released with the metadata marked stale; their refreshes and this one coalesce
        runtime.exitCriticalSection(ns, ShardsvrPrepareShardCollectionCommand.criticalSectionReason(ns));
        state.markStale(ns.full());
        CollectionFilteringInfo info = state.refresh(ns.full());
        return Replies.ok(new BsonDocument("sharded", BsonBoolean.valueOf(info.sharded())));
    }
}
