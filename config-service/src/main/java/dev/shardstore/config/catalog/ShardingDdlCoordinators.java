package dev.shardstore.config.catalog;

import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.namespace.Namespace;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.bson.BsonBinary;
import org.bson.BsonDocument;
import org.bson.UuidRepresentation;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The persisted DDL coordinators (table {@code sharding_ddl_coordinators}, MongoDB's
 * {@code config.system.sharding_ddl_coordinators}; mongo/src/mongo/db/s/README.md "DDL operations", "Serializing conflicting
 * operations"): dropCollection's and reshardCollection's (held for the resharding service), keyed by {@code "db.coll"},
 * and movePrimary's, keyed by the database name. A key has
 * at most one. The rows also serialize DDL: while a collection has one, the other DDL operations and chunk commits on it
 * are refused with ConflictingOperationInProgress (117); while its database has one (movePrimary), so are those of
 * every collection of the database; and a movePrimary does not start while any collection of the database has one.
 * Those checks and the starts of coordinators take a lock on the database ({@link #lockDatabase}: shared for a
 * collection, exclusive for the database), so a check and a start never pass each other.
 */
@Repository
public class ShardingDdlCoordinators {
    private static final RowMapper<DropCollectionCoordinatorDocument> DROP_COLLECTION = (rs, n) -> new DropCollectionCoordinatorDocument(
            Namespace.parse(rs.getString("namespace")), DropCollectionPhase.valueOf(rs.getString("phase")),
            rs.getObject("collection_uuid", UUID.class));
    private static final RowMapper<MovePrimaryCoordinatorDocument> MOVE_PRIMARY = (rs, n) -> MovePrimaryCoordinatorDocument.of(
            rs.getString("namespace"), MovePrimaryPhase.valueOf(rs.getString("phase")), BsonBytes.decode(rs.getBytes("state")));

    /** The operation of the rows that hold a collection for the resharding service. */
    public static final String RESHARD_COLLECTION = "reshardCollection";

    private final JdbcClient jdbc;
    private final TransactionTemplate tx;

    public ShardingDdlCoordinators(JdbcClient jdbc, TransactionTemplate tx) {
        this.jdbc = jdbc;
        this.tx = tx;
    }

    /**
     * The unfinished dropCollection coordinator of {@code namespace}, or a new one at {@link DropCollectionPhase#BLOCK}
     * naming the sharded collection instance registered now. Serialized with shardCollection's registration (the same
     * namespace lock as {@link ShardedCollectionCatalog#create}), so the instance captured is the one to drop.
     *
     * @return the document, and whether it was created by this call
     * @throws CommandException ConflictingOperationInProgress (117) while a movePrimary of the database is unfinished
     */
    public Started<DropCollectionCoordinatorDocument> startDropCollection(Namespace namespace) {
        return tx.execute(status -> {
            lockDatabase(namespace.db(), false);
            ShardedCollectionCatalog.lockNamespace(jdbc, namespace.full());
            Optional<DropCollectionCoordinatorDocument> existing = findDropCollection(namespace);
            if (existing.isPresent()) {
                return new Started<>(existing.get(), false);
            }
            // the database's own coordinator (movePrimary), or the collection's resharding
            requireNone(namespace.full(), "dropCollection of " + namespace.full());
            UUID uuid = jdbc.sql("SELECT uuid FROM collections WHERE namespace = ?").param(namespace.full()).query(UUID.class).optional()
                    .orElse(null);
            DropCollectionCoordinatorDocument created = new DropCollectionCoordinatorDocument(namespace, DropCollectionPhase.BLOCK, uuid);
            jdbc.sql("INSERT INTO sharding_ddl_coordinators (namespace, operation, phase, collection_uuid) VALUES (?, ?, ?, ?)")
                    .param(created.key()).param(created.operation()).param(created.phaseName()).param(uuid).update();
            return new Started<>(created, true);
        });
    }

    /**
     * The unfinished movePrimary coordinator of {@code initial}'s database (whatever its target: the caller compares),
     * or {@code initial}, inserted.
     *
     * @return the document, and whether it was created by this call
     * @throws CommandException ConflictingOperationInProgress (117) while a DDL coordinator of one of the database's
     *                          collections is unfinished
     */
    public Started<MovePrimaryCoordinatorDocument> startMovePrimary(MovePrimaryCoordinatorDocument initial) {
        return tx.execute(status -> {
            lockDatabase(initial.db(), true);
            Optional<MovePrimaryCoordinatorDocument> existing = findMovePrimary(initial.db());
            if (existing.isPresent()) {
                return new Started<>(existing.get(), false);
            }
            jdbc.sql("SELECT operation || ' of ' || namespace || ' (phase ' || phase || ')' FROM sharding_ddl_coordinators"
                            + " WHERE starts_with(namespace, ?) ORDER BY namespace LIMIT 1")
                    .param(initial.db() + ".").query(String.class).optional().ifPresent(active -> {
                        throw new CommandException(ErrorCode.ConflictingOperationInProgress, "movePrimary of " + initial.db()
                                + " is refused while the " + active + " is in progress; retry once it is over");
                    });
            jdbc.sql("INSERT INTO sharding_ddl_coordinators (namespace, operation, phase, state) VALUES (?, ?, ?, ?)")
                    .params(initial.key(), initial.operation(), initial.phaseName(), BsonBytes.encode(initial.state())).update();
            return new Started<>(initial, true);
        });
    }

    /**
     * Holds {@code namespace} for the resharding operation {@code reshardingUuid} (a {@code reshardCollection} row whose
     * {@code state} is {@code {reshardingUUID}}): from now on the collection's other DDL operations, migrations and chunk
     * commits are ConflictingOperationInProgress. Idempotent for the same operation. Call it inside the caller's
     * transaction, after the collection's lock.
     *
     * @throws CommandException ConflictingOperationInProgress (117) while another DDL coordinator (or another resharding)
     *                          holds the collection or its database
     */
    public void startResharding(Namespace namespace, UUID reshardingUuid) {
        BsonDocument state = new BsonDocument("reshardingUUID", new BsonBinary(reshardingUuid, UuidRepresentation.STANDARD));
        boolean mine = jdbc.sql("SELECT state FROM sharding_ddl_coordinators WHERE namespace = ? AND operation = ?")
                .params(namespace.full(), RESHARD_COLLECTION).query((rs, n) -> BsonBytes.decode(rs.getBytes("state"))).optional()
                .map(state::equals).orElse(false);
        if (mine) {
            return;
        }
        requireNone(namespace.full(), "reshardCollection");
        jdbc.sql("INSERT INTO sharding_ddl_coordinators (namespace, operation, phase, state) VALUES (?, ?, 'registered', ?)")
                .params(namespace.full(), RESHARD_COLLECTION, BsonBytes.encode(state)).update();
    }

    /** Releases {@code namespace} from resharding operation {@code reshardingUuid}; nothing when it does not hold it. */
    public void finishResharding(Namespace namespace, UUID reshardingUuid) {
        BsonDocument state = new BsonDocument("reshardingUUID", new BsonBinary(reshardingUuid, UuidRepresentation.STANDARD));
        jdbc.sql("DELETE FROM sharding_ddl_coordinators WHERE namespace = ? AND operation = ? AND state = ?")
                .params(namespace.full(), RESHARD_COLLECTION, BsonBytes.encode(state)).update();
    }

    /** A coordinator document and whether the start call created it. */
    public record Started<D extends DdlCoordinatorDocument>(D document, boolean created) {}

    /** A row's key and operation: what the coordinator framework resumes. */
    public record Unfinished(String key, String operation) {}

    /** {@code namespace}'s unfinished dropCollection coordinator, if any. */
    public Optional<DropCollectionCoordinatorDocument> findDropCollection(Namespace namespace) {
        return jdbc.sql("SELECT namespace, phase, collection_uuid FROM sharding_ddl_coordinators WHERE namespace = ? AND operation = ?")
                .params(namespace.full(), DropCollectionCoordinatorDocument.OPERATION).query(DROP_COLLECTION).optional();
    }

    /** {@code db}'s unfinished movePrimary coordinator, if any. */
    public Optional<MovePrimaryCoordinatorDocument> findMovePrimary(String db) {
        return jdbc.sql("SELECT namespace, phase, state FROM sharding_ddl_coordinators WHERE namespace = ? AND operation = ?")
                .params(db, MovePrimaryCoordinatorDocument.OPERATION).query(MOVE_PRIMARY).optional();
    }

    /**
     * Every unfinished coordinator this service resumes, by key: all but the reshardCollection rows, whose operation the
     * resharding service runs ({@link #startResharding}).
     */
    public List<Unfinished> listUnfinished() {
        return jdbc.sql("SELECT namespace, operation FROM sharding_ddl_coordinators WHERE operation <> '" + RESHARD_COLLECTION
                        + "' ORDER BY namespace")
                .query((rs, n) -> new Unfinished(rs.getString("namespace"), rs.getString("operation"))).list();
    }

    /** Records that {@code document}'s coordinator reached its phase (with its state, if it keeps one). */
    public void save(DdlCoordinatorDocument document) {
        byte[] state = document.state() == null ? null : BsonBytes.encode(document.state());
        jdbc.sql("UPDATE sharding_ddl_coordinators SET phase = ?, state = ?, updated_at = now() WHERE namespace = ?")
                .param(document.phaseName()).param(state).param(document.key()).update();
    }

    /** Deletes the coordinator document of {@code key}: its DDL operation is over. */
    public void delete(String key) {
        jdbc.sql("DELETE FROM sharding_ddl_coordinators WHERE namespace = ?").param(key).update();
    }

    /**
     * Refuses {@code operation} on {@code namespace} ({@code "db.coll"}, or {@code "db"} for an operation on a database)
     * while a DDL coordinator is active on it or on its database; call it inside the operation's transaction, after its
     * namespace or collection lock.
     *
     * @throws CommandException ConflictingOperationInProgress (117) naming the coordinator
     */
    public void requireNone(String namespace, String operation) {
        int dot = namespace.indexOf('.');
        String db = dot < 0 ? namespace : namespace.substring(0, dot);
        lockDatabase(db, false);
        jdbc.sql("SELECT namespace, operation, phase FROM sharding_ddl_coordinators WHERE namespace = ? OR namespace = ?"
                        + " ORDER BY namespace DESC LIMIT 1")
                .params(namespace, db)
                .query((rs, n) -> rs.getString("operation") + " of " + rs.getString("namespace") + " (phase " + rs.getString("phase") + ")")
                .optional()
                .ifPresent(active -> {
                    throw new CommandException(ErrorCode.ConflictingOperationInProgress, operation + " of " + namespace
                            + " is refused while the " + active + " is in progress; retry once it is over");
                });
    }

    /**
     * Takes {@code db}'s DDL lock until the end of the caller's transaction (a PostgreSQL advisory lock): shared by the
     * operations on one of its collections, exclusive for the start of an operation on the whole database.
     */
    private void lockDatabase(String db, boolean exclusive) {
        jdbc.sql("SELECT " + (exclusive ? "pg_advisory_xact_lock" : "pg_advisory_xact_lock_shared") + "(hashtext(?))")
                .param("ddl-database:" + db).query().singleValue();
    }
}
