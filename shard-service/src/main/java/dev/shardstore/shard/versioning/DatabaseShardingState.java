package dev.shardstore.shard.versioning;

import dev.shardstore.contracts.version.DatabaseVersion;

import dev.shardstore.shard.ShardMetrics;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.locks.ReentrantLock;
import org.springframework.stereotype.Component;

/**
 * The shard's cached filtering information per database (MongoDB's DatabaseShardingState), loaded
 * lazily from the config service. Concurrent refreshes of one database coalesce into a single load
 * whose result every waiter shares. {@link #invalidate} drops the entry and makes a load that is
 * already running not store its (possibly older) result. Thread-safe.
 */
@Component
public class DatabaseShardingState {
    private final ConfigDatabaseLookup lookup;
    private final ShardMetrics metrics;
    private final ConcurrentMap<String, DatabaseFilteringInfo> cache = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, CompletableFuture<DatabaseFilteringInfo>> refreshing = new ConcurrentHashMap<>();
    /** Orders "store a loaded entry" against "invalidate"; held for map operations only, never during I/O. */
    private final ReentrantLock storeLock = new ReentrantLock();

    public DatabaseShardingState(ConfigDatabaseLookup lookup, ShardMetrics metrics) {
        this.lookup = lookup;
        this.metrics = metrics;
    }

    /** The cached entry, empty when unknown. */
    public Optional<DatabaseFilteringInfo> cached(String db) {
        return Optional.ofNullable(cache.get(db));
    }

    /**
     * Loads {@code db}'s entry from the config service (joining a load already in progress) and caches it.
     *
     * @throws dev.shardstore.contracts.error.CommandException when the config service cannot answer
     */
    public DatabaseFilteringInfo refresh(String db) {
        CompletableFuture<DatabaseFilteringInfo> mine = new CompletableFuture<>();
        CompletableFuture<DatabaseFilteringInfo> running = refreshing.putIfAbsent(db, mine);
        if (running != null) {
            return join(running);
        }
        try {
            metrics.dbVersionRefresh();
            DatabaseFilteringInfo info = lookup.lookup(db);
            storeLock.lock();
            try {
                if (refreshing.remove(db, mine)) {
                    cache.put(db, info);
                }
            } finally {
                storeLock.unlock();
            }
            mine.complete(info);
            return info;
        } catch (RuntimeException e) {
            refreshing.remove(db, mine);
            mine.completeExceptionally(e);
            throw e;
        }
    }

    /** Forgets {@code db}'s entry; the next versioned command for it refreshes. */
    public void invalidate(String db) {
        storeLock.lock();
        try {
            cache.remove(db);
            refreshing.remove(db);
        } finally {
            storeLock.unlock();
        }
    }

    /**
     * Records that this shard dropped {@code version} of {@code db} (MongoDB's critical section for
     * dropDatabase, reduced to what unsharded databases need): until a command carries another version,
     * commands carrying {@code version} get StaleDbVersion without a refresh — the config service still
     * lists {@code version} until its own drop commits, and re-learning it would let a stale router
     * write into the dropped database. A running load does not overwrite the marker.
     */
    public void markDropped(String db, DatabaseVersion version) {
        storeLock.lock();
        try {
            refreshing.remove(db);
            cache.put(db, new DatabaseFilteringInfo(version, false));
        } finally {
            storeLock.unlock();
        }
    }

    /** A sorted copy of the cache, for the {@code shardingState} endpoint. */
    public Map<String, DatabaseFilteringInfo> snapshot() {
        return new TreeMap<>(cache);
    }

    private static DatabaseFilteringInfo join(CompletableFuture<DatabaseFilteringInfo> running) {
        try {
            return running.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException cause) {
                throw cause;
            }
            throw e;
        }
    }
}
