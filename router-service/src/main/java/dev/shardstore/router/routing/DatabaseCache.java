package dev.shardstore.router.routing;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.stereotype.Component;

/**
 * The router's cache of database placement (docs/architecture.md "Database versioning"): loaded lazily from the config service,
 * dropped on {@code StaleDbVersion} or on a catalog event, reloaded on next use. Concurrent loads of
 * one database coalesce into one config call. Absence is not cached: a database another router
 * creates must be visible at once, and no shard version check could correct a cached "absent".
 */
@Component
public class DatabaseCache {
    private final ConfigServer config;
    private final Map<String, CompletableFuture<CachedDatabase>> entries = new ConcurrentHashMap<>();
    private final Counter refreshes;

    public DatabaseCache(ConfigServer config, MeterRegistry meters) {
        this.config = config;
        this.refreshes = Counter.builder("shardstore.router.cache.refreshes").tag("kind", "database")
                .description("database entries loaded from the config service").register(meters);
    }

    /**
     * The cached entry, loading it when missing.
     *
     * @return empty when the database does not exist
     * @throws dev.shardstore.contracts.error.CommandException when the config service cannot be reached
     */
    public Optional<CachedDatabase> get(String db) {
        return lookup(db, false);
    }

    /** The cached entry, asking the config service to create the database when it does not exist. */
    public CachedDatabase getOrCreate(String db) {
        return lookup(db, true).orElseThrow();
    }

    /** Forgets the entry so the next use reloads it; no-op when another thread already replaced it. */
    public void invalidate(String db) {
        entries.remove(db);
    }

    /** A snapshot for the {@code routingTable} actuator endpoint: completed entries only. */
    public Map<String, CachedDatabase> snapshot() {
        Map<String, CachedDatabase> out = new TreeMap<>();
        entries.forEach((db, f) -> {
            if (f.isDone() && !f.isCompletedExceptionally()) {
                out.put(db, f.join());
            }
        });
        return out;
    }

    private Optional<CachedDatabase> lookup(String db, boolean create) {
        while (true) {
            CompletableFuture<CachedDatabase> mine = new CompletableFuture<>();
            CompletableFuture<CachedDatabase> existing = entries.putIfAbsent(db, mine);
            if (existing == null) {
                return load(mine, db, create);
            }
            try {
                return Optional.of(existing.join());
            } catch (CompletionException e) {
                // The load we waited for failed or found no database: drop it and load ourselves.
                entries.remove(db, existing);
            }
        }
    }

    private Optional<CachedDatabase> load(CompletableFuture<CachedDatabase> mine, String db, boolean create) {
        try {
            refreshes.increment();
            Optional<CachedDatabase> loaded = (create ? Optional.of(config.createDatabase(db)) : config.getDatabase(db))
                    .map(CachedDatabase::fromCatalog);
            if (loaded.isPresent()) {
                mine.complete(loaded.get());
            } else {
                entries.remove(db, mine);
                mine.completeExceptionally(new IllegalStateException("database " + db + " does not exist"));
            }
            return loaded;
        } catch (RuntimeException e) {
            entries.remove(db, mine);
            mine.completeExceptionally(e);
            throw e;
        }
    }
}
