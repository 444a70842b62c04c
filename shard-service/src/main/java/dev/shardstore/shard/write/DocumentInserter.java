package dev.shardstore.shard.write;

import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.engine.query.IdField;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.shard.storage.CollectionCatalog;
import dev.shardstore.shard.storage.CollectionInfo;
import dev.shardstore.shard.storage.DocumentStore;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.shard.storage.StoredDocument;
import dev.shardstore.shard.storage.WriteUnitOfWork;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import dev.shardstore.shard.versioning.OperationShardingState;
import org.bson.BsonDocument;
import org.bson.BsonObjectId;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import dev.shardstore.contracts.bson.BsonBytes;
import org.springframework.stereotype.Component;


/**
 * The write path of MongoDB's {@code insert}: gives documents without {@code _id} a new ObjectId,
 * moves {@code _id} first, rejects invalid {@code _id}s ({@link IdField}: array, regex, undefined, InvalidIdField 53;
 * {@code $}-prefixed names inside, DollarPrefixedFieldName 52) and documents over 16 MiB
 * (BSONObjectTooLarge, 10334), then writes the batch in one statement and reports the documents whose
 * {@code _id} was taken (DuplicateKey, 11000), whether by a stored document or an earlier one of the
 * same batch.
 *
 * <p>Unordered: every valid document is written. Ordered: documents after the first error are not
 * written. When a duplicate turns up in the middle of an ordered batch, the attempt is rolled back
 * and the prefix before the duplicate is written again, so the fast path stays one statement. Every attempt
 * is one {@link WriteUnitOfWork}. With secondary indexes the batch and its index entries go in one unit,
 * and when an index refuses a document, document by document, each in its own unit.
 * Creates the collection implicitly. A versioned insert on a sharded collection refuses, with StaleConfig and
 * before writing anything, a batch holding a document whose shard key another shard owns.
 */
@Component
public class DocumentInserter {
    private final CollectionCatalog catalog;
    private final DocumentStore store;
    private final WriteUnitOfWork units;

    DocumentInserter(CollectionCatalog catalog, DocumentStore store, WriteUnitOfWork units) {
        this.catalog = catalog;
        this.store = store;
        this.units = units;
    }

    /** Inserts {@code documents} into {@code ns}; the caller holds the namespace in shared mode. */
    public WriteResult insert(OperationContext opCtx, Namespace ns, List<BsonDocument> documents, boolean ordered) {
        WriteResult result = new WriteResult();
        List<Prepared> batch = new ArrayList<>(documents.size());
        Set<ByteBuffer> ids = new HashSet<>();
        WriteError firstRejected = null;
        for (int i = 0; i < documents.size() && (firstRejected == null || !ordered); i++) {
            BsonDocument doc = withIdFirst(documents.get(i));
            // a versioned batch with a document of another shard's chunk was routed stale: refuse it whole (nothing
            // is written before this loop ends)
            OperationShardingState.checkInsert(opCtx, ns.full(), doc);
            BsonValue id = Objects.requireNonNull(doc.get("_id"), "withIdFirst gives every document an _id");
            try {
                IdField.requireValid(id);
                Prepared prepared = new Prepared(i, id, Documents.encodeWithinLimit(doc, "object to insert too large"));
                if (!ids.add(ByteBuffer.wrap(prepared.stored().id()))) {
                    throw WriteError.duplicateId(ns, id);
                }
                batch.add(prepared);
            } catch (CommandException e) {
                WriteError rejected = new WriteError(i, e);
                if (firstRejected == null) {
                    firstRejected = rejected;
                }
                if (!ordered) {
                    result.addError(rejected);
                }
            }
        }
        if (!batch.isEmpty()) {
            CollectionInfo collection = catalog.create(opCtx, ns, new BsonDocument()).collection();
            if (store.mayRefuseDocuments(collection)) {
                if (!insertIndexedBatch(opCtx, ns, collection, batch, ordered, result)) {
                    insertOneByOne(opCtx, ns, collection, batch, ordered, result);
                }
            } else if (ordered) {
                insertOrdered(opCtx, ns, collection, batch, result);
            } else {
                report(ns, batch, units.write(opCtx, inUnit -> store.insert(inUnit, collection, stored(batch))), false, result);
            }
        }
        if (ordered && firstRejected != null && !result.hasErrors()) {
            result.addError(firstRejected);
        }
        return result;
    }

    /**
     * Writes an ordered batch (everything before the first rejected document) in one transaction.
     * When a duplicate stops the batch while later documents went in, the attempt is rolled back and
     * the prefix before the duplicate is written instead; the duplicate is the batch's error.
     */
    private void insertOrdered(OperationContext opCtx, Namespace ns, CollectionInfo collection, List<Prepared> batch, WriteResult result) {
        List<Prepared> attempt = batch;
        Prepared stoppedAt = null;
        while (true) {
            List<Prepared> current = attempt;
            BitSet written = units.write(opCtx, inUnit -> {
                BitSet inserted = store.insert(inUnit, collection, stored(current));
                if (stopsEarly(inserted, current.size())) {
                    units.setRollbackOnly(inUnit);
                }
                return inserted;
            });
            if (current.size() > 1 && stopsEarly(written, current.size())) {
                int stop = written.nextClearBit(0);
                stoppedAt = current.get(stop);
                attempt = current.subList(0, stop);
                continue;
            }
            report(ns, current, written, true, result);
            if (stoppedAt != null && !result.hasErrors()) {
                result.addError(new WriteError(stoppedAt.index(), WriteError.duplicateId(ns, stoppedAt.id())));
            }
            return;
        }
    }

    /**
     * The fast path into a collection with secondary indexes: the whole batch, its oplog entries and
     * its index entries in one transaction. Gives up (rolling back, returning false) when an index
     * refuses a document (duplicate key, parallel arrays) or an ordered batch hits a taken {@code _id};
     * the caller then goes document by document.
     */
    private boolean insertIndexedBatch(OperationContext opCtx, Namespace ns, CollectionInfo collection, List<Prepared> batch, boolean ordered, WriteResult result) {
        BitSet written;
        try {
            written = units.write(opCtx, inUnit -> {
                BitSet inserted = store.insert(inUnit, collection, stored(batch));
                if (ordered && inserted.cardinality() < batch.size()) {
                    units.setRollbackOnly(inUnit);
                    return null;
                }
                return inserted;
            });
        } catch (CommandException e) {
            return false;
        }
        if (written == null) {
            return false;
        }
        report(ns, batch, written, false, result);
        return true;
    }

    /**
     * Writes a batch into a collection with secondary indexes: each document with its index entries in
     * its own transaction, so a duplicate key in any unique index fails just that document (ordered:
     * and stops the batch).
     */
    private void insertOneByOne(OperationContext opCtx, Namespace ns, CollectionInfo collection, List<Prepared> batch, boolean ordered, WriteResult result) {
        for (Prepared p : batch) {
            try {
                boolean inserted = units.write(opCtx, inUnit -> store.insert(inUnit, collection, List.of(p.stored())).get(0));
                if (!inserted) {
                    throw WriteError.duplicateId(ns, p.id());
                }
                result.addN(1);
            } catch (CommandException e) {
                result.addError(new WriteError(p.index(), e));
                if (ordered) {
                    return;
                }
            }
        }
    }

    /** True when a document was not inserted but a later one was: an ordered batch must not keep that. */
    private static boolean stopsEarly(BitSet inserted, int size) {
        int stop = inserted.nextClearBit(0);
        return stop < size && inserted.nextSetBit(stop) >= 0;
    }

    /**
     * Counts the inserted documents and reports the others as duplicates; {@code firstOnly} reports
     * only the first (an ordered batch stops there).
     */
    private static void report(Namespace ns, List<Prepared> batch, BitSet inserted, boolean firstOnly, WriteResult result) {
        result.addN(inserted.cardinality());
        for (int j = inserted.nextClearBit(0); j < batch.size(); j = inserted.nextClearBit(j + 1)) {
            Prepared p = batch.get(j);
            result.addError(new WriteError(p.index(), WriteError.duplicateId(ns, p.id())));
            if (firstOnly) {
                return;
            }
        }
    }

    private static List<StoredDocument> stored(List<Prepared> batch) {
        return batch.stream().map(Prepared::stored).toList();
    }

    /** {@code _id} first, a new ObjectId when missing, as mongod stores inserted documents. */
    public static BsonDocument withIdFirst(BsonDocument doc) {
        if (doc instanceof RawBsonDocument raw && BsonBytes.startsWithId(raw)) {
            return doc; // a document as it arrived in the batch, already in order: kept as its bytes
        }
        BsonValue id = doc.get("_id");
        if (id != null && doc.getFirstKey().equals("_id")) {
            return doc;
        }
        BsonDocument ordered = new BsonDocument("_id", id != null ? id : new BsonObjectId());
        doc.forEach((name, value) -> {
            if (!name.equals("_id")) {
                ordered.append(name, value);
            }
        });
        return ordered;
    }

    /**
     * One document ready to write.
     *
     * @param index  its position in the command's {@code documents}
     * @param id     its {@code _id}
     * @param stored its KeyString and bytes
     */
    private record Prepared(int index, BsonValue id, StoredDocument stored) {}
}
