package dev.shardstore.shard.write;

import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.keystring.KeyString;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.contracts.timeseries.TimeseriesOptions;
import dev.shardstore.engine.query.Filter;
import dev.shardstore.engine.timeseries.Bucket;
import dev.shardstore.shard.cursor.Batch;
import dev.shardstore.shard.cursor.FindQuery;
import dev.shardstore.shard.cursor.QueryRunner;
import dev.shardstore.shard.cursor.ShardCursor;
import dev.shardstore.shard.storage.CollectionInfo;
import dev.shardstore.shard.storage.DocumentStore;
import dev.shardstore.shard.storage.StoredDocument;
import dev.shardstore.shard.storage.WriteUnitOfWork;
import dev.shardstore.shard.versioning.OperationShardingState;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.locks.ReentrantLock;
import org.bson.BsonBoolean;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;
import org.springframework.stereotype.Component;

/**
 * The shard's bucket catalog (MongoDB's {@code BucketCatalog}; mongo/src/mongo/db/s/README_timeseries.md "Orphan buckets and the
 * bucket catalog"): for each buckets collection and meta value it remembers the open bucket, the one new measurements
 * of that meta go to. A measurement goes to the open bucket when it fits ({@link Bucket#fits}: same time span, below
 * the count and size limits), else to a stored bucket of its meta whose span covers it and that still has room
 * (reopened), else to a new bucket, which becomes the open one.
 *
 * <p>Only bucket ids are kept in memory: every write reads the stored bucket row-locked in its transaction and adds
 * to that, so updates, deletes and migrations that changed a bucket meanwhile are never overwritten. A batch whose
 * bucket vanished or filled up meanwhile is rolled back and placed again from the stored buckets. {@link #clear}
 * forgets a collection's open buckets (drop, updates and deletes of buckets, and migrations, after which a bucket
 * may be an orphan here). Reopening reads through the shard's ownership filter, so it never picks an orphan.
 * One batch at a time per buckets collection: placement is decided under that collection's lock.
 */
@Component
public class BucketCatalog {
    private final DocumentStore store;
    private final WriteUnitOfWork units;
    private final QueryRunner queries;
    private final ConcurrentMap<UUID, Collection> collections = new ConcurrentHashMap<>();

    public BucketCatalog(DocumentStore store, WriteUnitOfWork units, QueryRunner queries) {
        this.store = store;
        this.units = units;
        this.queries = queries;
    }

    /**
     * Writes {@code measurements} (each valid: with {@code _id} and a date time field) into buckets of
     * {@code buckets}, all in one transaction. The caller holds the collection in shared mode.
     *
     * @throws dev.shardstore.contracts.error.CommandException StaleConfig when a new bucket's shard key belongs to
     *                                                         another shard (the router then retries the batch)
     */
    public void insert(OperationContext opCtx, CollectionInfo buckets, TimeseriesOptions options, List<BsonDocument> measurements) {
        Collection collection = collections.computeIfAbsent(buckets.uuid(), uuid -> new Collection(buckets.namespace()));
        collection.lock.lock();
        try {
            for (int attempt = 0; ; attempt++) {
                Map<BsonValue, Placement> placements = place(opCtx, collection, buckets, options, measurements);
                if (units.write(opCtx, inUnit -> {
                    boolean written = write(inUnit, buckets, options, placements);
                    if (!written) {
                        units.setRollbackOnly(inUnit);
                    }
                    return written;
                })) {
                    return;
                }
                collection.open.clear(); // a bucket changed under us: place everything again from what is stored
                if (attempt > 3) {
                    throw new IllegalStateException("time-series buckets of " + buckets.namespace() + " keep changing during an insert");
                }
            }
        } finally {
            collection.lock.unlock();
        }
    }

    /** Forgets the open buckets of the buckets collection {@code uuid} (the next inserts reopen or open buckets). */
    public void clear(UUID uuid) {
        Collection collection = collections.get(uuid);
        if (collection != null) {
            collection.clear();
        }
    }

    /**
     * Forgets the open buckets of the buckets collection {@code buckets}, whatever its instance: called when a chunk of it
     * left this shard (a committed migration), after which an open bucket may be an orphan here
     * (mongo/src/mongo/db/s/README_timeseries.md "Orphan buckets and the bucket catalog": the catalog is cleared after a migration succeeded).
     * A write racing with this still never extends an orphan: {@link #insert} checks ownership under the row lock.
     */
    public void clear(Namespace buckets) {
        collections.values().stream().filter(c -> c.namespace.equals(buckets)).forEach(Collection::clear);
    }

    /** Whether the catalog holds an open bucket of the buckets collection {@code uuid} (what tests observe). */
    public boolean hasOpenBuckets(UUID uuid) {
        Collection collection = collections.get(uuid);
        if (collection == null) {
            return false;
        }
        collection.lock.lock();
        try {
            return !collection.open.isEmpty();
        } finally {
            collection.lock.unlock();
        }
    }

    /** Decides the bucket of each measurement, updating the open buckets; new buckets are built in full. */
    private Map<BsonValue, Placement> place(OperationContext opCtx, Collection collection, CollectionInfo buckets, TimeseriesOptions options,
            List<BsonDocument> measurements) {
        Map<BsonValue, Placement> placements = new LinkedHashMap<>();
        for (BsonDocument measurement : measurements) {
            BsonValue meta = options.metaField() == null ? null : measurement.get(options.metaField());
            ByteBuffer key = metaKey(meta);
            long time = Bucket.timeOf(options, measurement);
            int size = BsonBytes.encode(measurement).length;
            OpenBucket open = collection.open.get(key);
            if (open == null || !open.fits(options, time, size)) {
                open = reopen(opCtx, buckets, options, meta, time, size);
                if (open == null) {
                    Bucket fresh = Bucket.open(options, meta, time);
                    open = new OpenBucket(fresh.id(), fresh.minTime(), 0, 0);
                    placements.put(fresh.id(), new Placement(fresh, true, new ArrayList<>()));
                }
                collection.open.put(key, open);
            }
            placements.computeIfAbsent(open.id(), id -> new Placement(null, false, new ArrayList<>())).measurements().add(measurement);
            open.count++;
            open.size += size;
        }
        return placements;
    }

    /** A stored, owned bucket of {@code meta} with room for the measurement, or null. */
    private @Nullable OpenBucket reopen(OperationContext opCtx, CollectionInfo buckets, TimeseriesOptions options, @Nullable BsonValue meta, long time, int size) {
        String min = "control.min." + options.timeField();
        BsonDocument filter = new BsonDocument(min, new BsonDocument("$lte", new BsonDateTime(time))
                .append("$gt", new BsonDateTime(time - options.bucketMaxSpanMillis())));
        filter.append("meta", meta == null ? new BsonDocument("$exists", BsonBoolean.FALSE) : meta);
        ShardCursor cursor = queries.find(opCtx, buckets, new FindQuery(Filter.parse(filter), null, null, 0, 0, filter, null), 16);
        Batch batch;
        do {
            batch = cursor.next(opCtx, 16);
            for (BsonDocument stored : batch.documents()) {
                Bucket candidate = Bucket.reopen(options, stored);
                if (candidate.fits(time, size)) {
                    return new OpenBucket(candidate.id(), candidate.minTime(), candidate.count(), candidate.sizeBytes());
                }
            }
        } while (!batch.exhausted());
        return null;
    }

    /**
     * Writes the placements: new buckets inserted, stored ones read locked, extended and replaced. False (nothing
     * must be kept) when a stored bucket is gone, no longer has room or is no longer owned by this shard.
     */
    private boolean write(OperationContext inUnit, CollectionInfo buckets, TimeseriesOptions options, Map<BsonValue, Placement> placements) {
        List<byte[]> storedIds = new ArrayList<>();
        placements.forEach((id, p) -> {
            if (!p.isNew()) {
                storedIds.add(KeyString.encode(id));
            }
        });
        Map<ByteBuffer, StoredDocument> locked = new HashMap<>();
        for (StoredDocument row : store.lockByIds(buckets, storedIds)) {
            locked.put(ByteBuffer.wrap(row.id()), row);
        }
        List<StoredDocument> inserts = new ArrayList<>();
        List<DocumentStore.Replacement> replacements = new ArrayList<>();
        for (Map.Entry<BsonValue, Placement> entry : placements.entrySet()) {
            Placement p = entry.getValue();
            Bucket bucket = p.fresh(); // a new bucket's; null for a stored one
            StoredDocument before = null;
            if (bucket == null) {
                before = locked.get(ByteBuffer.wrap(KeyString.encode(entry.getKey())));
                if (before == null) {
                    return false;
                }
                BsonDocument stored = before.decode();
                if (!OperationShardingState.visible(inUnit, buckets.namespace().full()).test(stored)) {
                    return false; // an open bucket that became an orphan here (its chunk moved): never add to it
                }
                bucket = Bucket.reopen(options, stored);
            }
            for (BsonDocument m : p.measurements()) {
                int size = BsonBytes.encode(m).length;
                if (before != null && !bucket.fits(Bucket.timeOf(options, m), size)) {
                    return false;
                }
                bucket.add(m, size);
            }
            BsonDocument doc = bucket.toDocument();
            if (before == null) {
                OperationShardingState.checkInsert(inUnit, buckets.namespace().full(), doc);
                inserts.add(StoredDocument.of(doc));
            } else {
                replacements.add(new DocumentStore.Replacement(before, StoredDocument.of(doc)));
            }
        }
        store.insert(inUnit, buckets, inserts);
        store.replace(inUnit, buckets, replacements);
        return true;
    }

    private static ByteBuffer metaKey(@Nullable BsonValue meta) {
        return ByteBuffer.wrap(meta == null ? new byte[0] : BsonBytes.encode(new BsonDocument("m", meta)));
    }

    /** The open buckets of one buckets collection, by meta key, and the lock placement runs under. */
    private static final class Collection {
        final Namespace namespace;
        final ReentrantLock lock = new ReentrantLock();
        final Map<ByteBuffer, OpenBucket> open = new HashMap<>();

        Collection(Namespace namespace) {
            this.namespace = namespace;
        }

        void clear() {
            lock.lock();
            try {
                open.clear();
            } finally {
                lock.unlock();
            }
        }
    }

    /** What the catalog remembers of an open bucket: enough to decide whether a measurement fits. */
    private static final class OpenBucket {
        final BsonValue id;
        final long minTime;
        int count;
        long size;

        OpenBucket(BsonValue id, long minTime, int count, long size) {
            this.id = id;
            this.minTime = minTime;
            this.count = count;
            this.size = size;
        }

        BsonValue id() {
            return id;
        }

        boolean fits(TimeseriesOptions options, long time, int sizeBytes) {
            return Bucket.fits(options, minTime, count, size, time, sizeBytes);
        }
    }

    /**
     * The measurements of one batch going to one bucket.
     *
     * @param fresh the new bucket (already built, empty), or null for a stored one
     * @param isNew whether the bucket is new (then {@code fresh} is it)
     */
    private record Placement(@Nullable Bucket fresh, boolean isNew, List<BsonDocument> measurements) {}
}
