package dev.shardstore.router.routing;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.sharding.Chunk;
import dev.shardstore.contracts.sharding.RoutingTable;
import dev.shardstore.contracts.sharding.ShardedCollection;
import dev.shardstore.contracts.sharding.StaleConfig;
import dev.shardstore.contracts.version.ChunkVersion;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * The router's routing table cache for collections (mongo/src/mongo/db/s/README.md "The routing table cache"; MongoDB's
 * {@code CatalogCache}). Per namespace it holds a {@link RoutingTable}, "unsharded", or nothing:
 *
 * <ul>
 *   <li>lazy: an entry is loaded on first use and reloaded on the next use after it was marked stale;</li>
 *   <li>loaded from the config service with {@code _configsvrGetRoutingTable}; a refresh of an entry that
 *       holds a table sends {@code sinceVersion} (its collection version) and applies the newer chunks with
 *       {@link RoutingTable#withChanges} (incremental); it is a full refresh when there is no table, the
 *       reply says {@code full} (epoch changed), the collection's epoch differs, or the collection is gone;</li>
 *   <li>concurrent refreshes of one namespace are coalesced into one config call;</li>
 *   <li>a failed refresh is retried twice, then the stale entry is used (the entry stays stale, and the shard's
 *       version check corrects the router anyway); with no entry at all the error is thrown;</li>
 *   <li>marked stale on {@code StaleConfig} (unless the shard wants a version the cache already has) and on a
 *       {@code ROUTING_CHANGED} event; a dropped database's entries are purged.</li>
 * </ul>
 *
 * Meters: {@code shardstore.router.routing.refreshes} tagged {@code type=full|incremental}.
 */
@Component
public class RoutingTableCache {
    /** One try and two retries (mongo/src/mongo/db/s/README.md "Operational Caveats"). */
    static final int REFRESH_ATTEMPTS = 3;

    private static final Logger log = LoggerFactory.getLogger(RoutingTableCache.class);

    private final ConfigServer config;
    private final Map<String, Entry> entries = new ConcurrentHashMap<>();
    private final Counter fullRefreshes;
    private final Counter incrementalRefreshes;

    public RoutingTableCache(ConfigServer config, MeterRegistry meters) {
        this.config = config;
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
        return Optional.ofNullable(entries.computeIfAbsent(namespace, Entry::new).current());
    }

    /** Marks the entry stale so the next {@link #get} refreshes it (the router's own DDL). */
    public void markStale(String namespace) {
        markStale(namespace, null);
    }

    /**
     * A ROUTING_CHANGED event: marks the entry stale unless the cached table already has {@code changedTo} (same
     * epoch, collection version at least as new) — events arrive late and in bursts (split, split, merge), and one
     * the cache has already caught up with must not cost another refresh.
     *
     * @param changedTo the event's new collection version; null (collection dropped or unknown) always marks stale
     */
    public void markStale(String namespace, @Nullable ChunkVersion changedTo) {
        Entry entry = entries.get(namespace);
        if (entry != null) {
            entry.markStale(changedTo);
        }
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
        Entry entry = entries.get(namespace);
        if (entry != null) {
            entry.onStaleConfig(staleConfig);
        }
    }

    /** Forgets every entry of database {@code db} (the database was dropped). */
    public void purgeDatabase(String db) {
        entries.keySet().removeIf(ns -> ns.startsWith(db + "."));
    }

    /** What each namespace's entry holds and how often it was refreshed, for the actuator endpoint. */
    public List<CachedRoutingInfo> snapshot() {
        return entries.values().stream().map(Entry::info).sorted(Comparator.comparing(CachedRoutingInfo::namespace)).toList();
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

    /** One namespace's cache slot; its mutable state is guarded by the entry's monitor. */
    private final class Entry {
        private final String namespace;
        private final AtomicLong full = new AtomicLong();
        private final AtomicLong incremental = new AtomicLong();
        private final AtomicLong staleConfigRetries = new AtomicLong();
        private boolean loaded;
        private @Nullable RoutingTable table;
        /** Bumped by every unversioned stale mark; a refresh leaves the entry fresh only if none came while it ran. */
        private long staleMarks;
        private long freshAsOf = -1;
        /**
         * The highest collection version (of the cached epoch) an event announced and the table did not have: the
         * entry is stale until a refresh brings a table at least that new, whenever the event arrived (even while
         * that refresh was running).
         */
        private @Nullable ChunkVersion wanted;
        private @Nullable CompletableFuture<Void> refreshing;

        Entry(String namespace) {
            this.namespace = namespace;
        }

        @Nullable RoutingTable current() {
            CompletableFuture<Void> refresh;
            boolean mine = false;
            synchronized (this) {
                if (isFresh()) {
                    return table;
                }
                if (refreshing == null) {
                    refreshing = new CompletableFuture<>();
                    mine = true;
                }
                refresh = refreshing;
            }
            if (mine) {
                refresh(refresh);
            }
            try {
                refresh.join();
            } catch (CompletionException e) {
                throw e.getCause() instanceof RuntimeException cause ? cause : e;
            }
            synchronized (this) {
                return table;
            }
        }

        synchronized void markStale(@Nullable ChunkVersion changedTo) {
            if (changedTo == null || table == null || !table.collectionVersion().sameEpoch(changedTo)) {
                staleMarks++; // dropped, another epoch, or nothing to compare with
            } else if (wanted == null || wanted.compareTo(changedTo) < 0) {
                wanted = changedTo;
            }
        }

        /** Loaded, no unversioned stale mark since the last refresh began, and at least as new as every event said. */
        private boolean isFresh() {
            // wanted is of the epoch the table had when the event came: met by a table at least that new, and obsolete
            // once a refresh found the collection unsharded or re-created (another epoch)
            if (wanted != null && (table == null || !table.collectionVersion().sameEpoch(wanted)
                    || table.collectionVersion().compareTo(wanted) >= 0)) {
                wanted = null;
            }
            return loaded && freshAsOf == staleMarks && wanted == null;
        }

        synchronized void onStaleConfig(@Nullable StaleConfig staleConfig) {
            staleConfigRetries.incrementAndGet();
            ChunkVersion wanted = staleConfig == null ? null : staleConfig.wanted();
            boolean alreadyKnown = wanted != null && table != null && wanted.equals(table.shardVersion(staleConfig.shardId()))
                    && !wanted.equals(staleConfig.received());
            if (!alreadyKnown) {
                staleMarks++;
            }
        }

        synchronized CachedRoutingInfo info() {
            return new CachedRoutingInfo(namespace, loaded, table, !isFresh(), full.get(), incremental.get(),
                    staleConfigRetries.get());
        }

        private void refresh(CompletableFuture<Void> done) {
            long marks;
            RoutingTable base;
            synchronized (this) {
                marks = staleMarks;
                base = table;
            }
            RuntimeException last = null;
            for (int attempt = 1; attempt <= REFRESH_ATTEMPTS; attempt++) {
                try {
                    RoutingTable fresh = load(base);
                    synchronized (this) {
                        table = fresh;
                        loaded = true;
                        freshAsOf = marks;
                        refreshing = null;
                    }
                    done.complete(null);
                    return;
                } catch (RuntimeException e) { // unreachable config service, or a reply that does not make a table
                    last = e;
                    log.warn("routing table refresh of {} failed (attempt {} of {}): {}", namespace, attempt, REFRESH_ATTEMPTS, e.getMessage());
                }
            }
            boolean fallBack;
            synchronized (this) {
                refreshing = null;
                fallBack = loaded; // keep using the stale table; it stays stale so the next use tries again
            }
            if (fallBack) {
                done.complete(null);
            } else {
                done.completeExceptionally(last instanceof CommandException ? last
                        : new CommandException(ErrorCode.InternalError, "routing table of " + namespace + " is unusable: " + last.getMessage(), last));
            }
        }

        /** One config call; the new table, or null when the collection is not sharded. */
        private @Nullable RoutingTable load(@Nullable RoutingTable base) {
            BsonDocument command = new BsonDocument("_configsvrGetRoutingTable", new BsonString(namespace));
            if (base != null) {
                command.append("sinceVersion", base.collectionVersion().toBson());
            }
            BsonDocument reply = config.run("admin", command);
            BsonValue collection = reply.get("collection");
            if (collection == null || collection.isNull()) {
                countFull();
                return null;
            }
            ShardedCollection sharded = ShardedCollection.fromBson(collection.asDocument());
            List<Chunk> chunks = new ArrayList<>();
            for (BsonValue chunk : reply.getArray("chunks")) {
                chunks.add(Chunk.fromBson(chunk.asDocument()));
            }
            boolean full = reply.getBoolean("full", BsonBoolean.FALSE).getValue();
            if (base != null && !full) {
                boolean sameEpoch = sharded.epoch().equals(base.collection().epoch()) && sharded.timestamp().equals(base.collection().timestamp());
                if (!sameEpoch) {
                    return load(null); // a partial answer for another epoch is useless: start over
                }
                try {
                    RoutingTable next = base.withChanges(chunks).withCollection(sharded);
                    incremental.incrementAndGet();
                    incrementalRefreshes.increment();
                    return next;
                } catch (IllegalArgumentException e) {
                    log.warn("incremental refresh of {} did not fit the cached table ({}); reloading in full", namespace, e.getMessage());
                    return load(null);
                }
            }
            RoutingTable fresh = RoutingTable.of(sharded, chunks);
            countFull();
            return fresh;
        }

        private void countFull() {
            full.incrementAndGet();
            fullRefreshes.increment();
        }
    }
}
