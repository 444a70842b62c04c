package dev.shardstore.shard.storage;

import java.util.BitSet;
import java.util.List;
import java.util.Optional;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * Reads and writes the documents of one collection table {@code (id bytea PRIMARY KEY, doc bytea)}:
 * {@code id} is the KeyString of {@code _id}, so the primary key orders documents as MongoDB orders
 * their {@code _id}s and equal {@code _id}s (1, 1L, 1.0) collide. Each write is one statement that
 * also appends its oplog entries ({@link Oplog#changeStatement}), so a write and its entries are atomic
 * even outside a transaction. Table names come from {@link CollectionInfo}, which only holds
 * service-generated names.
 *
 * <p>Writes also maintain the collection's secondary indexes ({@link IndexEntries}); with indexes, the
 * caller must hold a transaction, since a duplicate key in a unique index fails after the statement.
 */
@Repository
public class DocumentStore {
    private static final RowMapper<StoredDocument> ROW = (rs, i) -> new StoredDocument(rs.getBytes(1), rs.getBytes(2));
    private static final byte[][] NO_ARRAYS = new byte[0][];

    private final JdbcClient jdbc;
    private final ClusterClock clock;
    private final IndexCatalog indexes;
    private final IndexEntries entries;

    public DocumentStore(JdbcClient jdbc, ClusterClock clock, IndexCatalog indexes, IndexEntries entries) {
        this.jdbc = jdbc;
        this.clock = clock;
        this.indexes = indexes;
        this.entries = entries;
    }

    /**
     * Whether writes to the collection maintain secondary indexes: then callers must run each write in
     * a transaction, since a duplicate key in a unique index throws after the document statement ran.
     */
    public boolean hasIndexes(CollectionInfo c) {
        return !indexes.list(c).isEmpty();
    }

    private void addEntries(CollectionInfo c, List<StoredDocument> documents) {
        List<IndexSpec> all = indexes.list(c);
        if (all.isEmpty()) {
            return;
        }
        List<IndexSpec> multikey = entries.add(c.namespace(), all, documents);
        if (!multikey.isEmpty()) {
            indexes.markMultikey(c, multikey);
        }
    }

    private void removeEntries(CollectionInfo c, List<StoredDocument> documents) {
        List<IndexSpec> all = indexes.list(c);
        if (!all.isEmpty()) {
            entries.remove(all, documents.stream().map(StoredDocument::id).toList());
        }
    }

    /**
     * Inserts the documents whose {@code _id} is not taken, in one round trip, and appends an
     * {@code i} entry per inserted document.
     *
     * @param documents documents with distinct ids (the caller resolves duplicates within a batch)
     * @return the positions in {@code documents} that were inserted; the others hit an existing {@code _id}
     */
    public BitSet insert(CollectionInfo c, List<StoredDocument> documents) {
        String change = "INSERT INTO " + c.table() + " (id, doc) SELECT id, doc FROM src ORDER BY n "
                + "ON CONFLICT (id) DO NOTHING RETURNING id";
        BitSet inserted = change(c, Oplog.changeStatement(change, 'i', true), documents, true);
        if (hasIndexes(c)) {
            addEntries(c, inserted.stream().mapToObj(documents::get).toList());
        }
        return inserted;
    }

    /**
     * Replaces documents by id with the given post-images and appends a {@code u} entry (post-image in
     * {@code o}) per replaced document. Callers hold the rows locked, so every one is replaced.
     *
     * @return how many documents were replaced
     */
    public int replace(CollectionInfo c, List<StoredDocument> postImages) {
        String change = "UPDATE " + c.table() + " d SET doc = src.doc FROM src WHERE d.id = src.id RETURNING d.id";
        int replaced = change(c, Oplog.changeStatement(change, 'u', true), postImages, true).cardinality();
        if (hasIndexes(c)) {
            removeEntries(c, postImages);
            addEntries(c, postImages);
        }
        return replaced;
    }

    /**
     * Deletes documents by id and appends a {@code d} entry per deleted document.
     *
     * @return how many documents were deleted
     */
    public int delete(CollectionInfo c, List<StoredDocument> documents) {
        String change = "DELETE FROM " + c.table() + " d USING src WHERE d.id = src.id RETURNING d.id";
        int deleted = change(c, Oplog.changeStatement(change, 'd', false), documents, false).cardinality();
        removeEntries(c, documents);
        return deleted;
    }

    private BitSet change(CollectionInfo c, String sql, List<StoredDocument> documents, boolean withDocument) {
        BitSet changed = new BitSet(documents.size());
        if (documents.isEmpty()) {
            return changed;
        }
        int size = documents.size();
        byte[][] ids = new byte[size][];
        byte[][] docs = withDocument ? new byte[size][] : NO_ARRAYS;
        byte[][] keys = new byte[size][];
        for (int i = 0; i < size; i++) {
            StoredDocument d = documents.get(i);
            ids[i] = d.id();
            keys[i] = d.documentKey();
            if (withDocument) {
                docs[i] = d.bson();
            }
        }
        long firstTs = clock.reserve(size);
        JdbcClient.StatementSpec statement = jdbc.sql(sql).param(ids);
        if (withDocument) {
            statement = statement.param(docs);
        }
        statement.param(keys).param(firstTs).param(c.namespace().full())
                .query((rs, i) -> rs.getLong(1))
                .list()
                .forEach(ts -> changed.set((int) (ts - firstTs)));
        return changed;
    }

    /**
     * The next keyset page after {@code afterId}: at most {@code maxRows} rows, cut after the row that
     * reaches {@code maxBytes} of documents (at least one row when any follows).
     *
     * @param afterId an id to start after; an empty array starts at the beginning
     * @param lock    take row locks ({@code FOR UPDATE}) for a read-modify-write; the caller holds a
     *                transaction. Locked pages report {@code last} only when empty, since rows deleted
     *                concurrently may shorten them.
     */
    public Page page(CollectionInfo c, byte[] afterId, int maxRows, long maxBytes, boolean lock) {
        String window = "SELECT id, doc, sum(octet_length(doc)) OVER (ORDER BY id ROWS UNBOUNDED PRECEDING)"
                + " - octet_length(doc) AS before FROM " + c.table() + " WHERE id > ? ORDER BY id LIMIT ?";
        String sql = lock
                ? "SELECT id, doc FROM " + c.table() + " WHERE id IN (SELECT id FROM (" + window
                        + ") w WHERE before < ?) ORDER BY id FOR UPDATE"
                : "SELECT id, doc FROM (" + window + ") w WHERE before < ? ORDER BY id";
        List<StoredDocument> rows = jdbc.sql(sql)
                .param(afterId).param(maxRows).param(maxBytes)
                .query(ROW)
                .list();
        long bytes = rows.stream().mapToLong(StoredDocument::size).sum();
        boolean last = lock ? rows.isEmpty() : rows.size() < maxRows && bytes < maxBytes;
        return new Page(rows, last);
    }

    /**
     * The document with {@code _id} KeyString {@code id}.
     *
     * @param lock take a row lock; the caller holds a transaction
     */
    public Optional<StoredDocument> findById(CollectionInfo c, byte[] id, boolean lock) {
        return jdbc.sql("SELECT id, doc FROM " + c.table() + " WHERE id = ?" + (lock ? " FOR UPDATE" : ""))
                .param(id)
                .query(ROW)
                .optional();
    }

    /**
     * The next entries of a secondary index after position {@code (afterKey, afterId)} with keys below
     * {@code highKey}, in index order, each joined to its document.
     */
    public List<IndexedDocument> indexPage(CollectionInfo c, IndexSpec index, byte[] afterKey, byte[] afterId, byte[] highKey, int maxRows) {
        return jdbc.sql("SELECT i.key, d.id, d.doc FROM " + index.table() + " i JOIN " + c.table() + " d ON d.id = i.id"
                        + " WHERE (i.key, i.id) > (?, ?) AND i.key < ? ORDER BY i.key, i.id LIMIT ?")
                .param(afterKey).param(afterId).param(highKey).param(maxRows)
                .query((rs, i) -> new IndexedDocument(rs.getBytes(1), new StoredDocument(rs.getBytes(2), rs.getBytes(3))))
                .list();
    }

    /** The documents with these {@code _id} KeyStrings, row-locked, in {@code _id} order; the caller holds a transaction. */
    public List<StoredDocument> lockByIds(CollectionInfo c, List<byte[]> ids) {
        if (ids.isEmpty()) {
            return List.of();
        }
        return jdbc.sql("SELECT id, doc FROM " + c.table() + " WHERE id = ANY(?::bytea[]) ORDER BY id FOR UPDATE")
                .param(ids.toArray(byte[][]::new))
                .query(ROW)
                .list();
    }

    /** One index entry's key and its document. */
    public record IndexedDocument(byte[] key, StoredDocument document) {}

    /** Number of documents in the collection. */
    public long count(CollectionInfo c) {
        return jdbc.sql("SELECT count(*) FROM " + c.table()).query(Long.class).single();
    }
}
