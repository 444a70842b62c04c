package dev.shardstore.router.routing;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.sharding.RoutingTable;
import dev.shardstore.contracts.sharding.StaleConfig;
import dev.shardstore.contracts.version.ChunkVersion;
import dev.shardstore.support.catalog.CoalescingCache;
import dev.shardstore.support.catalog.RoutingTableLoader;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.springframework.stereotype.Component;

/**
 * The router's routing table cache for collections (mongo/src/mongo/db/s/README.md "The routing table cache"; MongoDB's
 * {@code CatalogCache}). Per namespace it holds a {@link RoutingTable}, "unsharded", or nothing:
 *
 * <ul>
 *   <li>lazy: an entry is loaded on first use and reloaded on the next use after it was marked stale;</li>
 *   <li>loaded from the config service by the {@link RoutingTableLoader} the shards use too (incremental from the
 *       cached table when there is one; tried three times);</li>
 *   <li>held in a {@link CoalescingCache}: concurrent refreshes of one namespace are coalesced into one config call;</li>
 *   <li>a refresh that still fails leaves the stale entry in use (the entry stays stale, and the shard's version
 *       check corrects the router anyway); with no entry at all the error is thrown;</li>
 *   <li>marked stale on {@code StaleConfig} (unless the shard wants a version the cache already has) and on a
 *       {@code ROUTING_CHANGED} event; a dropped database's entries are purged.</li>
 * </ul>
 *
 * Meters: {@code shardstore.router.routing.refreshes} tagged {@code type=full|incremental}.
 */
@Component
public class RoutingTableCache {
    private final RoutingTableLoader loader;
    /** The table of each namespace, empty for "unsharded". */
    private final CoalescingCache<Optional<RoutingTable>> cache = new CoalescingCache<>();
    /** Each namespace used since its database was last purged, with its counters (the actuator lists them all). */
    private final Map<String, Counts> counts = new ConcurrentHashMap<>();
    private final Counter fullRefreshes;
    private final Counter incrementalRefreshes;

    public RoutingTableCache(ConfigServer config, MeterRegistry meters) {
        this.loader = new RoutingTableLoader(command -> config.run("admin", command));
        this.fullRefreshes = refreshCounter(meters, "full");
        this.incrementalRefreshes = refreshCounter(meters, "incremental");
    }

    private static Counter refreshCounter(MeterRegistry meters, String type) {
        return Counter.builder("shardstore.router.routing.refreshes").tag("type", type)
                .description("collection routing tables loaded from the config service").register(meters);
    }

    /**
     * The routing table of {@code namespace}, refreshing first when there is no entry or it is stale.
     *
     * @return empty when the collection is not sharded (or does not exist)
     * @throws CommandException the config service's error (e.g. HostUnreachable) when there is no entry to fall
     *                          back on after three attempts
     */
    public Optional<RoutingTable> get(String namespace) {
        Counts mine = counts.computeIfAbsent(namespace, ns -> new Counts());
        Optional<Optional<RoutingTable>> fresh = cache.fresh(namespace);
        if (fresh.isPresent()) {
            return fresh.get();
        }
        try {
            return Objects.requireNonNull(cache.refresh(namespace, base -> load(namespace, base, mine)));
        } catch (CommandException e) {
            // keep using the stale table; it stays stale so the next use tries again
            return cache.last(namespace).orElseThrow(() -> e);
        }
    }

    private Optional<RoutingTable> load(String namespace, @Nullable Optional<RoutingTable> base, Counts mine) {
        RoutingTableLoader.Refresh refresh = loader.load(namespace, base == null ? null : base.orElse(null));
        if (refresh.incremental()) {
            mine.incremental.incrementAndGet();
            incrementalRefreshes.increment();
        } else {
            mine.full.incrementAndGet();
            fullRefreshes.increment();
        }
        return Optional.ofNullable(refresh.table());
    }

    /** Marks the entry stale so the next {@link #get} refreshes it (the router's own DDL). */
    public void markStale(String namespace) {
        cache.markStale(namespace);
    }

    /**
     * A ROUTING_CHANGED event: marks the entry stale unless the cached table already has {@code changedTo} (same
     * epoch, collection version at least as new) — events arrive late and in bursts (split, split, merge), and one
     * the cache has already caught up with must not cost another refresh. An event of the cached epoch that arrives
     * while a refresh runs leaves the entry fresh when that refresh brings a table at least that new.
     *
     * @param changedTo the event's new collection version; null (collection dropped or unknown) always marks stale
     */
    public void markStale(String namespace, @Nullable ChunkVersion changedTo) {
        cache.markStale(namespace, current -> {
            RoutingTable table = current == null ? null : current.orElse(null);
            if (changedTo == null || table == null || !table.collectionVersion().sameEpoch(changedTo)) {
                return null; // dropped, another epoch, or nothing to compare with
            }
            // met by a table at least that new, and obsolete once a refresh finds the collection unsharded or re-created
            return next -> next.isEmpty() || !next.get().collectionVersion().sameEpoch(changedTo)
                    || next.get().collectionVersion().compareTo(changedTo) >= 0;
        });
    }

    /**
     * A shard answered StaleConfig for {@code namespace}: marks the entry stale unless the cached table already
     * gives that shard the version it wants (another statement refreshed the entry since this one was targeted;
     * the retry then carries the right version). The wanted version is not compared by order with the cached
     * collection version: a donor that gave away its last chunk wants {@code 0|0}, lower than anything the
     * router sent, and only a refresh tells the router so (MongoDB marks the shard stale in that case too).
     *
     * @param staleConfig the reply's details, or null when it had none (the entry is marked stale)
     */
    public void onStaleConfig(String namespace, @Nullable StaleConfig staleConfig) {
        Counts mine = counts.get(namespace);
        if (mine == null) {
            return;
        }
        mine.staleConfigRetries.incrementAndGet();
        cache.markStale(namespace, current -> {
            RoutingTable table = current == null ? null : current.orElse(null);
            if (staleConfig == null || table == null) {
                return null;
            }
            ChunkVersion wanted = staleConfig.wanted();
            boolean alreadyKnown = wanted != null && wanted.equals(table.shardVersion(staleConfig.shardId()))
                    && !wanted.equals(staleConfig.received());
            return alreadyKnown ? next -> true : null;
        });
    }

    /** Forgets every entry of database {@code db} (the database was dropped). */
    public void purgeDatabase(String db) {
        counts.keySet().removeIf(ns -> ns.startsWith(db + "."));
        cache.invalidateIf(ns -> ns.startsWith(db + "."));
    }

    /** What each namespace's entry holds and how often it was refreshed, for the actuator endpoint. */
    public List<CachedRoutingInfo> snapshot() {
        List<CachedRoutingInfo> out = new ArrayList<>();
        counts.forEach((namespace, c) -> {
            Optional<Optional<RoutingTable>> last = cache.last(namespace);
            out.add(new CachedRoutingInfo(namespace, last.isPresent(), last.flatMap(t -> t).orElse(null),
                    cache.fresh(namespace).isEmpty(), c.full.get(), c.incremental.get(), c.staleConfigRetries.get()));
        });
        out.sort(Comparator.comparing(CachedRoutingInfo::namespace));
        return out;
    }

    /**
     * One entry as the actuator endpoint shows it.
     *
     * @param namespace            {@code db.coll}
     * @param loaded               whether a refresh ever succeeded
     * @param table                the cached table, null for unsharded (or not loaded)
     * @param stale                whether the next use refreshes first
     * @param fullRefreshes        successful full refreshes of this namespace
     * @param incrementalRefreshes successful incremental refreshes of this namespace
     * @param staleConfigRetries   StaleConfig replies received for this namespace (each reruns its statement)
     */
    public record CachedRoutingInfo(String namespace, boolean loaded, @Nullable RoutingTable table, boolean stale,
            long fullRefreshes, long incrementalRefreshes, long staleConfigRetries) {}

    /** One namespace's refresh and StaleConfig counters. */
    private static final class Counts {
        final AtomicLong full = new AtomicLong();
        final AtomicLong incremental = new AtomicLong();
        final AtomicLong staleConfigRetries = new AtomicLong();
    }
}
