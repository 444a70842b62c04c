package dev.shardstore.contracts.event;

import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A notification that the catalog changed, published by the config service through its outbox to
 * {@link #TOPIC}. Receivers mark the named cache entry stale; the version check stays the authority,
 * so a lost or late event costs one stale round trip and nothing else (docs/architecture.md "Catalog events over Kafka and the outbox").
 *
 * <p>JSON shape: {@code {"type": "DATABASE_DROPPED", "database": "geo", "namespace": null, "sequence": 17,
 * "epoch": null, "collectionVersion": null, "shards": []}}; a {@code ROUTING_CHANGED} event names the
 * collection's epoch, its new collection version ({@code "3|2||<epoch hex>||<secs>|<inc>"}, ChunkVersion's
 * string form, or null once unsharded/dropped) and the shards whose chunks changed.
 *
 * @param type              what changed
 * @param database          the database concerned ("" for shard-registry events)
 * @param namespace         the collection namespace ({@code db.coll}) concerned, or null when the event is about a database
 * @param sequence          the outbox sequence number: increasing per config service, for ordering and de-duplication
 * @param epoch             ROUTING_CHANGED: the collection epoch (hex ObjectId) the change belongs to, else null
 * @param collectionVersion ROUTING_CHANGED and MIGRATION_COMMITTED: the new collection version, null when the collection
 *                          is no longer sharded (and for other types)
 * @param shards            ROUTING_CHANGED: the shards whose chunks changed, sorted; MIGRATION_*: {@code [donor,
 *                          recipient]} (copied; empty for other types)
 */
public record CatalogEvent(Type type, String database, @Nullable String namespace, long sequence, @Nullable String epoch,
        @Nullable String collectionVersion, List<String> shards) {
    /** Kafka topic for catalog events; keyed by database name so one database's events stay ordered. */
    public static final String TOPIC = "shardstore.catalog";

    public enum Type {
        SHARD_ADDED,
        /** removeShard completed: the shard left {@code config.shards} (routers refresh their shard registry). */
        SHARD_REMOVED,
        DATABASE_CREATED,
        DATABASE_DROPPED,
        DATABASE_VERSION_CHANGED,
        /** A sharded collection's routing table changed: sharded, split, merged, migrated, refined or dropped. */
        ROUTING_CHANGED,
        /** A chunk migration of {@code namespace} started; {@code shards} is {@code [donor, recipient]}. */
        MIGRATION_STARTED,
        /**
         * A chunk migration of {@code namespace} committed (the catalog moved the chunk): {@code shards} is
         * {@code [donor, recipient]} and {@code collectionVersion} the new collection version. Routers mark the
         * namespace stale.
         */
        MIGRATION_COMMITTED,
        /** A chunk migration of {@code namespace} was aborted; the catalog did not change. {@code shards}: {@code [donor, recipient]}. */
        MIGRATION_ABORTED
    }

    public CatalogEvent {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(database, "database");
        shards = shards == null ? List.of() : List.copyOf(shards);
    }

    /** A database or shard-registry event (no routing fields). */
    public CatalogEvent(Type type, String database, @Nullable String namespace, long sequence) {
        this(type, database, namespace, sequence, null, null, List.of());
    }
}
