package dev.shardstore.shard;

import dev.shardstore.contracts.version.DatabaseVersion;
import dev.shardstore.shard.cursor.CursorManager;
import dev.shardstore.shard.storage.OplogTimeReservations;
import dev.shardstore.shard.versioning.DatabaseFilteringInfo;
import dev.shardstore.shard.versioning.CollectionFilteringInfo;
import dev.shardstore.shard.versioning.CollectionShardingState;
import dev.shardstore.shard.versioning.CollectionShardingRuntime;
import dev.shardstore.shard.versioning.CriticalSection;
import dev.shardstore.shard.versioning.DatabaseShardingState;
import org.bson.json.JsonMode;
import org.bson.json.JsonWriterSettings;
import dev.shardstore.shard.autosplit.ChunkSplitter;
import tools.jackson.databind.json.JsonMapper;
import java.util.LinkedHashMap;
import java.util.Map;
import org.bson.BsonTimestamp;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.stereotype.Component;

/**
 * Actuator endpoint {@code /actuator/shardingState} (docs/architecture.md "Observability"): the shard's name, its latest
 * cluster time, the cached database filtering information and the number of open cursors.
 *
 * <p>Shape: {@code {shard, clusterTime: {t, i}, databases: {<db>: {primary, version: {uuid, lastMod,
 * timestamp: {t, i}} | null}}, collections: {<db.coll>: {sharded, stale, shardVersion?: "major|minor||epoch||t|i",
 * routingTable?: <RoutingTable.summary() as relaxed Extended JSON>}}, criticalSections: [{namespace: <db.coll> | <db> (a database's section),
 * phase: "CATCH_UP" | "COMMIT", blocks: "Writes" | "ReadsAndWrites", reason: {...}, expiresAt: <ISO-8601> | null}],
 * openCursors, autoSplitsInProgress: [{ns, range: {min, max}}]}} (the chunks {@link ChunkSplitter} is splitting now).
 */
@Component
@Endpoint(id = "shardingState")
public class ShardingStateEndpoint {
    private static final JsonWriterSettings RELAXED = JsonWriterSettings.builder().outputMode(JsonMode.RELAXED).build();

    private final ShardProperties properties;
    private final DatabaseShardingState databases;
    private final CollectionShardingState collections;
    private final CollectionShardingRuntime runtime;
    private final CursorManager cursors;
    private final OplogTimeReservations clock;
    private final JsonMapper json;
    private final ChunkSplitter splitter;

    public ShardingStateEndpoint(ShardProperties properties, DatabaseShardingState databases, CollectionShardingState collections,
            CollectionShardingRuntime runtime, CursorManager cursors, OplogTimeReservations clock, JsonMapper json, ChunkSplitter splitter) {
        this.splitter = splitter;
        this.properties = properties;
        this.databases = databases;
        this.collections = collections;
        this.runtime = runtime;
        this.json = json;
        this.cursors = cursors;
        this.clock = clock;
    }

    /** The current state, as plain maps for JSON. */
    @ReadOperation
    public Map<String, Object> state() {
        Map<String, Object> perDatabase = new LinkedHashMap<>();
        databases.snapshot().forEach((db, info) -> perDatabase.put(db, describe(info)));
        Map<String, Object> state = new LinkedHashMap<>();
        state.put("shard", properties.name());
        state.put("clusterTime", time(clock.latest()));
        state.put("databases", perDatabase);
        Map<String, Object> perCollection = new LinkedHashMap<>();
        collections.snapshot().forEach((ns, info) -> perCollection.put(ns, describe(ns, info)));
        state.put("collections", perCollection);
        state.put("criticalSections", runtime.criticalSections().stream().map(this::describe).toList());
        state.put("openCursors", cursors.openCount());
        state.put("autoSplitsInProgress", splitter.inProgress().stream().map(d -> json.readValue(d.toJson(RELAXED), Map.class)).toList());
        return state;
    }

    private static Map<String, Object> describe(DatabaseFilteringInfo info) {
        Map<String, Object> entry = new LinkedHashMap<>();
        entry.put("primary", info.primary());
        DatabaseVersion version = info.version();
        entry.put("version", version == null ? null : Map.of(
                "uuid", version.uuid().toString(), "lastMod", version.lastMod(), "timestamp", time(version.timestamp())));
        return entry;
    }

    /** An unsharded entry, or the routing table's summary as plain JSON, with whether it awaits a refresh. */
    private Map<String, Object> describe(String namespace, CollectionFilteringInfo info) {
        Map<String, Object> entry = new LinkedHashMap<>();
        entry.put("sharded", info.sharded());
        entry.put("stale", collections.isStale(namespace));
        info.table().ifPresent(table -> {
            entry.put("shardVersion", table.shardVersion(properties.name()).toString());
            entry.put("routingTable", json.readValue(table.summary().toJson(RELAXED), Map.class));
        });
        return entry;
    }

    private Map<String, Object> describe(CriticalSection section) {
        Map<String, Object> entry = new LinkedHashMap<>();
        entry.put("namespace", section.namespace());
        entry.put("phase", section.phase().name());
        entry.put("blocks", section.phase().blockType());
        entry.put("reason", json.readValue(section.reason().toJson(RELAXED), Map.class));
        entry.put("expiresAt", section.expiresAt() == null ? null : section.expiresAt().toString());
        return entry;
    }

    private static Map<String, Long> time(BsonTimestamp ts) {
        return Map.of("t", Integer.toUnsignedLong(ts.getTime()), "i", Integer.toUnsignedLong(ts.getInc()));
    }
}
