package dev.shardstore.shard.command;

import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.shard.ShardProperties;
import dev.shardstore.shard.storage.CollectionCatalog;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.shard.versioning.CollectionFilteringInfo;
import dev.shardstore.shard.versioning.CollectionShardingState;
import dev.shardstore.shard.versioning.OwnershipFilter;
import java.util.function.Predicate;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import dev.shardstore.shard.versioning.CollectionShardingRuntime;
import org.jspecify.annotations.Nullable;
import org.springframework.stereotype.Component;

/**
 * {@code _shardsvrDataDistribution: "db.coll"} on {@code admin} → {@code {numOwnedDocuments, ownedSizeBytes,
 * numOrphanedDocs, orphanedSizeBytes, ok: 1}} (counts as longs, sizes in BSON bytes), this shard's part of
 * {@code $shardedDataDistribution}: its documents split by whether its filtering metadata, loaded afresh (a migration
 * may have committed since the cached one), says it owns their shard key; a donor's documents waiting for their range
 * deletion count as orphans. Every document of an unsharded collection is owned; a missing collection counts
 * zero. Errors: InvalidNamespace (73); the config service's error when the metadata cannot be loaded.
 */
@Component
public class ShardsvrDataDistributionCommand extends ShardCommand {
    private final CollectionShardingRuntime runtime;
    private final CollectionCatalog catalog;
    private final CollectionShardingState state;
    private final ShardKeyScan scan;
    private final String shardName;

    public ShardsvrDataDistributionCommand(CommandInvoker invoker, CollectionShardingRuntime runtime, CollectionCatalog catalog,
            CollectionShardingState state, ShardKeyScan scan, ShardProperties properties) {
        super(invoker);
        this.runtime = runtime;
        this.catalog = catalog;
        this.state = state;
        this.scan = scan;
        this.shardName = properties.name();
    }

    @Override
    public String name() {
        return "_shardsvrDataDistribution";
    }

    /**
     * Not locked by the invoker: the filtering metadata is loaded first (maybe from the config service, which is never
     * asked while the lock is held), then the scan holds the collection in shared mode.
     */
    @Override
    protected @Nullable Namespace namespace(String db, BsonDocument command) {
        return null;
    }

    @Override
    protected boolean checksDatabaseVersion() {
        return false;
    }

    @Override
    protected BsonDocument execute(String db, BsonDocument command) {
        Namespace ns = Namespace.parse(new CommandArgs(command).requiredString(name()));
        state.markStale(ns.full());
        CollectionFilteringInfo info = state.refresh(ns.full());
        Predicate<BsonDocument> owned = info.table()
                .<Predicate<BsonDocument>>map(table -> doc -> OwnershipFilter.owns(table, shardName, doc)).orElse(doc -> true);
        long[] counts = new long[4]; // owned docs, owned bytes, orphaned docs, orphaned bytes
        runtime.shared(ns, () -> {
            catalog.find(ns).ifPresent(c -> scan.forEach(c, stored -> {
                int at = owned.test(stored.decode()) ? 0 : 2;
                counts[at]++;
                counts[at + 1] += stored.size();
            }));
            return null;
        });
        return Replies.ok(new BsonDocument("numOwnedDocuments", new BsonInt64(counts[0]))
                .append("ownedSizeBytes", new BsonInt64(counts[1]))
                .append("numOrphanedDocs", new BsonInt64(counts[2]))
                .append("orphanedSizeBytes", new BsonInt64(counts[3])));
    }
}
