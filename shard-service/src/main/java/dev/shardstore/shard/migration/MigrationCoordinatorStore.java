package dev.shardstore.shard.migration;

import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.contracts.sharding.ChunkRange;
import dev.shardstore.contracts.version.ChunkVersion;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** The donor's migration coordinator documents (table {@code migration_coordinators}); see {@link MigrationCoordinatorDocument}. */
@Repository
public class MigrationCoordinatorStore {
    private static final String COLUMNS = "id, namespace, collection_uuid, min_bson, max_bson, donor, recipient, pre_migration_version, decision";
    private static final RowMapper<MigrationCoordinatorDocument> ROW = (rs, n) -> new MigrationCoordinatorDocument(
            rs.getObject("id", UUID.class), Namespace.parse(rs.getString("namespace")), rs.getObject("collection_uuid", UUID.class),
            new ChunkRange(BsonBytes.decode(rs.getBytes("min_bson")), BsonBytes.decode(rs.getBytes("max_bson"))),
            rs.getString("donor"), rs.getString("recipient"), ChunkVersion.fromBson(BsonBytes.decode(rs.getBytes("pre_migration_version"))),
            rs.getString("decision") == null ? null : MigrationDecision.of(rs.getString("decision")));

    private final JdbcClient jdbc;

    public MigrationCoordinatorStore(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** Inserts an undecided document (in the caller's transaction, if any). */
    void insert(MigrationCoordinatorDocument doc) {
        jdbc.sql("INSERT INTO migration_coordinators (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
                .param(doc.id()).param(doc.namespace().full()).param(doc.collectionUuid()).param(BsonBytes.encode(doc.range().min()))
                .param(BsonBytes.encode(doc.range().max())).param(doc.donor()).param(doc.recipient())
                .param(BsonBytes.encode(doc.preMigrationVersion().toBson()))
                .param(doc.decision() == null ? null : doc.decision().value())
                .update();
    }

    /**
     * Records {@code decision} for migration {@code id}; a decision already recorded is kept (the first one stands).
     *
     * @return the document as stored afterwards
     * @throws IllegalStateException when there is no such document, or it holds the other decision
     */
    MigrationCoordinatorDocument decide(UUID id, MigrationDecision decision) {
        jdbc.sql("UPDATE migration_coordinators SET decision = ?, updated_at = now() WHERE id = ? AND decision IS NULL")
                .params(decision.value(), id).update();
        MigrationCoordinatorDocument stored = find(id).orElseThrow(() -> new IllegalStateException("no coordinator document for migration " + id));
        if (stored.decision() != decision) {
            throw new IllegalStateException("migration " + id + " was already decided " + stored.decision() + ", not " + decision);
        }
        return stored;
    }

    /** The document of migration {@code id}. */
    public Optional<MigrationCoordinatorDocument> find(UUID id) {
        return jdbc.sql("SELECT " + COLUMNS + " FROM migration_coordinators WHERE id = ?").param(id).query(ROW).optional();
    }

    /** Every document, oldest first: the migrations not finished on both shards. */
    public List<MigrationCoordinatorDocument> list() {
        return jdbc.sql("SELECT " + COLUMNS + " FROM migration_coordinators ORDER BY created_at").query(ROW).list();
    }

    /** Deletes the document of migration {@code id}: its outcome is applied on both shards. */
    void delete(UUID id) {
        jdbc.sql("DELETE FROM migration_coordinators WHERE id = ?").param(id).update();
    }
}
