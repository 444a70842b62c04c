package dev.shardstore.shard.versioning;

import dev.shardstore.contracts.version.DatabaseVersion;
import dev.shardstore.shard.ShardMetrics;
import dev.shardstore.shard.ShardProperties;
import dev.shardstore.support.catalog.CoalescingCache;
import dev.shardstore.support.catalog.DatabaseLoader;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.springframework.stereotype.Component;

/**
 * The shard's cached filtering information per database (MongoDB's DatabaseShardingState), loaded
 * lazily from the config service ({@link DatabaseLoader}). Concurrent refreshes of one database coalesce into a single
 * load whose result every waiter shares ({@link CoalescingCache}). {@link #invalidate} drops the entry and makes a load
 * that is already running not store its (possibly older) result. A database the config service does not know is
 * cached as {@link DatabaseFilteringInfo#NO_DATABASE}. Thread-safe.
 */
@Component
public class DatabaseShardingState {
    private final DatabaseLoader loader;
    private final ShardMetrics metrics;
    private final String shardName;
    private final CoalescingCache<DatabaseFilteringInfo> cache = new CoalescingCache<>();

    public DatabaseShardingState(DatabaseLoader loader, ShardMetrics metrics, ShardProperties shard) {
        this.loader = loader;
        this.metrics = metrics;
        this.shardName = shard.name();
    }

    /** The cached entry, empty when unknown. */
    public Optional<DatabaseFilteringInfo> cached(String db) {
        return cache.fresh(db);
    }

    /**
     * Loads {@code db}'s entry from the config service (joining a load already in progress) and caches it.
     *
     * @throws dev.shardstore.contracts.error.CommandException when the config service cannot answer
     */
    public DatabaseFilteringInfo refresh(String db) {
        DatabaseFilteringInfo info = cache.refresh(db, previous -> {
            metrics.dbVersionRefresh();
            return loader.lookup(db).map(e -> new DatabaseFilteringInfo(e.version(), shardName.equals(e.primary())))
                    .orElse(DatabaseFilteringInfo.NO_DATABASE);
        });
        return Objects.requireNonNull(info);
    }

    /** Forgets {@code db}'s entry; the next versioned command for it refreshes. */
    public void invalidate(String db) {
        cache.invalidate(db);
    }

    /**
     * Records that this shard dropped {@code version} of {@code db} (MongoDB's critical section for
     * dropDatabase, reduced to what unsharded databases need): until a command carries another version,
     * commands carrying {@code version} get StaleDbVersion without a refresh — the config service still
     * lists {@code version} until its own drop commits, and re-learning it would let a stale router
     * write into the dropped database. A running load does not overwrite the marker.
     */
    public void markDropped(String db, DatabaseVersion version) {
        cache.put(db, new DatabaseFilteringInfo(version, false));
    }

    /** A sorted copy of the cache, for the {@code shardingState} endpoint. */
    public Map<String, DatabaseFilteringInfo> snapshot() {
        return cache.snapshot();
    }
}
