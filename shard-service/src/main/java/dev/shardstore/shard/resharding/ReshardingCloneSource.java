package dev.shardstore.shard.resharding;

import dev.shardstore.contracts.clock.ReadConcern;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.hash.BsonHasher;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.contracts.sharding.KeyRange;
import dev.shardstore.contracts.sharding.RoutingTable;
import dev.shardstore.contracts.sharding.ShardKeyPattern;
import dev.shardstore.shard.ShardProperties;
import dev.shardstore.shard.migration.MigrationChunkClonerSource;
import dev.shardstore.shard.storage.CollectionCatalog;
import dev.shardstore.shard.storage.CollectionInfo;
import dev.shardstore.shard.storage.DocumentStore;
import dev.shardstore.shard.storage.OplogReader;
import dev.shardstore.shard.storage.Page;
import dev.shardstore.shard.storage.SnapshotRead;
import dev.shardstore.shard.storage.StoredDocument;
import dev.shardstore.shard.storage.TransactionResources;
import dev.shardstore.shard.storage.VersionStore;
import dev.shardstore.shard.storage.WriteUnitOfWork;
import dev.shardstore.shard.transaction.SnapshotReads;
import dev.shardstore.shard.versioning.CollectionShardingState;
import dev.shardstore.shard.versioning.OwnershipFilter;
import dev.shardstore.support.operation.OperationContext;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.jspecify.annotations.Nullable;
import org.springframework.stereotype.Component;

/**
 * A donor's side of resharding's data path: its oplog after {@code cloneTimestamp} ({@link #oplogBatch}), the
 * verification's digests ({@link #digest}), and the recipients' clone: the documents of the collection as they were at {@code cloneTimestamp}
 * that this shard owned (under the current key: orphans are left out) and whose NEW key falls in one recipient's ranges,
 * in pages by {@code _id} (MongoDB's recipient runs an aggregation at {@code atClusterTime} on each donor).
 *
 * <p>Each page is read in a PostgreSQL snapshot of its own at the cluster time ({@link SnapshotReads#open}, docs/architecture.md
 * "Snapshot reads"): the current rows after the resume token, except those changed after the time, which come, as they
 * were then, with the last page (the snapshot's {@link VersionStore.Overlay}, as {@code MatchingScan} reads them). A
 * document a later page's overlay holds may also have come with an earlier page, as it was at the time both ways, so
 * the recipient's upsert by {@code _id} absorbs it.
 */
@Component
public class ReshardingCloneSource {
    private static final OperationContext CLONE = OperationContext.internal("reshardingClone");
    private static final int DIGEST_PAGE_ROWS = 1000;

    private final CollectionCatalog catalog;
    private final DocumentStore store;
    private final WriteUnitOfWork units;
    private final SnapshotReads snapshots;
    private final CollectionShardingState sharding;
    private final OplogReader oplog;
    private final String shardName;

    public ReshardingCloneSource(CollectionCatalog catalog, DocumentStore store, WriteUnitOfWork units, SnapshotReads snapshots,
            CollectionShardingState sharding, OplogReader oplog, ShardProperties shard) {
        this.catalog = catalog;
        this.store = store;
        this.units = units;
        this.snapshots = snapshots;
        this.sharding = sharding;
        this.oplog = oplog;
        this.shardName = shard.name();
    }

    /**
     * One page of a recipient's clone.
     *
     * @param documents the page's documents (at most {@code maxRows} rows, plus the changed ones with the last page)
     * @param next      the resume token for the next page ({@code _id} KeyString of the last row read); null after the last
     */
    public record ClonePage(List<StoredDocument> documents, byte @Nullable [] next) {
        public ClonePage {
            documents = List.copyOf(documents);
        }
    }

    /**
     * The page after {@code after}.
     *
     * @param newKey the new shard key
     * @param ranges the recipient's new chunks, as KeyString ranges of {@code newKey}
     * @param after  the previous page's {@link ClonePage#next}; an empty array to start
     * @throws CommandException SnapshotTooOld (239) when {@code cloneTimestamp} left the history window; ShardKeyNotFound
     *                          when a document has an array on the new key's path
     */
    public ClonePage page(Namespace namespace, BsonTimestamp cloneTimestamp, ShardKeyPattern newKey, List<KeyRange> ranges, byte[] after,
            int maxRows, long maxBytes) {
        CollectionInfo collection = catalog.find(namespace).orElse(null);
        if (collection == null) {
            return new ClonePage(List.of(), null);
        }
        RoutingTable owned = routingTable(namespace);
        SnapshotRead snapshot = snapshots.open(new ReadConcern(ReadConcern.Level.SNAPSHOT, null, cloneTimestamp), false);
        TransactionResources resources = units.beginTransaction();
        try {
            return units.inTransaction(CLONE, resources, inTxn -> {
                OperationContext atTime = snapshot.attach(inTxn);
                VersionStore.Overlay overlay = store.overlay(atTime, collection);
                Page rows = store.page(collection, after, maxRows, maxBytes, false);
                List<StoredDocument> out = new ArrayList<>();
                for (StoredDocument row : rows.documents()) {
                    if ((overlay == null || !overlay.changed(row.id())) && destined(owned, newKey, ranges, row)) {
                        out.add(row);
                    }
                }
                if (!rows.last()) {
                    return new ClonePage(out, rows.documents().getLast().id());
                }
                if (overlay != null) {
                    for (StoredDocument then : overlay.present()) {
                        if (destined(owned, newKey, ranges, then)) {
                            out.add(then);
                        }
                    }
                }
                return new ClonePage(out, null);
            });
        } finally {
            units.abortTransaction(resources); // it only read
        }
    }

    /**
     * The donor's oplog entries of {@code namespace} after {@code after}, in {@code _transferMods}' shape
     * ({@link MigrationChunkClonerSource#modsReply}: {@code {entries: [{ts, op, o2, o?}], resumeAfter, more}}); the
     * donation's pin keeps them.
     */
    public BsonDocument oplogBatch(Namespace namespace, BsonTimestamp after) {
        CollectionInfo collection = catalog.find(namespace).orElse(null);
        if (collection == null) {
            return new BsonDocument("entries", new BsonArray()).append("resumeAfter", after).append("more", BsonBoolean.FALSE);
        }
        return MigrationChunkClonerSource.modsReply(oplog.read(collection.uuid(), after, null, MigrationChunkClonerSource.MODS_BATCH_ENTRIES),
                after);
    }

    /**
     * The verification's digest of {@code namespace} per range of {@code newKey}: how many documents fall in each and the
     * sum (wrapping) of their {@link BsonHasher#hash64} values, which does not depend on their order. Reads the current
     * documents (the write block holds them still).
     *
     * @param ownedOnly count only the documents this shard owns under the collection's current key (a donor, whose
     *                  orphans are not the collection's); a recipient's temporary collection counts all
     * @return one {@code [count, hash]} per range, in the ranges' order
     */
    public List<long[]> digest(Namespace namespace, ShardKeyPattern newKey, List<KeyRange> ranges, boolean ownedOnly) {
        List<long[]> digests = new ArrayList<>();
        ranges.forEach(r -> digests.add(new long[2]));
        CollectionInfo collection = catalog.find(namespace).orElse(null);
        if (collection == null) {
            return digests;
        }
        RoutingTable owned = ownedOnly ? routingTable(namespace) : null;
        byte[] after = new byte[0];
        Page page;
        do {
            page = store.page(collection, after, DIGEST_PAGE_ROWS, Long.MAX_VALUE, false);
            for (StoredDocument row : page.documents()) {
                BsonDocument document = row.decode();
                if (owned != null && !OwnershipFilter.owns(owned, shardName, document)) {
                    continue;
                }
                byte[] key = newKey.keyOf(document);
                for (int i = 0; i < ranges.size(); i++) {
                    if (ranges.get(i).contains(key)) {
                        digests.get(i)[0]++;
                        digests.get(i)[1] += BsonHasher.hash64(document);
                        break;
                    }
                }
            }
            if (!page.documents().isEmpty()) {
                after = page.documents().getLast().id();
            }
        } while (!page.last());
        return digests;
    }

    private RoutingTable routingTable(Namespace namespace) {
        return sharding.get(namespace.full()).table().orElseThrow(() -> new CommandException(ErrorCode.NamespaceNotSharded,
                "the resharding donor's collection " + namespace.full() + " is not sharded here"));
    }

    /** Whether this shard owns {@code document} now and its new key falls in {@code ranges}. */
    private boolean destined(RoutingTable owned, ShardKeyPattern newKey, List<KeyRange> ranges, StoredDocument document) {
        BsonDocument decoded = document.decode();
        if (!OwnershipFilter.owns(owned, shardName, decoded)) {
            return false;
        }
        byte[] key = newKey.keyOf(decoded);
        return ranges.stream().anyMatch(r -> r.contains(key));
    }
}
