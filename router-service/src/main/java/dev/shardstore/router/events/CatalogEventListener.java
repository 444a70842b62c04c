package dev.shardstore.router.events;

import dev.shardstore.contracts.event.CatalogEvent;
import dev.shardstore.contracts.version.ChunkVersion;
import dev.shardstore.router.routing.DatabaseCache;
import dev.shardstore.router.routing.RoutingTableCache;
import dev.shardstore.router.routing.ShardRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.stereotype.Component;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/**
 * Catalog events as hints (docs/architecture.md "Catalog events over Kafka and the outbox"): mark the router's cache entries stale sooner. Each router
 * reads every event (its own consumer group); correctness never depends on delivery, because the
 * shard's version check sends a stale router to refresh anyway.
 */
@Component
public class CatalogEventListener {
    /** Listener id, so tests and operators can stop or start the consumer through the registry. */
    public static final String LISTENER_ID = "router-catalog-events";

    private static final Logger log = LoggerFactory.getLogger(CatalogEventListener.class);

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

    @KafkaListener(id = LISTENER_ID, topics = CatalogEvent.TOPIC,
            groupId = "router-${shardstore.router.name:router1}-#{T(java.util.UUID).randomUUID()}")
    public void onEvent(String payload) {
        CatalogEvent event;
        try {
            event = json.readValue(payload, CatalogEvent.class);
        } catch (JacksonException e) {
            log.warn("ignoring unreadable catalog event {}: {}", payload, e.getMessage());
            return;
        }
        switch (event.type()) {
            case SHARD_ADDED, SHARD_REMOVED -> shards.refreshQuietly();
            case DATABASE_CREATED, DATABASE_VERSION_CHANGED -> databases.invalidate(event.database());
            case DATABASE_DROPPED -> {
                databases.invalidate(event.database());
                collections.purgeDatabase(event.database());
            }
            case ROUTING_CHANGED, MIGRATION_COMMITTED -> {
                if (event.namespace() != null) {
                    collections.markStale(event.namespace(), changedTo(event));
                }
            }
            case MIGRATION_STARTED, MIGRATION_ABORTED -> { } // the routing table did not change
        }
    }

    /** The event's new collection version; null (mark stale regardless) when absent or unreadable. */
    private static @Nullable ChunkVersion changedTo(CatalogEvent event) {
        try {
            return event.collectionVersion() == null ? null : ChunkVersion.parse(event.collectionVersion());
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
