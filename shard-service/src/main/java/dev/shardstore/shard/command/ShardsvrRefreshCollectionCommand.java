package dev.shardstore.shard.command;

import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.shard.versioning.CollectionShardingState;
import dev.shardstore.shard.versioning.CriticalSections;
import dev.shardstore.shard.versioning.CollectionFilteringInfo;
import dev.shardstore.contracts.namespace.Namespace;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.springframework.stereotype.Component;

/**
 * {@code _shardsvrRefreshCollection: "db.coll"} on {@code admin} → {@code {sharded: bool, ok: 1}}: reloads the collection's
 * filtering metadata from the config service now (incrementally when it is cached), as the config service asks
 * after committing a routing change (docs/sharding-protocol.md). Errors: InvalidNamespace (73) for a malformed
 * namespace; the config service's error when the load fails.
 */
@Component
public class ShardsvrRefreshCollectionCommand extends ShardCommand {
    private final CollectionShardingState state;
    private final CriticalSections criticalSections;

    public ShardsvrRefreshCollectionCommand(CommandInvoker invoker, CollectionShardingState state, CriticalSections criticalSections) {
        super(invoker);
        this.state = state;
        this.criticalSections = criticalSections;
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
    protected BsonDocument execute(String db, BsonDocument command) {
        String namespace = Namespace.parse(new CommandArgs(command).requiredString(name())).full();
        state.markStale(namespace);
        CollectionFilteringInfo info;
        try {
            info = state.refresh(namespace);
        } finally {
            criticalSections.exit(namespace); // the commands waiting on it see the new metadata (or refresh themselves)
        }
        return Replies.ok(new BsonDocument("sharded", BsonBoolean.valueOf(info.sharded())));
    }
}
