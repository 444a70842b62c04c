package dev.shardstore.shard.moveprimary;

import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.shard.storage.CollectionCatalog;
import dev.shardstore.shard.storage.CollectionInfo;
import dev.shardstore.shard.storage.DocumentStore;
import dev.shardstore.shard.storage.IndexCatalog;
import dev.shardstore.shard.storage.StoredDocument;
import dev.shardstore.shard.storage.WriteUnitOfWork;
import dev.shardstore.shard.versioning.CollectionShardingRuntime;
import dev.shardstore.transport.http.CommandClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.springframework.stereotype.Component;

/**
 * The new primary's half of movePrimary (MongoDB's {@code MovePrimaryCloner} / {@code _shardsvrCloneCatalogData}):
 * copies unsharded collections of a database from the old primary, each with its create options, its documents and
 * its secondary indexes. The old primary serves the reads with unversioned commands ({@code listCollections},
 * {@code find}/{@code getMore} in batches of {@value #BATCH_SIZE}, {@code listIndexes}), which its database critical
 * section does not block; that section blocks every write the routers send it, so the copy is complete without a
 * catch-up phase (a write that waited on the old primary is refused there after the commit and retried here).
 *
 * <p>Each collection is cloned holding its collection lock exclusively: a copy left by an earlier attempt (a
 * coordinator resumed after a crash) is dropped first, then the collection is created, its documents inserted as
 * {@link WriteUnitOfWork#writeFromMigrate} writes (one unit per batch; they are not client writes), and its indexes
 * built over them. So the clone is idempotent: running it again gives the same copy.
 */
@Component
public class DatabaseCloner {
    /** The context of this component's own writes: no deadline, no session. */
    private static final OperationContext CLONER = OperationContext.internal("movePrimaryCloner");
    /** Documents per batch read from the old primary and inserted here. */
    static final int BATCH_SIZE = 1000;

    private final CommandClient client;
    private final CollectionShardingRuntime runtime;
    private final CollectionCatalog catalog;
    private final IndexCatalog indexes;
    private final DocumentStore store;
    private final WriteUnitOfWork units;

    public DatabaseCloner(CommandClient client, CollectionShardingRuntime runtime, CollectionCatalog catalog, IndexCatalog indexes,
            DocumentStore store, WriteUnitOfWork units) {
        this.client = client;
        this.runtime = runtime;
        this.catalog = catalog;
        this.indexes = indexes;
        this.store = store;
        this.units = units;
    }

    /** What {@link #cloneCollections} copied: the collections (those the donor still had) and their documents. */
    public record Cloned(List<String> collections, long documents) {
        public Cloned {
            collections = List.copyOf(collections);
        }
    }

    /**
     * Clones {@code collections} of {@code db} from the shard {@code donorShard} at {@code donorUrl}. A collection the
     * donor no longer has is not cloned (and a copy of it left here is dropped).
     *
     * @throws CommandException HostUnreachable/NetworkTimeout or the donor's error when it cannot be read; InternalError
     *                          when the donor served a document twice
     */
    public Cloned cloneCollections(String db, String donorShard, String donorUrl, List<String> collections) {
        Donor donor = new Donor(client, donorShard, donorUrl, db);
        List<String> cloned = new ArrayList<>();
        long documents = 0;
        for (String collection : collections) {
            Namespace ns = new Namespace(db, collection);
            Optional<Long> copied = runtime.exclusive(ns, () -> cloneCollection(ns, donor));
            if (copied.isPresent()) {
                cloned.add(collection);
                documents += copied.get();
            }
        }
        return new Cloned(cloned, documents);
    }

    /** Clones one collection, whose lock the caller holds exclusively; empty when the donor does not have it. */
    private Optional<Long> cloneCollection(Namespace ns, Donor donor) {
        catalog.drop(CLONER, ns); // a copy an earlier attempt left: start over
        Optional<BsonDocument> entry = donor.collection(ns.collection());
        if (entry.isEmpty()) {
            return Optional.empty();
        }
        CollectionInfo collection = catalog.create(CLONER, ns, entry.get().getDocument("options", new BsonDocument())).collection();
        long documents = 0;
        BsonDocument reply = donor.run(new BsonDocument("find", new BsonString(ns.collection())).append("batchSize", new BsonInt32(BATCH_SIZE)));
        BsonArray batch = reply.getDocument("cursor").getArray("firstBatch");
        while (true) {
            documents += insert(collection, batch);
            long cursor = reply.getDocument("cursor").getNumber("id").longValue();
            if (cursor == 0) {
                break;
            }
            reply = donor.run(new BsonDocument("getMore", new BsonInt64(cursor)).append("collection", new BsonString(ns.collection()))
                    .append("batchSize", new BsonInt32(BATCH_SIZE)));
            batch = reply.getDocument("cursor").getArray("nextBatch");
        }
        // built over the copied documents (one pass each) rather than maintained by every insert
        for (BsonValue index : donor.run(new BsonDocument("listIndexes", new BsonString(ns.collection())))
                .getDocument("cursor").getArray("firstBatch")) {
            BsonDocument spec = index.asDocument().clone();
            if (!spec.getString("name").getValue().equals("_id_")) {
                spec.remove("v");
                indexes.create(CLONER, collection, spec);
            }
        }
        return Optional.of(documents);
    }

    private long insert(CollectionInfo collection, BsonArray batch) {
        if (batch.isEmpty()) {
            return 0;
        }
        List<StoredDocument> documents = batch.stream().map(d -> StoredDocument.of(d.asDocument())).toList();
        int inserted = units.writeFromMigrate(CLONER, inUnit -> store.insert(inUnit, collection, documents)).cardinality();
        if (inserted != documents.size()) {
            throw new CommandException(ErrorCode.InternalError, "the old primary served a document of " + collection.namespace()
                    + " twice while it was cloned; the clone is retried from the start");
        }
        return inserted;
    }

    /** The old primary, read with unversioned commands on the database being moved. */
    private record Donor(CommandClient client, String shard, String url, String db) {
        BsonDocument run(BsonDocument command) {
            return client.runChecked(shard, url, db, command);
        }

        Optional<BsonDocument> collection(String name) {
            BsonArray found = run(new BsonDocument("listCollections", new BsonInt32(1))
                    .append("filter", new BsonDocument("name", new BsonString(name)))).getDocument("cursor").getArray("firstBatch");
            return found.isEmpty() ? Optional.empty() : Optional.of(found.get(0).asDocument());
        }
    }
}
