package dev.shardstore.shard.command;

import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.shard.cursor.CursorManager;
import dev.shardstore.shard.storage.CollectionCatalog;
import dev.shardstore.shard.write.BucketCatalog;
import dev.shardstore.shard.timeseries.TimeseriesCollections;
import java.util.Optional;
import dev.shardstore.shard.storage.CollectionInfo;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.shard.versioning.CollectionShardingRuntime;
import org.springframework.stereotype.Component;

/**
 * Drops collections: each waits for the operations running on it (exclusive collection lock, which {@code drop}
 * holds through its declared access and dropDatabase takes here per collection), loses its table and catalog entry
 * with a {@code drop} oplog entry, and has its cursors killed.
 */
@Component
class CollectionDropper {
    private final CollectionShardingRuntime runtime;
    private final CollectionCatalog catalog;
    private final CursorManager cursors;
    private final TimeseriesCollections timeseries;
    private final BucketCatalog bucketCatalog;

    CollectionDropper(CollectionShardingRuntime runtime, CollectionCatalog catalog, CursorManager cursors, TimeseriesCollections timeseries,
            BucketCatalog bucketCatalog) {
        this.runtime = runtime;
        this.timeseries = timeseries;
        this.bucketCatalog = bucketCatalog;
        this.catalog = catalog;
        this.cursors = cursors;
    }

    /**
     * Drops {@code ns}, whose lock the caller holds exclusively; returns whether it existed. A time-series collection
     * is dropped with its buckets collection (locked exclusively too), whose open buckets the bucket catalog forgets.
     */
    boolean drop(OperationContext opCtx, Namespace ns) {
        Optional<CollectionInfo> buckets = timeseries.buckets(ns);
        if (buckets.isPresent()) {
            Namespace bucketsNs = buckets.get().namespace();
            bucketCatalog.clear(buckets.get().uuid());
            return runtime.exclusive(bucketsNs, () -> drop(opCtx, bucketsNs));
        }
        Optional<CollectionInfo> dropped = catalog.drop(opCtx, ns);
        dropped.ifPresent(c -> bucketCatalog.clear(c.uuid()));
        cursors.killCollection(ns);
        return dropped.isPresent();
    }

    /**
     * Drops every collection of {@code db} on this shard, then records {@code dropDatabase} in the
     * oplog and kills the database's remaining cursors (listCollections).
     *
     * @return how many collections were dropped
     */
    int dropDatabase(OperationContext opCtx, String db) {
        int dropped = 0;
        for (CollectionInfo collection : catalog.list(db)) {
            if (runtime.exclusive(collection.namespace(), () -> drop(opCtx, collection.namespace()))) {
                dropped++;
            }
        }
        if (dropped > 0) {
            catalog.recordDatabaseDropped(opCtx, db);
        }
        cursors.killDatabase(db);
        return dropped;
    }
}
