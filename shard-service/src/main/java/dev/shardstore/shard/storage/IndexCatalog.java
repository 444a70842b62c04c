package dev.shardstore.shard.storage;

import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.bson.Collation;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The secondary indexes of each collection (table {@code indexes}) and the lifecycle of their entry
 * tables. Building an index creates its table, its catalog row, every entry for the existing documents
 * and an oplog entry in one transaction, so a failed build (a duplicate key in a unique index) leaves
 * nothing behind. Callers hold the collection exclusively for create and drop, shared otherwise; the
 * in-memory cache is kept by this process, the only writer.
 */
@Repository
public class IndexCatalog {
    private static final int BUILD_PAGE_ROWS = 1000;

    private final JdbcClient jdbc;
    private final Oplog oplog;
    private final IndexEntries entries;
    private final WriteUnitOfWork units;
    private final ConcurrentMap<UUID, List<IndexSpec>> cache = new ConcurrentHashMap<>();

    public IndexCatalog(JdbcClient jdbc, Oplog oplog, IndexEntries entries, WriteUnitOfWork units) {
        this.jdbc = jdbc;
        this.oplog = oplog;
        this.entries = entries;
        this.units = units;
    }

    /** The secondary indexes of the collection, in creation order ({@code _id_} not included). */
    public List<IndexSpec> list(CollectionInfo c) {
        return maintained(c).stream().filter(i -> !i.isIdIndex()).toList();
    }

    /** The collated {@code _id} index of a collection with a non-simple default collation, if it has one. */
    public Optional<IndexSpec> idIndex(CollectionInfo c) {
        return maintained(c).stream().filter(IndexSpec::isIdIndex).findFirst();
    }

    /**
     * Every index table writes keep: the secondary indexes and the collated {@code _id} index
     * ({@link IndexSpec#isIdIndex()}), in creation order.
     */
    public List<IndexSpec> maintained(CollectionInfo c) {
        return cache.computeIfAbsent(c.uuid(), uuid -> jdbc
                .sql("SELECT spec, table_name, multikey FROM indexes WHERE collection_uuid = ? ORDER BY created_seq")
                .param(uuid)
                .query((rs, i) -> fromSpec(BsonBytes.decode(rs.getBytes(1)), rs.getString(2), rs.getBoolean(3)))
                .list());
    }

    /** The index named {@code name}. */
    public Optional<IndexSpec> find(CollectionInfo c, String name) {
        return list(c).stream().filter(i -> i.name().equals(name)).findFirst();
    }

    /**
     * Builds an index over the existing documents, in one transaction; a duplicate key in a unique
     * index throws DuplicateKey (11000) and leaves no table, row or entry behind.
     *
     * @param spec {@code {key, name, unique?, sparse?, partialFilterExpression?, collation?}}, validated by the caller;
     *             a {@code collation} is a full spec ({@link Collation#toDocument()}), absent for the simple one
     */
    public IndexSpec create(OperationContext opCtx, CollectionInfo c, BsonDocument spec) {
        UUID tableId = UUID.randomUUID();
        IndexSpec index = fromSpec(spec, "i_" + tableId.toString().replace("-", ""), false);
        try {
            return units.write(opCtx, inUnit -> {
                jdbc.sql("INSERT INTO indexes (collection_uuid, name, spec, table_name) VALUES (?, ?, ?, ?)")
                        .param(c.uuid()).param(index.name()).param(BsonBytes.encode(index.specDocument()))
                        .param(index.table()).update();
                jdbc.sql("CREATE TABLE " + index.table() + " (key bytea NOT NULL, id bytea NOT NULL, PRIMARY KEY (key, id)"
                        + (index.unique() ? ", UNIQUE (key)" : "") + ")").update();
                jdbc.sql("CREATE INDEX ON " + index.table() + " (id)").update();
                boolean multikey = false;
                byte[] after = new byte[0];
                while (true) {
                    List<StoredDocument> page = jdbc.sql("SELECT id, doc FROM " + c.table() + " WHERE id > ? ORDER BY id LIMIT ?")
                            .param(after).param(BUILD_PAGE_ROWS)
                            .query((rs, i) -> new StoredDocument(rs.getBytes(1), rs.getBytes(2)))
                            .list();
                    if (page.isEmpty()) {
                        break;
                    }
                    multikey |= !entries.add(c.namespace(), List.of(index), page).isEmpty();
                    after = page.getLast().id();
                }
                if (multikey) {
                    jdbc.sql("UPDATE indexes SET multikey = true WHERE collection_uuid = ? AND name = ?")
                            .param(c.uuid()).param(index.name()).update();
                }
                BsonDocument command = new BsonDocument("createIndexes", new BsonString(c.namespace().collection()))
                        .append("spec", index.specDocument());
                oplog.appendCommand(inUnit, c.namespace().db(), c.uuid(), command);
                return multikey ? index.asMultikey() : index;
            });
        } finally {
            cache.remove(c.uuid());
        }
    }

    /** Drops the cached indexes of a collection (after a transaction that built several rolled back). */
    public void forget(CollectionInfo c) {
        cache.remove(c.uuid());
    }

    /** Drops one index: its table, its row and an oplog entry, in one transaction. */
    public void drop(OperationContext opCtx, CollectionInfo c, IndexSpec index) {
        try {
            units.write(opCtx, inUnit -> {
                jdbc.sql("DELETE FROM indexes WHERE collection_uuid = ? AND name = ?").param(c.uuid()).param(index.name()).update();
                jdbc.sql("DROP TABLE " + index.table()).update();
                return oplog.appendCommand(inUnit, c.namespace().db(), c.uuid(),
                        new BsonDocument("dropIndexes", new BsonString(c.namespace().collection())).append("index", new BsonString(index.name())));
            });
        } finally {
            cache.remove(c.uuid());
        }
    }

    /** Drops every index table of a collection being dropped; call inside the drop's transaction. */
    void dropAll(CollectionInfo c) {
        List<String> tables = jdbc.sql("DELETE FROM indexes WHERE collection_uuid = ? RETURNING table_name")
                .param(c.uuid()).query((rs, n) -> rs.getString("table_name")).list();
        for (String table : tables) {
            if (!table.matches("i_[0-9a-f]{32}")) {
                throw new IllegalStateException("not an index table: " + table);
            }
            jdbc.sql("DROP TABLE " + table).update();
        }
        cache.remove(c.uuid());
    }

    /**
     * Records that these indexes became multikey; call inside the write's transaction. The cached entry
     * is dropped now and again after commit, so a reader that cached the uncommitted state in between
     * does not keep planning with a stale (non-multikey) flag.
     */
    void markMultikey(CollectionInfo c, List<IndexSpec> indexes) {
        for (IndexSpec index : indexes) {
            jdbc.sql("UPDATE indexes SET multikey = true WHERE collection_uuid = ? AND name = ?")
                    .param(c.uuid()).param(index.name()).update();
        }
        cache.remove(c.uuid());
        if (TransactionSynchronizationManager.isSynchronizationActive()) {
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCompletion(int status) {
                    cache.remove(c.uuid());
                }
            });
        }
    }

    private static IndexSpec fromSpec(BsonDocument spec, String table, boolean multikey) {
        return new IndexSpec(spec.getString("name").getValue(), spec.getDocument("key"),
                spec.getBoolean("unique", org.bson.BsonBoolean.FALSE).getValue(),
                spec.getBoolean("sparse", org.bson.BsonBoolean.FALSE).getValue(),
                spec.containsKey("partialFilterExpression") ? spec.getDocument("partialFilterExpression") : null,
                table, multikey, Collation.parse("collation", spec.get("collation")));
    }

    /** Spec documents of all indexes, for tests and listIndexes. */
    public List<BsonDocument> listEntries(CollectionInfo c) {
        List<BsonDocument> out = new ArrayList<>();
        list(c).forEach(i -> out.add(i.listEntry()));
        return out;
    }
}
