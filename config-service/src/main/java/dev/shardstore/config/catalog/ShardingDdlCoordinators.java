package dev.shardstore.config.catalog;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.namespace.Namespace;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The persisted DDL coordinators (table {@code sharding_ddl_coordinators}, MongoDB's
 * {@code config.system.sharding_ddl_coordinators}; reference: "DDL operations", "Serializing conflicting
 * operations"). A namespace has at most one; while it exists, the other DDL operations and chunk commits on the
 * namespace are refused with ConflictingOperationInProgress (117) — the caller retries once the drop is over.
 */
@Repository
public class ShardingDdlCoordinators {
    private static final String DROP_COLLECTION = "dropCollection";
    private static final RowMapper<DropCollectionCoordinatorDocument> ROW = (rs, n) -> new DropCollectionCoordinatorDocument(
            Namespace.parse(rs.getString("namespace")), DropCollectionPhase.valueOf(rs.getString("phase")),
            rs.getObject("collection_uuid", UUID.class));

    private final JdbcClient jdbc;
    private final TransactionTemplate tx;

    public ShardingDdlCoordinators(JdbcClient jdbc, TransactionTemplate tx) {
        this.jdbc = jdbc;
        this.tx = tx;
    }

    /**
     * The unfinished dropCollection coordinator of {@code namespace}, or a new one at {@link DropCollectionPhase#BLOCK}
     * naming the sharded collection instance registered now. Serialized with shardCollection's registration (the same
     * namespace lock as {@link CollectionCatalog#create}), so the instance captured is the one to drop.
     *
     * @return the document, and whether it was created by this call
     */
    public Started startDropCollection(Namespace namespace) {
        return tx.execute(status -> {
            CollectionCatalog.lockNamespace(jdbc, namespace.full());
            Optional<DropCollectionCoordinatorDocument> existing = findDropCollection(namespace);
            if (existing.isPresent()) {
                return new Started(existing.get(), false);
            }
            UUID uuid = jdbc.sql("SELECT uuid FROM collections WHERE namespace = ?").param(namespace.full()).query(UUID.class).optional()
                    .orElse(null);
            DropCollectionCoordinatorDocument created = new DropCollectionCoordinatorDocument(namespace, DropCollectionPhase.BLOCK, uuid);
            jdbc.sql("INSERT INTO sharding_ddl_coordinators (namespace, operation, phase, collection_uuid) VALUES (?, ?, ?, ?)")
                    .params(namespace.full(), DROP_COLLECTION, created.phase().name(), uuid).update();
            return new Started(created, true);
        });
    }

    /** A coordinator document and whether {@link #startDropCollection} created it. */
    public record Started(DropCollectionCoordinatorDocument document, boolean created) {}

    /** {@code namespace}'s unfinished dropCollection coordinator, if any. */
    public Optional<DropCollectionCoordinatorDocument> findDropCollection(Namespace namespace) {
        return jdbc.sql("SELECT namespace, phase, collection_uuid FROM sharding_ddl_coordinators WHERE namespace = ? AND operation = ?")
                .params(namespace.full(), DROP_COLLECTION).query(ROW).optional();
    }

    /** Every unfinished dropCollection coordinator, by namespace (what the config service resumes). */
    public List<DropCollectionCoordinatorDocument> listDropCollections() {
        return jdbc.sql("SELECT namespace, phase, collection_uuid FROM sharding_ddl_coordinators WHERE operation = ? ORDER BY namespace")
                .param(DROP_COLLECTION).query(ROW).list();
    }

    /** Records that {@code document}'s coordinator reached its phase. */
    public void savePhase(DropCollectionCoordinatorDocument document) {
        jdbc.sql("UPDATE sharding_ddl_coordinators SET phase = ?, updated_at = now() WHERE namespace = ?")
                .params(document.phase().name(), document.namespace().full()).update();
    }

    /** Deletes {@code namespace}'s coordinator document: its DDL operation is over. */
    public void delete(Namespace namespace) {
        jdbc.sql("DELETE FROM sharding_ddl_coordinators WHERE namespace = ?").param(namespace.full()).update();
    }

    /**
     * Refuses {@code operation} on {@code namespace} while a DDL coordinator is active on it; call it inside the
     * operation's transaction, after its namespace or collection lock.
     *
     * @throws CommandException ConflictingOperationInProgress (117) naming the coordinator
     */
    public void requireNone(String namespace, String operation) {
        jdbc.sql("SELECT operation, phase FROM sharding_ddl_coordinators WHERE namespace = ?").param(namespace)
                .query((rs, n) -> rs.getString("operation") + " (phase " + rs.getString("phase") + ")").optional()
                .ifPresent(active -> {
                    throw new CommandException(ErrorCode.ConflictingOperationInProgress, operation + " of " + namespace
                            + " is refused while its " + active + " is in progress; retry once it is over");
                });
    }
}
