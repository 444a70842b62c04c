package dev.shardstore.support.catalog;

import dev.shardstore.contracts.event.CatalogEvent;
import dev.shardstore.contracts.version.ChunkVersion;
import org.jspecify.annotations.Nullable;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/**
 * What a catalog event on {@link CatalogEvent#TOPIC} invalidates, the one mapping the router and the shards share:
 * a service implements the callbacks on its own caches and hands each event's payload to {@link #apply}. Events are
 * hints only (a lost or late one costs one stale round trip: the shard's version check stays the authority), so an
 * unreadable event is logged and skipped.
 *
 * <ul>
 *   <li>{@code SHARD_ADDED}, {@code SHARD_REMOVED}: {@link #shardsChanged};</li>
 *   <li>{@code DATABASE_CREATED}, {@code DATABASE_VERSION_CHANGED}: {@link #databaseChanged};</li>
 *   <li>{@code DATABASE_DROPPED}: {@link #databaseDropped};</li>
 *   <li>{@code ROUTING_CHANGED}, {@code MIGRATION_COMMITTED} naming a namespace: {@link #routingChanged} with the
 *       event's new collection version (null when it has none or it does not parse);</li>
 *   <li>{@code MIGRATION_STARTED}, {@code MIGRATION_ABORTED}: nothing (the routing table did not change).</li>
 * </ul>
 */
public interface CatalogInvalidations {
    /** The shard registry changed. */
    void shardsChanged();

    /** Database {@code db} was created or its version moved on (movePrimary). */
    void databaseChanged(String db);

    /** Database {@code db} was dropped. */
    void databaseDropped(String db);

    /**
     * The routing table of {@code namespace} changed.
     *
     * @param changedTo its new collection version; null when the collection is no longer sharded or the event did not
     *                  say
     */
    void routingChanged(String namespace, @Nullable ChunkVersion changedTo);

    /** Reads one JSON-encoded {@link CatalogEvent} and calls the callback it maps to (see the class comment). */
    default void apply(String payload, JsonMapper json) {
        CatalogEvent event;
        try {
            event = json.readValue(payload, CatalogEvent.class);
        } catch (JacksonException e) {
            LoggerFactory.getLogger(CatalogInvalidations.class).warn("skipping unreadable catalog event {}: {}", payload, e.getMessage());
            return;
        }
        switch (event.type()) {
            case SHARD_ADDED, SHARD_REMOVED -> shardsChanged();
            case DATABASE_CREATED, DATABASE_VERSION_CHANGED -> databaseChanged(event.database());
            case DATABASE_DROPPED -> databaseDropped(event.database());
            case ROUTING_CHANGED, MIGRATION_COMMITTED -> {
                if (event.namespace() != null) {
                    routingChanged(event.namespace(), changedTo(event));
                }
            }
            case MIGRATION_STARTED, MIGRATION_ABORTED -> { }
        }
    }

    /** The event's new collection version; null when absent or unreadable. */
    private static @Nullable ChunkVersion changedTo(CatalogEvent event) {
        try {
            return event.collectionVersion() == null ? null : ChunkVersion.parse(event.collectionVersion());
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
