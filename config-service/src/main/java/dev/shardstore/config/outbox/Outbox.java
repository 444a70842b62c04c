package dev.shardstore.config.outbox;

import dev.shardstore.contracts.event.CatalogEvent;
import dev.shardstore.contracts.version.ChunkVersion;
import java.util.Collection;
import org.bson.types.ObjectId;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;

/**
 * Appends catalog events to the outbox table inside the caller's transaction, so an event exists if
 * and only if the catalog change it announces committed (docs/architecture.md "Catalog events over Kafka and the outbox").
 */
@Component
public class Outbox {
    private final JdbcClient jdbc;

    public Outbox(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /**
     * @throws org.springframework.transaction.IllegalTransactionStateException when called outside a transaction
     */
    @Transactional(propagation = Propagation.MANDATORY)
    public void append(CatalogEvent.Type type, String database, @Nullable String namespace) {
        jdbc.sql("INSERT INTO outbox (topic, event_type, database, namespace) VALUES (?, ?, ?, ?)")
                .param(CatalogEvent.TOPIC).param(type.name()).param(database).param(namespace)
                .update();
    }

    /**
     * Appends a {@code ROUTING_CHANGED} event for {@code namespace} ({@code db.coll}).
     *
     * @param epoch             the epoch the change belongs to (for a drop: the dropped collection's)
     * @param collectionVersion the new collection version, or null when the collection is no longer sharded
     * @param shards            the shards whose chunks changed
     * @throws org.springframework.transaction.IllegalTransactionStateException when called outside a transaction
     */
    @Transactional(propagation = Propagation.MANDATORY)
    public void appendRoutingChanged(String namespace, ObjectId epoch, @Nullable ChunkVersion collectionVersion,
            Collection<String> shards) {
        jdbc.sql("""
                INSERT INTO outbox (topic, event_type, database, namespace, epoch, collection_version, shards)
                VALUES (?, ?, ?, ?, ?, ?, ?)""")
                .param(CatalogEvent.TOPIC).param(CatalogEvent.Type.ROUTING_CHANGED.name())
                .param(namespace.substring(0, namespace.indexOf('.'))).param(namespace).param(epoch.toHexString())
                .param(collectionVersion == null ? null : collectionVersion.toString())
                .param(shards.stream().sorted().distinct().toArray(String[]::new))
                .update();
    }

    /**
     * Appends a chunk migration event ({@code MIGRATION_STARTED}, {@code MIGRATION_COMMITTED} or {@code MIGRATION_ABORTED})
     * for {@code namespace} ({@code db.coll}) with {@code shards = [donor, recipient]}.
     *
     * @param collectionVersion the collection version the commit produced ({@code MIGRATION_COMMITTED}); null otherwise
     * @throws IllegalArgumentException for another event type
     * @throws org.springframework.transaction.IllegalTransactionStateException when called outside a transaction
     */
    @Transactional(propagation = Propagation.MANDATORY)
    public void appendMigration(CatalogEvent.Type type, String namespace, String donor, String recipient,
            @Nullable ChunkVersion collectionVersion) {
        if (!type.name().startsWith("MIGRATION_")) {
            throw new IllegalArgumentException("not a migration event: " + type);
        }
        jdbc.sql("""
                INSERT INTO outbox (topic, event_type, database, namespace, epoch, collection_version, shards)
                VALUES (?, ?, ?, ?, ?, ?, ?)""")
                .param(CatalogEvent.TOPIC).param(type.name()).param(namespace.substring(0, namespace.indexOf('.'))).param(namespace)
                .param(collectionVersion == null ? null : collectionVersion.epoch().toHexString())
                .param(collectionVersion == null ? null : collectionVersion.toString()).param(new String[] {donor, recipient})
                .update();
    }
}
