package dev.shardstore.support.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.event.CatalogEvent;
import dev.shardstore.contracts.event.CatalogEvent.Type;
import dev.shardstore.contracts.version.ChunkVersion;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonTimestamp;
import org.bson.types.ObjectId;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/** The one mapping of catalog events to cache invalidations that the router and the shards share. */
class CatalogInvalidationsTest {
    private final JsonMapper json = JsonMapper.builder().build();
    private final List<String> calls = new ArrayList<>();
    private final CatalogInvalidations recorder = new CatalogInvalidations() {
        @Override
        public void shardsChanged() {
            calls.add("shards");
        }

        @Override
        public void databaseChanged(String db) {
            calls.add("database " + db);
        }

        @Override
        public void databaseDropped(String db) {
            calls.add("dropped " + db);
        }

        @Override
        public void routingChanged(String namespace, @Nullable ChunkVersion changedTo) {
            calls.add("routing " + namespace + " " + changedTo);
        }
    };

    private void deliver(CatalogEvent event) {
        recorder.apply(json.writeValueAsString(event), json);
    }

    @Test
    void eachEventTypeMapsToItsInvalidation() {
        ChunkVersion version = new ChunkVersion(3, 2, new ObjectId(), new BsonTimestamp(100, 1));
        deliver(new CatalogEvent(Type.SHARD_ADDED, "", null, 1));
        deliver(new CatalogEvent(Type.SHARD_REMOVED, "", null, 2));
        deliver(new CatalogEvent(Type.DATABASE_CREATED, "geo", null, 3));
        deliver(new CatalogEvent(Type.DATABASE_VERSION_CHANGED, "geo", null, 4));
        deliver(new CatalogEvent(Type.DATABASE_DROPPED, "geo", null, 5));
        deliver(new CatalogEvent(Type.ROUTING_CHANGED, "geo", "geo.c", 6, version.epoch().toHexString(), version.toString(), List.of("sh1")));
        deliver(new CatalogEvent(Type.MIGRATION_COMMITTED, "geo", "geo.c", 7, null, version.toString(), List.of("sh1", "sh2")));
        deliver(new CatalogEvent(Type.ROUTING_CHANGED, "geo", "geo.d", 8, null, null, List.of()));
        deliver(new CatalogEvent(Type.MIGRATION_STARTED, "geo", "geo.c", 9, null, null, List.of("sh1", "sh2")));
        deliver(new CatalogEvent(Type.MIGRATION_ABORTED, "geo", "geo.c", 10, null, null, List.of("sh1", "sh2")));
        assertThat(calls).containsExactly("shards", "shards", "database geo", "database geo", "dropped geo",
                "routing geo.c " + version, "routing geo.c " + version, "routing geo.d null");
    }

    @Test
    void aRoutingEventWithoutANamespaceOrWithAnUnreadableVersion() {
        deliver(new CatalogEvent(Type.ROUTING_CHANGED, "geo", null, 1, null, null, List.of()));
        deliver(new CatalogEvent(Type.ROUTING_CHANGED, "geo", "geo.c", 2, null, "not a version", List.of()));
        assertThat(calls).containsExactly("routing geo.c null");
    }

    @Test
    void anUnreadableEventIsSkipped() {
        recorder.apply("{not json", json);
        recorder.apply("{\"type\": \"NO_SUCH_TYPE\", \"database\": \"geo\"}", json);
        assertThat(calls).isEmpty();
    }
}
