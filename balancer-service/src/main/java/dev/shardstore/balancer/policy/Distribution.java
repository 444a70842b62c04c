package dev.shardstore.balancer.policy;

import dev.shardstore.contracts.balancer.BalancerSettings;

import dev.shardstore.contracts.bson.BsonOrder;
import dev.shardstore.contracts.sharding.Chunk;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A collection's chunks per shard and per zone, MongoDB's DistributionStatus (mongo/src/mongo/db/s/README.md "Auto-balancing"): which chunks
 * each shard owns, which zone each chunk is in, and the load measures the policies compare.
 */
final class Distribution {
    private final CollectionState collection;
    private final List<ShardState> shards;
    private final BalancerSettings settings;
    private final Map<String, List<Chunk>> chunksByShard = new LinkedHashMap<>();

    Distribution(CollectionState collection, List<ShardState> shards, BalancerSettings settings) {
        this.collection = collection;
        this.shards = shards.stream().sorted(Comparator.comparing(ShardState::id)).toList();
        this.settings = settings;
        for (ShardState shard : this.shards) {
            chunksByShard.put(shard.id(), new ArrayList<>());
        }
        for (Chunk chunk : collection.chunks()) {
            // a chunk on a shard no longer in config.shards still counts for its zone; it just has no ShardState
            chunksByShard.computeIfAbsent(chunk.shard(), id -> new ArrayList<>()).add(chunk);
        }
    }

    CollectionState collection() {
        return collection;
    }

    String namespace() {
        return collection.namespace();
    }

    BalancerSettings settings() {
        return settings;
    }

    /** Every shard of the cluster, ordered by id (the tie-break of every choice, so plans are deterministic). */
    List<ShardState> shards() {
        return shards;
    }

    List<Chunk> chunksOn(String shard) {
        return chunksByShard.getOrDefault(shard, List.of());
    }

    /**
     * The zone {@code chunk} lies in, {@link ZoneRange#NO_ZONE} when it overlaps no zone range, or null when it straddles a
     * zone boundary (it needs a split before it can be placed).
     */
    @Nullable String zoneOf(Chunk chunk) {
        for (ZoneRange zone : collection.zones()) {
            if (zone.contains(chunk.range())) {
                return zone.zone();
            }
            if (overlaps(zone, chunk)) {
                return null;
            }
        }
        return ZoneRange.NO_ZONE;
    }

    /** The zones of the collection's ranges, then {@link ZoneRange#NO_ZONE}. */
    List<String> zonesPlusNoZone() {
        List<String> zones = new ArrayList<>(collection.zones().stream().map(ZoneRange::zone).distinct().toList());
        zones.add(ZoneRange.NO_ZONE);
        return zones;
    }

    long chunksInZone(String shard, String zone) {
        return chunksOn(shard).stream().filter(c -> zone.equals(zoneOf(c))).count();
    }

    long totalChunksInZone(String zone) {
        return collection.chunks().stream().filter(c -> zone.equals(zoneOf(c))).count();
    }

    /** The bytes of the collection {@code shard} reported owning, empty when it did not report. */
    Optional<Long> dataSize(String shard) {
        return Optional.ofNullable(collection.dataSizeBytes().get(shard));
    }

    /**
     * The least loaded shard that may receive a chunk of {@code zone}: available this round, not draining, in the zone,
     * not {@code donor}, and measurable by {@code load} (a shard without a data size is skipped); ties go to the lower id.
     */
    Optional<ShardState> leastLoadedRecipient(String zone, String donor, Round round, LoadMeasure load) {
        return shards.stream()
                .filter(s -> round.available(s.id()) && !s.draining() && s.accepts(zone) && !s.id().equals(donor))
                .filter(s -> !load.needsDataSize() || dataSize(s.id()).isPresent())
                .min(Comparator.<ShardState>comparingLong(s -> load.of(this, s.id(), zone)).thenComparing(ShardState::id));
    }

    private static boolean overlaps(ZoneRange zone, Chunk chunk) {
        return BsonOrder.compare(zone.range().min(), chunk.range().max()) < 0
                && BsonOrder.compare(chunk.range().min(), zone.range().max()) < 0;
    }
}
