package dev.shardstore.shard.migration;

import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.contracts.sharding.ChunkRange;
import dev.shardstore.contracts.version.ChunkVersion;
import java.util.Objects;
import java.util.UUID;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.jspecify.annotations.Nullable;

/**
 * A donor's record of one migration (table {@code migration_coordinators}; MongoDB's {@code MigrationCoordinatorDocument}),
 * written before the recipient starts and deleted once the outcome is applied on both shards. Immutable.
 *
 * @param id                  the migration id, also the id of both shards' range deletion tasks
 * @param namespace           the collection
 * @param collectionUuid      the donor's collection instance
 * @param range               the chunk being moved
 * @param donor               this shard
 * @param recipient           the shard receiving the chunk
 * @param preMigrationVersion the collection version when the migration started: its epoch and timestamp are what the
 *                            commit expects, and a recovering donor fences the chunk at it
 *                            ({@code _configsvrEnsureChunkVersionIsGreaterThan})
 * @param decision            null while undecided
 */
public record MigrationCoordinatorDocument(UUID id, Namespace namespace, UUID collectionUuid, ChunkRange range, String donor,
        String recipient, ChunkVersion preMigrationVersion, @Nullable MigrationDecision decision) {
    public MigrationCoordinatorDocument {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(collectionUuid, "collectionUuid");
        Objects.requireNonNull(range, "range");
        Objects.requireNonNull(donor, "donor");
        Objects.requireNonNull(recipient, "recipient");
        Objects.requireNonNull(preMigrationVersion, "preMigrationVersion");
        if (donor.equals(recipient)) {
            throw new IllegalArgumentException("a migration's donor and recipient differ, both were " + donor);
        }
    }

    /** This document with {@code decision} recorded. */
    public MigrationCoordinatorDocument decided(MigrationDecision newDecision) {
        return new MigrationCoordinatorDocument(id, namespace, collectionUuid, range, donor, recipient, preMigrationVersion,
                Objects.requireNonNull(newDecision, "decision"));
    }

    /**
     * The reason of the donor's critical section for this migration, {@code {command: "moveChunk", ns, migrationId}}:
     * only this migration (or its recovery) may exit it.
     */
    public BsonDocument criticalSectionReason() {
        return criticalSectionReason(namespace, id);
    }

    /** {@link #criticalSectionReason()} of migration {@code id} of {@code namespace}. */
    public static BsonDocument criticalSectionReason(Namespace namespace, UUID id) {
        return new BsonDocument("command", new BsonString("moveChunk")).append("ns", new BsonString(namespace.full()))
                .append("migrationId", new BsonString(id.toString()));
    }

    /** Whether a critical section reason is a migration's (for a section left without its document). */
    public static boolean isMigrationReason(BsonDocument reason) {
        return reason.isString("command") && reason.getString("command").getValue().equals("moveChunk") && reason.isString("migrationId");
    }
}
