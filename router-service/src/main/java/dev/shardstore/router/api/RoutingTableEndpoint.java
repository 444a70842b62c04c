package dev.shardstore.router.api;

import dev.shardstore.router.cursor.RouterCursorManager;
import dev.shardstore.router.routing.DatabaseCache;
import dev.shardstore.router.routing.RoutingTableCache;
import dev.shardstore.router.routing.ShardRegistry;
import java.util.LinkedHashMap;
import org.bson.json.JsonMode;
import org.bson.json.JsonWriterSettings;
import tools.jackson.databind.json.JsonMapper;
import java.util.Map;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.stereotype.Component;

/**
 * {@code GET /actuator/routingTable}: what this router's caches hold (docs/architecture.md "Observability") — databases with
 * primary shard and DatabaseVersion; collections with their routing table summary ({@code RoutingTable.summary()}
 * as relaxed JSON, and its number of {@code chunks}, when sharded), whether the entry is stale, and how often it
 * was refreshed ({@code fullRefreshes}, {@code incrementalRefreshes}) and a statement on it was rerun after a
 * StaleConfig ({@code staleConfigRetries}); the
 * shard registry; and the number of open router cursors.
 */
@Component
@Endpoint(id = "routingTable")
public class RoutingTableEndpoint {
    private static final JsonWriterSettings RELAXED = JsonWriterSettings.builder().outputMode(JsonMode.RELAXED).build();

    private final DatabaseCache databases;
    private final RoutingTableCache collections;
    private final ShardRegistry shards;
    private final RouterCursorManager cursors;
    private final JsonMapper json;

    public RoutingTableEndpoint(DatabaseCache databases, RoutingTableCache collections, ShardRegistry shards, RouterCursorManager cursors,
            JsonMapper json) {
        this.json = json;
        this.databases = databases;
        this.collections = collections;
        this.shards = shards;
        this.cursors = cursors;
    }

    @ReadOperation
    public Map<String, Object> routingTable() {
        Map<String, Object> dbs = new LinkedHashMap<>();
        databases.snapshot().forEach((name, db) -> dbs.put(name, Map.of(
                "primary", db.primary(),
                "version", Map.of("uuid", db.version().uuid().toString(), "lastMod", db.version().lastMod(),
                        "timestamp", db.version().timestamp().getTime() + "|" + db.version().timestamp().getInc()))));
        Map<String, Object> colls = new LinkedHashMap<>();
        for (RoutingTableCache.CachedRoutingInfo info : collections.snapshot()) {
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("sharded", info.table() != null);
            entry.put("loaded", info.loaded());
            entry.put("stale", info.stale());
            entry.put("fullRefreshes", info.fullRefreshes());
            entry.put("incrementalRefreshes", info.incrementalRefreshes());
            entry.put("staleConfigRetries", info.staleConfigRetries());
            if (info.table() != null) {
                entry.put("chunks", info.table().size());
                entry.put("routingTable", json.readValue(info.table().summary().toJson(RELAXED), Map.class));
            }
            colls.put(info.namespace(), entry);
        }
        return Map.of("databases", dbs, "collections", colls, "shards", shards.all(), "openCursors", cursors.openCursors());
    }
}
