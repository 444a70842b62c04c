package dev.shardstore.router.routing;

import dev.shardstore.support.catalog.CoalescingCache;
import dev.shardstore.support.catalog.DatabaseEntry;
import dev.shardstore.support.catalog.DatabaseLoader;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import java.util.Optional;
import org.springframework.stereotype.Component;

/**
 * The router's cache of database placement (docs/architecture.md "Database versioning"): loaded lazily from the config service by the
 * {@link DatabaseLoader} the shards use too, dropped on {@code StaleDbVersion} or on a catalog event, reloaded on next
 * use. Concurrent loads of one database coalesce into one config call ({@link CoalescingCache}). Absence is not cached:
 * a database another router creates must be visible at once, and no shard version check could correct a cached
 * "absent".
 */
@Component
public class DatabaseCache {
    private final DatabaseLoader loader;
    private final CoalescingCache<DatabaseEntry> cache = new CoalescingCache<>();
    private final Counter refreshes;

    public DatabaseCache(ConfigServer config, MeterRegistry meters) {
        this.loader = new DatabaseLoader(command -> config.run("admin", command));
        this.refreshes = Counter.builder("shardstore.router.cache.refreshes").tag("kind", "database")
                .description("database entries loaded from the config service").register(meters);
    }

    /**
     * The cached entry, loading it when missing.
     *
     * @return empty when the database does not exist
     * @throws dev.shardstore.contracts.error.CommandException when the config service cannot be reached
     */
    public Optional<DatabaseEntry> get(String db) {
        return Optional.ofNullable(cache.get(db, previous -> {
            refreshes.increment();
            return loader.lookup(db).orElse(null);
        }));
    }

    /** The cached entry, asking the config service to create the database when it does not exist. */
    public DatabaseEntry getOrCreate(String db) {
        while (true) {
            // joining a lookup that found no database gives null: then create it with a load of our own
            DatabaseEntry entry = cache.get(db, previous -> {
                refreshes.increment();
                return loader.create(db);
            });
            if (entry != null) {
                return entry;
            }
        }
    }

    /** Forgets the entry so the next use reloads it (a load running now does not store its result). */
    public void invalidate(String db) {
        cache.invalidate(db);
    }

    /** A snapshot for the {@code routingTable} actuator endpoint: loaded entries only. */
    public Map<String, DatabaseEntry> snapshot() {
        return cache.snapshot();
    }
}
