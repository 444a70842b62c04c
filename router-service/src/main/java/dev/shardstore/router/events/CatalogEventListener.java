package dev.shardstore.router.events;

import dev.shardstore.contracts.event.CatalogEvent;
import dev.shardstore.contracts.version.ChunkVersion;
import dev.shardstore.router.routing.DatabaseCache;
import dev.shardstore.router.routing.RoutingTableCache;
import dev.shardstore.router.routing.ShardRegistry;
import dev.shardstore.support.catalog.CatalogInvalidations;
import org.jspecify.annotations.Nullable;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.stereotype.Component;
import tools.jackson.databind.json.JsonMapper;

/**
 * Catalog events as hints (docs/architecture.md "Catalog events over Kafka and the outbox"): mark the router's cache entries stale sooner, by the mapping every service
 * shares ({@link CatalogInvalidations}). Each router reads every event (its own consumer group); correctness never
 * depends on delivery, because the shard's version check sends a stale router to refresh anyway.
 */
@Component
public class CatalogEventListener implements CatalogInvalidations {
    /** Listener id, so tests and operators can stop or start the consumer through the registry. */
    public static final String LISTENER_ID = "router-catalog-events";

    private final DatabaseCache databases;
    private final RoutingTableCache collections;
    private final ShardRegistry shards;
    private final JsonMapper json;

    public CatalogEventListener(DatabaseCache databases, RoutingTableCache collections, ShardRegistry shards, JsonMapper json) {
        this.databases = databases;
        this.collections = collections;
        this.shards = shards;
        this.json = json;
    }

    /** Handles one JSON-encoded {@link CatalogEvent}. */
    @KafkaListener(id = LISTENER_ID, topics = CatalogEvent.TOPIC,
            groupId = "router-${shardstore.router.name:router1}-#{T(java.util.UUID).randomUUID()}")
    public void onEvent(String payload) {
        apply(payload, json);
    }

    @Override
    public void shardsChanged() {
        shards.refreshQuietly();
    }

    @Override
    public void databaseChanged(String db) {
        databases.invalidate(db);
    }

    /** Also forgets the database's collections. */
    @Override
    public void databaseDropped(String db) {
        databases.invalidate(db);
        collections.purgeDatabase(db);
    }

    @Override
    public void routingChanged(String namespace, @Nullable ChunkVersion changedTo) {
        collections.markStale(namespace, changedTo);
    }
}
