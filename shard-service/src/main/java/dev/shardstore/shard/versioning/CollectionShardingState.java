package dev.shardstore.shard.versioning;

import dev.shardstore.contracts.sharding.RoutingTable;
import dev.shardstore.shard.ShardMetrics;
import dev.shardstore.support.catalog.CoalescingCache;
import dev.shardstore.support.catalog.RoutingTableLoader;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.springframework.stereotype.Component;

/**
 * The shard's filtering metadata per collection namespace (MongoDB's CollectionShardingState): unknown (no
 * entry), unsharded, or sharded with a routing table, loaded lazily from the config service
 * ({@link RoutingTableLoader}, the router's loader too). A refresh of a known sharded entry is incremental. Concurrent
 * refreshes of one namespace coalesce into one load ({@link CoalescingCache}); {@link #markStale} (a {@code ROUTING_CHANGED} event) keeps the entry as
 * the basis of the next, incremental, refresh but makes the version check refresh before trusting it.
 * Thread-safe.
 */
@Component
public class CollectionShardingState {
    private final RoutingTableLoader loader;
    private final ShardMetrics metrics;
    private final CoalescingCache<CollectionFilteringInfo> cache = new CoalescingCache<>();

    public CollectionShardingState(RoutingTableLoader loader, ShardMetrics metrics) {
        this.loader = loader;
        this.metrics = metrics;
    }

    /** The cached entry of {@code namespace} ({@code db.coll}), empty when unknown or marked stale. */
    public Optional<CollectionFilteringInfo> cached(String namespace) {
        return cache.fresh(namespace);
    }

    /**
     * The last entry of {@code namespace}, even when marked stale (a stale mark says chunk versions may have moved,
     * not that the shard key changed); empty when unknown. Never loads.
     */
    public Optional<CollectionFilteringInfo> known(String namespace) {
        return cache.last(namespace);
    }

    /**
     * Loads {@code namespace}'s entry from the config service (joining a load already in progress), incrementally
     * when a sharded entry is cached, and caches it.
     *
     * @throws dev.shardstore.contracts.error.CommandException when the config service cannot answer
     */
    public CollectionFilteringInfo refresh(String namespace) {
        CollectionFilteringInfo info = cache.refresh(namespace, previous -> {
            metrics.collectionRefresh();
            RoutingTable table = loader.load(namespace, previous == null ? null : previous.routingTable()).table();
            return table == null ? CollectionFilteringInfo.UNSHARDED : new CollectionFilteringInfo(table);
        });
        return Objects.requireNonNull(info);
    }

    /** The cached entry, or a fresh load when there is none or it is marked stale. */
    public CollectionFilteringInfo get(String namespace) {
        return cached(namespace).orElseGet(() -> refresh(namespace));
    }

    /** Marks {@code namespace}'s entry stale: the next versioned command refreshes it first. */
    public void markStale(String namespace) {
        cache.markStale(namespace);
    }

    /** Whether {@code namespace}'s entry is marked stale. */
    public boolean isStale(String namespace) {
        return cache.isStale(namespace);
    }

    /** A sorted copy of the entries, stale ones included, for the {@code shardingState} endpoint. */
    public Map<String, CollectionFilteringInfo> snapshot() {
        return cache.snapshot();
    }
}
