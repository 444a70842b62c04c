package dev.shardstore.router.api;

import dev.shardstore.router.cursor.RouterCursorManager;
import dev.shardstore.router.routing.DatabaseCache;
import dev.shardstore.router.routing.ShardRegistry;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.stereotype.Component;

/**
 * {@code GET /actuator/routingTable}: what this router's caches hold (DESIGN.md §9) — databases with
 * primary shard and DatabaseVersion, the shard registry, and the number of open router cursors.
 */
@Component
@Endpoint(id = "routingTable")
public class RoutingTableEndpoint {
    private final DatabaseCache databases;
    private final ShardRegistry shards;
    private final RouterCursorManager cursors;

    public RoutingTableEndpoint(DatabaseCache databases, ShardRegistry shards, RouterCursorManager cursors) {
        this.databases = databases;
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
        return Map.of("databases", dbs, "shards", shards.all(), "openCursors", cursors.openCursors());
    }
}
