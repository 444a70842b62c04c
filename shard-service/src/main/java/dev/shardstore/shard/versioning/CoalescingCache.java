package dev.shardstore.shard.versioning;

import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * A cache of routing information per name (database or namespace), loaded from the config service on demand
 * (the shape of MongoDB's DatabaseShardingState and CollectionShardingState caches). Concurrent refreshes of one
 * name coalesce into a single load whose result every waiter shares. {@link #invalidate} and {@link #markStale}
 * make a load that is already running not store its (possibly older) result; {@link #markStale} keeps the entry
 * as the basis of an incremental refresh but stops {@link #fresh} from returning it. Thread-safe.
 *
 * @param <V> the cached value, immutable
 */
final class CoalescingCache<V> {
    private final ConcurrentMap<String, V> cache = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, Boolean> stale = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, CompletableFuture<V>> refreshing = new ConcurrentHashMap<>();
    /** Orders "store a loaded entry" against "invalidate"; held for map operations only, never during I/O. */
    private final ReentrantLock storeLock = new ReentrantLock();

    /** The cached entry unless it is absent or marked stale. */
    Optional<V> fresh(String name) {
        V value = cache.get(name);
        return value == null || stale.containsKey(name) ? Optional.empty() : Optional.of(value);
    }

    /** The cached entry even when marked stale; empty when absent. */
    Optional<V> last(String name) {
        return Optional.ofNullable(cache.get(name));
    }

    /**
     * Runs {@code load} (given the last entry, possibly stale, or null) and caches its result, or joins a load of
     * {@code name} already in progress.
     *
     * @throws RuntimeException what {@code load} throws, to every waiter
     */
    V refresh(String name, Function<@Nullable V, V> load) {
        CompletableFuture<V> mine = new CompletableFuture<>();
        CompletableFuture<V> running = refreshing.putIfAbsent(name, mine);
        if (running != null) {
            return join(running);
        }
        try {
            V value = load.apply(cache.get(name));
            storeLock.lock();
            try {
                if (refreshing.remove(name, mine)) {
                    cache.put(name, value);
                    stale.remove(name);
                }
            } finally {
                storeLock.unlock();
            }
            mine.complete(value);
            return value;
        } catch (RuntimeException e) {
            refreshing.remove(name, mine);
            mine.completeExceptionally(e);
            throw e;
        }
    }

    /** Forgets {@code name}'s entry. */
    void invalidate(String name) {
        storeLock.lock();
        try {
            cache.remove(name);
            stale.remove(name);
            refreshing.remove(name);
        } finally {
            storeLock.unlock();
        }
    }

    /** Keeps {@code name}'s entry for an incremental refresh, but no longer as {@link #fresh}. */
    void markStale(String name) {
        storeLock.lock();
        try {
            if (cache.containsKey(name)) {
                stale.put(name, Boolean.TRUE);
            }
            refreshing.remove(name);
        } finally {
            storeLock.unlock();
        }
    }

    /** Stores {@code value} as {@code name}'s fresh entry; a load already running does not overwrite it. */
    void put(String name, V value) {
        storeLock.lock();
        try {
            refreshing.remove(name);
            cache.put(name, value);
            stale.remove(name);
        } finally {
            storeLock.unlock();
        }
    }

    /** Whether {@code name}'s entry is marked stale. */
    boolean isStale(String name) {
        return stale.containsKey(name);
    }

    /** A sorted copy of the entries (stale ones included). */
    Map<String, V> snapshot() {
        return new TreeMap<>(cache);
    }

    private static <V> V join(CompletableFuture<V> running) {
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
