package dev.shardstore.shard.command;

import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.shard.ShardProperties;
import dev.shardstore.shard.storage.CollectionCatalog;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.shard.versioning.CollectionShardingState;
import dev.shardstore.shard.versioning.OwnershipFilter;
import dev.shardstore.contracts.sharding.RoutingTable;
import dev.shardstore.shard.storage.CollectionInfo;
import dev.shardstore.shard.storage.IndexWalk;
import dev.shardstore.shard.storage.IndexWalk.DataSize;
import java.util.Optional;
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
 *
 * <p>The balancer asks this of every collection every round. PostgreSQL counts and sizes the whole collection and,
 * over the index that supports the shard key ({@link ShardKeyIndex}), the ranges of the chunks this shard does not
 * own; no document leaves the database. Reading every document out to test its owner cost the shards about 40% more
 * CPU and PostgreSQL about 30% more (docs/benchmarks.md, round 8). It is still a pass over the collection inside
 * PostgreSQL each time; MongoDB keeps running counts instead. A sharded collection without a supporting index (which
 * sharding requires, so only after it was dropped) is still read document by document.
 */
@Component
public class ShardsvrDataDistributionCommand extends ShardCommand {
    private static final DataSize NONE = new DataSize(0, 0);

    private final CollectionShardingRuntime runtime;
    private final CollectionCatalog catalog;
    private final CollectionShardingState state;
    private final ShardKeyIndex shardKeyIndex;
    private final IndexWalk walk;
    private final ShardKeyScan scan;
    private final String shardName;

    public ShardsvrDataDistributionCommand(CommandInvoker invoker, CollectionShardingRuntime runtime, CollectionCatalog catalog,
            CollectionShardingState state, ShardKeyIndex shardKeyIndex, IndexWalk walk, ShardKeyScan scan, ShardProperties properties) {
        super(invoker);
        this.runtime = runtime;
        this.catalog = catalog;
        this.state = state;
        this.shardKeyIndex = shardKeyIndex;
        this.walk = walk;
        this.scan = scan;
        this.shardName = properties.name();
    }

    @Override
    public String name() {
        return "_shardsvrDataDistribution";
    }

    /**
     * Not locked by the invoker: the filtering metadata is loaded first (maybe from the config service, which is never
     * asked while the lock is held), then the counting holds the collection in shared mode.
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
    protected BsonDocument execute(OperationContext opCtx, String db, BsonDocument command) {
        Namespace ns = Namespace.parse(new CommandArgs(command).requiredString(name()));
        state.markStale(ns.full());
        Optional<RoutingTable> table = state.refresh(ns.full()).table();
        Split split = runtime.shared(ns, () -> catalog.find(ns)
                .map(c -> table.isEmpty() ? new Split(walk.dataSize(c), NONE) : split(c, table.get()))
                .orElse(new Split(NONE, NONE)));
        return Replies.ok(new BsonDocument("numOwnedDocuments", new BsonInt64(split.owned().count()))
                .append("ownedSizeBytes", new BsonInt64(split.owned().bytes()))
                .append("numOrphanedDocs", new BsonInt64(split.orphaned().count()))
                .append("orphanedSizeBytes", new BsonInt64(split.orphaned().bytes())));
    }

    /** A collection's documents on this shard, by owner. */
    private record Split(DataSize owned, DataSize orphaned) {}

    /** The documents of a sharded collection, by owner. */
    private Split split(CollectionInfo c, RoutingTable table) {
        Optional<IndexWalk.Source> index = shardKeyIndex.find(c, table.shardKey(), false);
        if (index.isEmpty()) {
            return scanned(c, table);
        }
        IndexWalk.RangeSizes sizes = walk.dataSizes(c, index.get(), table.unowned(shardName));
        DataSize all = sizes.all();
        DataSize orphaned = sizes.inRanges();
        return new Split(new DataSize(all.count() - orphaned.count(), all.bytes() - orphaned.bytes()), orphaned);
    }

    /** {@link #split}, reading every document and asking the routing table for its owner. */
    private Split scanned(CollectionInfo c, RoutingTable table) {
        long[] counts = new long[4]; // owned docs, owned bytes, orphaned docs, orphaned bytes
        scan.forEach(c, stored -> {
            int at = OwnershipFilter.owns(table, shardName, stored.raw()) ? 0 : 2; // only the shard key's fields are decoded
            counts[at]++;
            counts[at + 1] += stored.size();
        });
        return new Split(new DataSize(counts[0], counts[1]), new DataSize(counts[2], counts[3]));
    }
}
