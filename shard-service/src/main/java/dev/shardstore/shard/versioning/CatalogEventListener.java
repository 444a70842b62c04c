package dev.shardstore.shard.versioning;

import dev.shardstore.contracts.event.CatalogEvent;
import dev.shardstore.contracts.version.ChunkVersion;
import dev.shardstore.support.catalog.CatalogInvalidations;
import org.jspecify.annotations.Nullable;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.stereotype.Component;
import tools.jackson.databind.json.JsonMapper;

/**
 * Marks cached database entries stale when the config service announces a change on {@link CatalogEvent#TOPIC}, and a
 * collection's filtering metadata stale on a routing change (kept for an incremental refresh), by the mapping every
 * service shares ({@link CatalogInvalidations}). Events are hints only: the version check stays correct without them.
 * Every shard instance reads every event (its own consumer group) from the latest offset.
 */
@Component
public class CatalogEventListener implements CatalogInvalidations {
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
        apply(payload, json);
    }

    /** The shard keeps no shard registry cache: nothing to do. */
    @Override
    public void shardsChanged() {}

    @Override
    public void databaseChanged(String db) {
        state.invalidate(db);
    }

    /** Only the database entry: a collection entry left behind is corrected by the version check. */
    @Override
    public void databaseDropped(String db) {
        state.invalidate(db);
    }

    /** Whatever the new version: the version check decides, after a refresh, whether a command is stale. */
    @Override
    public void routingChanged(String namespace, @Nullable ChunkVersion changedTo) {
        collections.markStale(namespace);
    }
}
