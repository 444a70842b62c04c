package dev.shardstore.shard.storage;

import dev.shardstore.contracts.error.ErrorCode;

import dev.shardstore.contracts.error.CommandException;

import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.bson.Collation;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * The shard's local collection catalog (table {@code collections}) and the lifecycle of collection
 * tables. Creating or dropping a collection changes the catalog row, the table and the oplog in one
 * transaction. Lookups are cached in memory: this process is the only writer of its database, and
 * callers hold the namespace's collection lock ({@code versioning.CollectionShardingRuntime}), shared for lookups
 * and creation and exclusive for {@link #drop}, so a cached entry is never stale.
 */
// @Component, not @Repository: the repository proxy (exception translation, which JdbcClient already does) cost a
// reflective call chain on every lookup of a routed point read (issue-10 profile: ~4% of the shard's CPU each)
@Component
public class CollectionCatalog {
    private static final String COLUMNS = "namespace, db, name, uuid, table_name, options";
    private static final RowMapper<CollectionInfo> ROW = (rs, i) -> new CollectionInfo(
            new Namespace(rs.getString("db"), rs.getString("name")),
            rs.getObject("uuid", UUID.class),
            rs.getString("table_name"),
            BsonBytes.decode(rs.getBytes("options")));

    private final JdbcClient jdbc;
    private final Oplog oplog;
    private final WriteUnitOfWork units;
    private final IndexCatalog indexes;
    private final ConcurrentMap<Namespace, CollectionInfo> cache = new ConcurrentHashMap<>();

    public CollectionCatalog(JdbcClient jdbc, Oplog oplog, WriteUnitOfWork units, IndexCatalog indexes) {
        this.indexes = indexes;
        this.jdbc = jdbc;
        this.oplog = oplog;
        this.units = units;
    }

    /** The collection, if it exists on this shard. */
    public Optional<CollectionInfo> find(Namespace ns) {
        CollectionInfo cached = cache.get(ns);
        if (cached != null) {
            return Optional.of(cached);
        }
        Optional<CollectionInfo> found = jdbc.sql("SELECT " + COLUMNS + " FROM collections WHERE namespace = ?")
                .param(ns.full())
                .query(ROW)
                .optional();
        found.ifPresent(info -> cache.put(ns, info));
        return found;
    }

    /**
     * Creates the collection unless it exists: writes the catalog row, creates its table and appends
     * {@code {create: <name>, ...options}} to the oplog, in one transaction. Concurrent creators of one
     * namespace agree on a single instance.
     *
     * @param options the create options to record ({@code {}} for implicit creation); with a non-simple default
     *                {@code collation} (a full spec) the collection also gets its collated {@code _id} index
     *                ({@link IndexSpec#isIdIndex()})
     * @return the new collection, or the existing one (with its own options) and {@code created = false}
     * @throws CommandException OperationNotSupportedInTransaction (263) for a new collection in a multi-document
     *                          transaction
     */
    public Creation create(OperationContext opCtx, Namespace ns, BsonDocument options) {
        Optional<CollectionInfo> existing = find(ns);
        if (existing.isPresent()) {
            return new Creation(existing.get(), false);
        }
        if (WriteUnitOfWork.inMultiDocumentTransaction(opCtx)) {
            // the catalog's cache would hold a collection that the transaction may yet roll back
            throw new CommandException(ErrorCode.OperationNotSupportedInTransaction, "Cannot create namespace " + ns.full()
                    + " in multi-document transaction.");
        }
        CollectionInfo candidate = CollectionInfo.newInstance(ns, options);
        Creation creation = units.write(opCtx, inUnit -> {
            int inserted = jdbc.sql("INSERT INTO collections (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?) "
                            + "ON CONFLICT (namespace) DO NOTHING")
                    .param(ns.full()).param(ns.db()).param(ns.collection())
                    .param(candidate.uuid()).param(candidate.table()).param(BsonBytes.encode(options))
                    .update();
            if (inserted == 0) {
                return new Creation(jdbc.sql("SELECT " + COLUMNS + " FROM collections WHERE namespace = ?")
                        .param(ns.full()).query(ROW).single(), false);
            }
            jdbc.sql("CREATE TABLE " + candidate.table() + " (id bytea PRIMARY KEY, doc bytea NOT NULL)").update();
            BsonDocument command = new BsonDocument("create", new BsonString(ns.collection()));
            command.putAll(options);
            oplog.appendCommand(inUnit, ns.db(), candidate.uuid(), command);
            Collation collation = CollectionCollation.defaultOf(candidate);
            if (!collation.isSimple()) { // the primary key is binary: _ids equal under the collation conflict here
                indexes.create(inUnit, candidate, new BsonDocument("key", new BsonDocument("_id", new BsonInt32(1)))
                        .append("name", new BsonString(IndexSpec.ID_INDEX_NAME)).append("unique", BsonBoolean.TRUE)
                        .append(CollectionCollation.OPTION, collation.toDocument()));
            }
            return new Creation(candidate, true);
        });
        cache.put(ns, creation.collection());
        return creation;
    }

    /**
     * Drops the collection: removes the catalog row and the table and appends {@code {drop: <name>}}
     * to the oplog, in one transaction. The caller holds the namespace exclusively.
     *
     * @return the dropped collection, empty when it did not exist
     */
    public Optional<CollectionInfo> drop(OperationContext opCtx, Namespace ns) {
        Optional<CollectionInfo> dropped = units.write(opCtx, inUnit -> {
            Optional<CollectionInfo> row = jdbc.sql("DELETE FROM collections WHERE namespace = ? RETURNING " + COLUMNS)
                    .param(ns.full())
                    .query(ROW)
                    .optional();
            row.ifPresent(info -> {
                indexes.dropAll(info);
                jdbc.sql("DROP TABLE " + info.table()).update();
                oplog.appendCommand(inUnit, ns.db(), info.uuid(), new BsonDocument("drop", new BsonString(ns.collection())));
            });
            return row;
        });
        cache.remove(ns);
        return dropped;
    }

    /**
     * Replaces the options of the collection ({@code collMod}): rewrites the catalog row and appends
     * {@code {collMod: <name>, ...changes}} to the oplog, in one transaction. The caller holds the namespace exclusively.
     *
     * @param options the collection's options afterwards
     * @param changes what the oplog entry records as changed (the collMod's option fields)
     * @return the collection with its new options
     */
    public CollectionInfo modify(OperationContext opCtx, CollectionInfo collection, BsonDocument options, BsonDocument changes) {
        Namespace ns = collection.namespace();
        CollectionInfo modified = new CollectionInfo(ns, collection.uuid(), collection.table(), options);
        units.write(opCtx, inUnit -> {
            jdbc.sql("UPDATE collections SET options = ? WHERE namespace = ? AND uuid = ?")
                    .param(BsonBytes.encode(options)).param(ns.full()).param(collection.uuid()).update();
            BsonDocument command = new BsonDocument("collMod", new BsonString(ns.collection()));
            command.putAll(changes);
            return oplog.appendCommand(inUnit, ns.db(), collection.uuid(), command);
        });
        cache.put(ns, modified);
        return modified;
    }

    /**
     * Renames {@code from} to {@code to} (same database), dropping {@code to} first when it exists, in one
     * transaction: the target's catalog row, table and index tables go, the source's row takes the target's name
     * (its table, uuid and indexes stay), and one {@code {renameCollection: "db.from", to: "db.to", dropTarget}} oplog
     * entry records it. A reader holding either lock sees the old target or the new one, never neither (MongoDB's
     * {@code renameCollection} with {@code dropTarget: true}, which {@code $out} ends with). The caller holds both
     * namespaces exclusively.
     *
     * @return the renamed collection under its new name; empty when {@code from} does not exist
     */
    public Optional<CollectionInfo> renameDroppingTarget(OperationContext opCtx, Namespace from, Namespace to) {
        if (!from.db().equals(to.db())) {
            throw new IllegalArgumentException("rename across databases: " + from.full() + " -> " + to.full());
        }
        Optional<CollectionInfo> renamed = units.write(opCtx, inUnit -> {
            Optional<CollectionInfo> source = jdbc.sql("SELECT " + COLUMNS + " FROM collections WHERE namespace = ? FOR UPDATE")
                    .param(from.full()).query(ROW).optional();
            if (source.isEmpty()) {
                return Optional.<CollectionInfo>empty();
            }
            jdbc.sql("DELETE FROM collections WHERE namespace = ? RETURNING " + COLUMNS).param(to.full()).query(ROW).optional()
                    .ifPresent(target -> {
                        indexes.dropAll(target);
                        jdbc.sql("DROP TABLE " + target.table()).update();
                    });
            jdbc.sql("UPDATE collections SET namespace = ?, name = ? WHERE namespace = ?")
                    .param(to.full()).param(to.collection()).param(from.full()).update();
            oplog.appendCommand(inUnit, from.db(), source.get().uuid(), new BsonDocument("renameCollection", new BsonString(from.full()))
                    .append("to", new BsonString(to.full())).append("dropTarget", BsonBoolean.TRUE));
            return Optional.of(new CollectionInfo(to, source.get().uuid(), source.get().table(), source.get().options()));
        });
        cache.remove(from);
        cache.remove(to);
        return renamed;
    }

    /** Records the end of a {@code dropDatabase} in the oplog ({@code {dropDatabase: 1}}), after its collections were dropped. */
    public void recordDatabaseDropped(OperationContext opCtx, String db) {
        units.write(opCtx, inUnit -> oplog.appendCommand(inUnit, db, null, new BsonDocument("dropDatabase", new BsonInt32(1))));
    }

    /** The collections of {@code db} on this shard, by name. */
    public List<CollectionInfo> list(String db) {
        return jdbc.sql("SELECT " + COLUMNS + " FROM collections WHERE db = ? ORDER BY name")
                .param(db)
                .query(ROW)
                .list();
    }

    /** Every collection on this shard, by namespace. */
    public List<CollectionInfo> listAll() {
        return jdbc.sql("SELECT " + COLUMNS + " FROM collections ORDER BY namespace").query(ROW).list();
    }

    /**
     * Per database with at least one collection on this shard: the bytes of its tables (with indexes
     * and TOAST) and whether it holds any document. One query.
     */
    public List<DatabaseSize> databaseSizes() {
        List<CollectionInfo> all = jdbc.sql("SELECT " + COLUMNS + " FROM collections ORDER BY db").query(ROW).list();
        if (all.isEmpty()) {
            return List.of();
        }
        List<String> perTable = new ArrayList<>();
        for (CollectionInfo c : all) {
            perTable.add("SELECT ? AS db, pg_total_relation_size('" + c.table() + "') AS size, "
                    + "NOT EXISTS (SELECT 1 FROM " + c.table() + ") AS empty");
        }
        JdbcClient.StatementSpec statement = jdbc.sql("SELECT db, sum(size)::bigint, bool_and(empty) FROM ("
                + String.join(" UNION ALL ", perTable) + ") t GROUP BY db ORDER BY db");
        for (CollectionInfo c : all) {
            statement = statement.param(c.namespace().db());
        }
        return statement.query((rs, i) -> new DatabaseSize(rs.getString(1), rs.getLong(2), rs.getBoolean(3))).list();
    }

    /**
     * The outcome of {@link #create}.
     *
     * @param collection the collection now existing under the namespace
     * @param created    false when it existed before the call
     */
    public record Creation(CollectionInfo collection, boolean created) {}
}
