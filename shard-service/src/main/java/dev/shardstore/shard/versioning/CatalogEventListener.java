package dev.shardstore.shard.versioning;

import dev.shardstore.contracts.event.CatalogEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.stereotype.Component;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/**
 * Marks cached database entries stale when the config service announces a change on
 * {@link CatalogEvent#TOPIC} (DATABASE_CREATED, DATABASE_DROPPED, DATABASE_VERSION_CHANGED), and a collection's
 * filtering metadata stale on ROUTING_CHANGED (kept for an incremental refresh). Events
 * are hints only: the version check stays correct without them. Every shard instance reads every
 * event (its own consumer group) from the latest offset; an unreadable event is logged and skipped.
 */
@Component
public class CatalogEventListener {
    private static final Logger log = LoggerFactory.getLogger(CatalogEventListener.class);

    private final DatabaseShardingState state;
    private final CollectionShardingState collections;
    private final JsonMapper json;

    public CatalogEventListener(DatabaseShardingState state, CollectionShardingState collections, JsonMapper json) {
        this.state = state;
        this.collections = collections;
        this.json = json;
    }

    /** Handles one JSON-encoded {@link CatalogEvent}. */
    @KafkaListener(
            id = "shard-catalog-events",
            topics = CatalogEvent.TOPIC,
            groupId = "shard-${shardstore.shard.name}-${random.uuid}",
            properties = "auto.offset.reset=latest")
    public void onEvent(String payload) {
        CatalogEvent event;
        try {
            event = json.readValue(payload, CatalogEvent.class);
        } catch (JacksonException e) {
            log.warn("skipping unreadable catalog event {}: {}", payload, e.getMessage());
            return;
        }
        switch (event.type()) {
            case DATABASE_CREATED, DATABASE_DROPPED, DATABASE_VERSION_CHANGED -> state.invalidate(event.database());
            case ROUTING_CHANGED, MIGRATION_COMMITTED -> {
                if (event.namespace() != null) {
                    collections.markStale(event.namespace());
                }
            }
            case SHARD_ADDED, SHARD_REMOVED, MIGRATION_STARTED, MIGRATION_ABORTED -> { }
        }
    }
}
