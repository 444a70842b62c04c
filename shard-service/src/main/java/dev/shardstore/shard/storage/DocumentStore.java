package dev.shardstore.shard.storage;

import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.error.ErrorLabel;
import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.contracts.sharding.ShardKeyPattern;
import dev.shardstore.shard.versioning.OperationShardingState;
import dev.shardstore.shard.versioning.OwnershipFilter;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.UncategorizedSQLException;
import org.springframework.jdbc.support.SQLExceptionTranslator;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * Reads and writes the documents of one collection table {@code (id bytea PRIMARY KEY, doc bytea)}:
 * {@code id} is the KeyString of {@code _id}, so the primary key orders documents as MongoDB orders
 * their {@code _id}s and equal {@code _id}s (1, 1L, 1.0) collide. Each write is one statement that
 * also appends its oplog entries ({@link Oplog#changeStatement}) with their documentKeys
 * ({@link DocumentKeys}), and runs inside a {@link WriteUnitOfWork}, which gives the entries their cluster
 * times. Table names come from {@link CollectionInfo}, which only holds service-generated names.
 *
 * <p>Writes also maintain the collection's secondary indexes ({@link IndexEntries}) in the same unit; a
 * duplicate key in a unique index fails after the document statement, and the unit rolls both back.
 */
// @Component, not @Repository: the repository proxy (exception translation, which JdbcClient already does) cost a
// reflective call chain on every lookup of a routed point read (issue-10 profile: ~4% of the shard's CPU each)
@Component
public class DocumentStore {
    /** Tables whose point-read SQL is kept; far more than a shard's collections. */
    private static final int MAX_POINT_READ_TABLES = 4096;
    /** Rows of one {@link #indexRange} statement: about 100 KB of typical documents, 1 MB of 1 KB ones. */
    private static final int RANGE_FETCH_ROWS = 1000;
    private static final RowMapper<StoredDocument> ROW = (rs, i) -> new StoredDocument(rs.getBytes(1), rs.getBytes(2));
    private final JdbcClient jdbc;
    private final WriteUnitOfWork units;
    private final DocumentKeys keys;
    private final IndexCatalog indexes;
    private final IndexEntries entries;
    private final DataSource dataSource;
    private final SQLExceptionTranslator exceptions;
    private final Map<String, PointRead> pointReads = new ConcurrentHashMap<>();
    private final VersionStore versions;

    public DocumentStore(JdbcClient jdbc, JdbcTemplate template, WriteUnitOfWork units, DocumentKeys keys, IndexCatalog indexes,
            IndexEntries entries, VersionStore versions) {
        this.versions = versions;
        this.jdbc = jdbc;
        this.dataSource = Objects.requireNonNull(template.getDataSource(), "dataSource");
        this.exceptions = template.getExceptionTranslator();
        this.units = units;
        this.keys = keys;
        this.indexes = indexes;
        this.entries = entries;
    }

    /**
     * Whether writing the collection's index entries can refuse a document ({@link IndexSpec#mayRefuseDocuments}): that
     * throws after the document statement ran, and the caller's unit (or savepoint) must roll both back. Writes to other
     * collections need no savepoint.
     */
    public boolean mayRefuseDocuments(CollectionInfo c) {
        return indexes.maintained(c).stream().anyMatch(IndexSpec::mayRefuseDocuments);
    }

    /** Marks the indexes a write found multikey, if any; the entry writers return them ({@link IndexEntries}). */
    private void markMultikey(CollectionInfo c, List<IndexSpec> becameMultikey) {
        if (!becameMultikey.isEmpty()) {
            indexes.markMultikey(c, becameMultikey);
        }
    }

    /**
     * Inserts the documents whose {@code _id} is not taken, in one round trip, and appends an
     * {@code i} entry per inserted document. Runs inside {@code opCtx}'s {@link WriteUnitOfWork}.
     *
     * @param documents documents with distinct ids (the caller resolves duplicates within a batch)
     * @return the positions in {@code documents} that were inserted; the others hit an existing {@code _id}
     */
    public BitSet insert(OperationContext opCtx, CollectionInfo c, List<StoredDocument> documents) {
        requireUnchangedSinceSnapshot(opCtx, c, documents);
        String change = "INSERT INTO " + c.table() + " (id, doc) SELECT id, doc FROM src ORDER BY n "
                + "ON CONFLICT (id) DO NOTHING RETURNING id";
        BitSet inserted = change(opCtx, c, 'i', change, documents, List.of());
        markMultikey(c, entries.add(c.namespace(), indexes.maintained(c), inserted.stream().mapToObj(documents::get).toList()));
        return inserted;
    }

    /**
     * Replaces documents by id with their post-images and appends a {@code u} entry (post-image in {@code o})
     * per replaced document. Callers hold the rows locked, so every one is replaced. Runs inside a
     * {@link WriteUnitOfWork}.
     *
     * @return how many documents were replaced
     */
    public int replace(OperationContext opCtx, CollectionInfo c, List<Replacement> replacements) {
        List<StoredDocument> postImages = replacements.stream().map(Replacement::after).toList();
        List<StoredDocument> preImages = replacements.stream().map(Replacement::before).toList();
        requireUnchangedSinceSnapshot(opCtx, c, preImages);
        String change = "UPDATE " + c.table() + " d SET doc = src.doc FROM src WHERE d.id = src.id RETURNING d.id";
        int replaced = change(opCtx, c, 'u', change, postImages, preImages).cardinality();
        markMultikey(c, entries.replace(c.namespace(), indexes.maintained(c), preImages, postImages));
        return replaced;
    }

    /**
     * Deletes documents by id and appends a {@code d} entry per deleted document, whose documentKey comes from
     * the document as given (the caller read it locked). Runs inside a {@link WriteUnitOfWork}.
     *
     * @return how many documents were deleted
     */
    public int delete(OperationContext opCtx, CollectionInfo c, List<StoredDocument> documents) {
        requireUnchangedSinceSnapshot(opCtx, c, documents);
        String change = "DELETE FROM " + c.table() + " d USING src WHERE d.id = src.id RETURNING d.id";
        int deleted = change(opCtx, c, 'd', change, documents, List.of()).cardinality();
        entries.remove(indexes.maintained(c), documents.stream().map(StoredDocument::id).toList());
        return deleted;
    }

    /**
     * A recipient's idempotent apply (chunk migration, resharding): upserts {@code upserts} and deletes the documents with
     * {@code _id} KeyStrings {@code deletes}, in the caller's unit of work. The upsert inserts every document in one
     * statement ({@code ON CONFLICT DO NOTHING}) and replaces only the ones whose {@code _id} it found taken, so a page
     * into an empty range costs one statement for the documents and one per index, and re-applying a page (or a change
     * already seen) replaces documents instead of duplicating them; a missing document's delete does nothing.
     *
     * @throws CommandException DuplicateKey on a unique index conflict (the unit rolls back)
     */
    public void upsertAndDelete(OperationContext opCtx, CollectionInfo c, List<StoredDocument> upserts, List<byte[]> deletes) {
        if (!upserts.isEmpty()) {
            BitSet inserted = insert(opCtx, c, upserts);
            Map<ByteBuffer, StoredDocument> taken = new LinkedHashMap<>();
            for (int i = inserted.nextClearBit(0); i < upserts.size(); i = inserted.nextClearBit(i + 1)) {
                taken.put(ByteBuffer.wrap(upserts.get(i).id()), upserts.get(i));
            }
            List<Replacement> replacements = new ArrayList<>(taken.size());
            for (StoredDocument old : lockByIds(c, taken.values().stream().map(StoredDocument::id).toList())) {
                replacements.add(new Replacement(old, Objects.requireNonNull(taken.get(ByteBuffer.wrap(old.id())),
                        "lockByIds returns only the ids it was given")));
            }
            replace(opCtx, c, replacements);
        }
        if (!deletes.isEmpty()) {
            delete(opCtx, c, lockByIds(c, deletes));
        }
    }

    /**
     * The overlay of {@code c} for {@code opCtx}'s snapshot read ({@link SnapshotRead}, {@link VersionStore}): what the
     * read sees differently from the current documents; null for a read of the current data. On the read's connection.
     */
    public VersionStore.@Nullable Overlay overlay(OperationContext opCtx, CollectionInfo c) {
        SnapshotRead snapshot = SnapshotRead.of(opCtx);
        if (snapshot == null) {
            return null;
        }
        Predicate<byte[]> ownedThen = OperationShardingState.filterFor(opCtx, c.namespace().full())
                .map(f -> f.atClusterTime(snapshot.atClusterTime()))
                .<Predicate<byte[]>>map(f -> f::ownsKey)
                .orElse(null);
        return snapshot.overlay(versions, c, ownedThen);
    }

    /**
     * A transaction reading at a snapshot writes only documents nobody changed after it (snapshot isolation, as
     * MongoDB's storage engine enforces): one changed after the snapshot's time is a write conflict. Changes after the
     * PostgreSQL snapshot PostgreSQL refuses itself (REPEATABLE READ). So is any write on a shard that gained or lost
     * a chunk of the collection after that time: the transaction's reads there follow the placement at its time, its
     * writes must follow today's ({@link OwnershipFilter#requirePlacementUnchangedSince}).
     *
     * @throws CommandException WriteConflict (112), labelled TransientTransactionError
     */
    private void requireUnchangedSinceSnapshot(OperationContext opCtx, CollectionInfo c, List<StoredDocument> documents) {
        SnapshotRead snapshot = SnapshotRead.of(opCtx);
        if (snapshot != null) {
            OperationShardingState.filterFor(opCtx, c.namespace().full())
                    .ifPresent(f -> f.requirePlacementUnchangedSince(snapshot.atClusterTime()));
        }
        VersionStore.Overlay overlay = overlay(opCtx, c);
        if (overlay == null || overlay.isEmpty()) {
            return;
        }
        for (StoredDocument d : documents) {
            if (overlay.changed(d.id())) {
                throw new CommandException(ErrorCode.WriteConflict, "Write conflict during a multi-document transaction: a document of "
                        + c.namespace() + " changed after the transaction's atClusterTime", ErrorLabel.TransientTransactionError.extraInfo());
            }
        }
    }

    /**
     * One document replaced by an update.
     *
     * @param before the stored document as read (locked), for the shard key the update may have changed
     * @param after  the post-image, same {@code _id}
     */
    public record Replacement(StoredDocument before, StoredDocument after) {
        public Replacement {
            if (!Arrays.equals(before.id(), after.id())) {
                throw new IllegalArgumentException("a replacement keeps the document's _id");
            }
        }
    }

    /**
     * Runs one {@link Oplog#changeStatement}: {@code documents} are written ({@code i}, {@code u}) or deleted
     * ({@code d}); {@code preImages}, for {@code u} only, give the shard keys before the update.
     */
    private BitSet change(OperationContext opCtx, CollectionInfo c, char op, String change, List<StoredDocument> documents, List<StoredDocument> preImages) {
        BitSet changed = new BitSet(documents.size());
        if (documents.isEmpty()) {
            return changed;
        }
        ShardKeyPattern pattern = keys.shardKeyOf(opCtx, c.namespace());
        int size = documents.size();
        byte[][] ids = new byte[size][];
        byte[] @Nullable [] docs = new byte[size][];
        byte[] @Nullable [] documentKeys = new byte[size][];
        byte[] @Nullable [] shardKeys = new byte[size][];
        byte[] @Nullable [] previousShardKeys = new byte[size][];
        byte[] @Nullable [] before = new byte[size][];
        boolean fromMigrate = units.fromMigrate(opCtx);
        for (int i = 0; i < size; i++) {
            StoredDocument d = documents.get(i);
            DocumentKeys.Key key = DocumentKeys.of(pattern, d.bson());
            ids[i] = d.id();
            docs[i] = op == 'd' ? null : d.bson();
            documentKeys[i] = key.documentKey();
            shardKeys[i] = key.shardKey();
            if (pattern != null && !preImages.isEmpty()) {
                byte[] keyBefore = DocumentKeys.of(pattern, preImages.get(i).bson()).shardKey();
                previousShardKeys[i] = Arrays.equals(keyBefore, key.shardKey()) ? null : keyBefore;
            }
            // the version store's pre-image; a migration's writes need none, a snapshot read across one is refused
            if (!fromMigrate) {
                before[i] = op == 'd' ? d.bson() : op == 'u' ? preImages.get(i).bson() : null;
            }
        }
        OplogTimeReservations.Reservation reservation = units.reserve(opCtx, size);
        long storedFirst = Oplog.storedTs(reservation.first());
        RetryableStatement statement = units.statement(opCtx);
        JdbcClient.StatementSpec sql = jdbc.sql(Oplog.changeStatement(change, op, statement != null, !fromMigrate))
                .param(ids).param(docs).param(documentKeys).param(shardKeys).param(previousShardKeys).param(before)
                .param(storedFirst).param(c.namespace().full()).param(c.uuid()).param(fromMigrate);
        if (statement != null) {
            long prev = units.previousWrite(opCtx, statement);
            Long chain = statement.batch() == null ? null : storedFirst;
            sql = sql.param(statement.lsidKey()).param(statement.txnNumber()).param(statementIds(statement, size))
                    .param(chain).param(prev == 0 ? null : Oplog.storedTs(prev)).param(chain)
                    .param(statement.preImage() == null ? null : BsonBytes.encode(statement.preImage()));
        }
        sql.query((rs, i) -> rs.getLong(1))
                .list()
                .forEach(ts -> changed.set((int) (ts - storedFirst)));
        if (statement != null && !changed.isEmpty()) { // row n's entry is at storedFirst + n: the newest is the last set bit
            units.wroteForStatement(opCtx, reservation, changed.cardinality(), storedFirst + changed.length() - 1);
        }
        if (op != 'd' && pattern != null) {
            changed.stream().forEach(i -> {
                byte[] shardKey = shardKeys[i];
                byte[] doc = docs[i]; // null only for a delete
                if (shardKey != null && doc != null) {
                    units.recordWritten(opCtx, new CommittedWritesObserver.WrittenDocument(c.namespace(), shardKey, doc.length));
                }
            });
        }
        return changed;
    }

    /**
     * The statement id of each of a change's {@code size} input rows: an insert batch's rows are its statements in
     * order, a single statement's rows all carry its id.
     */
    private static int[] statementIds(RetryableStatement statement, int size) {
        int[] batch = statement.batch();
        if (batch != null) {
            return batch;
        }
        int[] ids = new int[size];
        Arrays.fill(ids, statement.stmtId());
        return ids;
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
        String sql = pointRead(c.table()).sql(lock);
        // one prepared statement on the connection of the caller's transaction, if any (as JdbcClient takes it), without
        // the JdbcClient/JdbcTemplate/RowMapper layers: the routed point read's path (issue 10); pgjdbc prepares it on
        // the server after its fifth use on a connection
        Connection connection = DataSourceUtils.getConnection(dataSource);
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setBytes(1, id);
            try (ResultSet row = statement.executeQuery()) {
                return row.next() ? Optional.of(new StoredDocument(row.getBytes(1), row.getBytes(2))) : Optional.empty();
            }
        } catch (SQLException e) {
            DataAccessException translated = exceptions.translate("findById", sql, e); // null for a code it does not know
            throw translated != null ? translated : new UncategorizedSQLException("findById", sql, e);
        } finally {
            DataSourceUtils.releaseConnection(connection, dataSource);
        }
    }

    private PointRead pointRead(String table) {
        PointRead known = pointReads.get(table);
        if (known != null) {
            return known;
        }
        if (pointReads.size() >= MAX_POINT_READ_TABLES) {
            pointReads.clear();
        }
        return pointReads.computeIfAbsent(table, PointRead::of);
    }

    /**
     * The SQL of a point read of one table, built once per table so a read formats no string; the map is emptied when
     * it passes {@link #MAX_POINT_READ_TABLES} entries (tables of dropped collections).
     */
    private record PointRead(String plain, String locking) {
        static PointRead of(String table) {
            String sql = "SELECT id, doc FROM " + table + " WHERE id = ?";
            return new PointRead(sql, sql + " FOR UPDATE");
        }

        String sql(boolean lock) {
            return lock ? locking : plain;
        }
    }

    /**
     * The next entries of a secondary index after position {@code (afterKey, afterId)} with keys below
     * {@code highKey}, in index order, each joined to its document.
     */
    public List<IndexedDocument> indexPage(CollectionInfo c, IndexSpec index, byte[] afterKey, byte[] afterId, byte[] highKey, int maxRows) {
        return indexPage(c, IndexWalk.Source.of(index), afterKey, afterId, highKey, maxRows);
    }

    /**
     * {@link #indexPage(CollectionInfo, IndexSpec, byte[], byte[], byte[], int)} over any index, the {@code _id} index
     * (the collection table, whose key is the {@code _id} KeyString) included: chunk migration and range deletion read a
     * shard key range this way, over the index that supports the shard key.
     */
    public List<IndexedDocument> indexPage(CollectionInfo c, IndexWalk.Source index, byte[] afterKey, byte[] afterId, byte[] highKey,
            int maxRows) {
        return jdbc.sql(indexRangeSql(c, index) + " LIMIT ?")
                .param(afterKey).param(afterId).param(highKey).param(maxRows)
                .query((rs, i) -> new IndexedDocument(rs.getBytes(1), new StoredDocument(rs.getBytes(2), rs.getBytes(3))))
                .list();
    }

    /**
     * The entries of an index after position {@code (afterKey, afterId)} with keys below {@code highKey}, in index order,
     * each joined to its document: at most {@code maxRows}, cut after the row that reaches {@code maxBytes} of documents
     * (at least one row when any follows). Read as consecutive {@link #indexPage}s of at most {@link #RANGE_FETCH_ROWS}
     * rows, so a page bounded by bytes reads no more than one of them past its end whatever the documents' size (chunk
     * migration's clone pages, range deletion's batches). Each has a {@code LIMIT} because without one PostgreSQL plans
     * the join for the whole rest of the range: a hash join over every document of the collection and a sort, per page
     * (issue 37: that made a donor's clone reads cost as much as its recipient's writes). The reads are separate
     * statements, so a page is not one snapshot; its callers do not need one (the clone's catch-up applies the range's
     * later changes, the range deleter locks what it deletes).
     */
    public List<IndexedDocument> indexRange(CollectionInfo c, IndexWalk.Source index, byte[] afterKey, byte[] afterId, byte[] highKey,
            int maxRows, long maxBytes) {
        List<IndexedDocument> rows = new ArrayList<>();
        long bytes = 0;
        byte[] key = afterKey;
        byte[] id = afterId;
        while (rows.size() < maxRows) {
            int limit = Math.min(RANGE_FETCH_ROWS, maxRows - rows.size());
            List<IndexedDocument> fetched = indexPage(c, index, key, id, highKey, limit);
            for (IndexedDocument row : fetched) {
                rows.add(row);
                bytes += row.document().size();
                if (bytes >= maxBytes) {
                    return rows;
                }
            }
            if (fetched.size() < limit) {
                break; // the range has no more entries
            }
            IndexedDocument last = fetched.getLast();
            key = last.key();
            id = last.document().id();
        }
        return rows;
    }

    /**
     * An index range's rows {@code (key, id, doc)} in index order, with three parameters: the position to start after
     * ({@code key}, {@code id}) and the key to stop before. The {@code _id} index is the collection table itself.
     */
    private static String indexRangeSql(CollectionInfo c, IndexWalk.Source index) {
        return index.table().equals(c.table())
                ? "SELECT d.id, d.id, d.doc FROM " + c.table() + " d WHERE (d.id, d.id) > (?, ?) AND d.id < ? ORDER BY d.id"
                : "SELECT i.key, d.id, d.doc FROM " + index.table() + " i JOIN " + c.table() + " d ON d.id = i.id"
                        + " WHERE (i.key, i.id) > (?, ?) AND i.key < ? ORDER BY i.key, i.id";
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
