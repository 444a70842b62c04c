package dev.shardstore.contracts.event;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A notification that the catalog changed, published by the config service through its outbox to
 * {@link #TOPIC}. Receivers mark the named cache entry stale; the version check stays the authority,
 * so a lost or late event costs one stale round trip and nothing else (DESIGN.md §5).
 *
 * <p>JSON shape: {@code {"type": "DATABASE_DROPPED", "database": "geo", "namespace": null, "sequence": 17}}.
 *
 * @param type      what changed
 * @param database  the database concerned ("" for shard-registry events)
 * @param namespace the collection namespace ({@code db.coll}) concerned, or null when the event is about a database
 * @param sequence  the outbox sequence number: increasing per config service, for ordering and de-duplication
 */
public record CatalogEvent(Type type, String database, @Nullable String namespace, long sequence) {
    /** Kafka topic for catalog events; keyed by database name so one database's events stay ordered. */
    public static final String TOPIC = "shardstore.catalog";

    public enum Type {
        SHARD_ADDED,
        DATABASE_CREATED,
        DATABASE_DROPPED,
        DATABASE_VERSION_CHANGED
    }

    public CatalogEvent {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(database, "database");
    }
}
