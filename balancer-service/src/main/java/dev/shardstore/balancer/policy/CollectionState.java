package dev.shardstore.balancer.policy;

import dev.shardstore.contracts.bson.BsonOrder;
import dev.shardstore.contracts.sharding.Chunk;
import dev.shardstore.contracts.sharding.ChunkRange;
import dev.shardstore.contracts.sharding.ShardKeyPattern;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One sharded collection as a balancer round sees it: its chunks from {@code config.chunks}, its zone ranges from
 * {@code config.tags}, the bytes each shard owns of it (the shards' {@code _shardsvrDataDistribution}, MongoDB's
 * {@code _shardsvrGetStatsForBalancing}) and its balancing settings from {@code config.collections}.
 *
 * @param namespace         {@code db.coll}
 * @param chunks            every chunk of the collection (copied, sorted by {@code min})
 * @param dataSizeBytes     owned bytes per shard id; a shard missing here has not reported (copied)
 * @param maxChunkSizeBytes the collection's {@code chunkSize} (configureCollectionBalancing) or the cluster's, positive
 * @param noBalance         whether balancing is disabled for the collection ({@code configureCollectionBalancing})
 * @param zones             the collection's zone ranges (copied, sorted by {@code min}; must not overlap)
 * @param key               the shard key pattern (what {@code splitVector} walks for the auto-merger), null when unknown
 * @param enableAutoMerger  the collection's {@code enableAutoMerger} (configureCollectionBalancing; default true)
 * @param onCurrentShardSince per chunk range, since when the chunk has been on its shard (the cluster time of its history's
 *                            newest entry, MongoDB's {@code onCurrentShardSince}); a chunk missing here is never merged
 */
public record CollectionState(String namespace, List<Chunk> chunks, Map<String, Long> dataSizeBytes, long maxChunkSizeBytes,
        boolean noBalance, List<ZoneRange> zones, @Nullable ShardKeyPattern key, boolean enableAutoMerger,
        Map<ChunkRange, Instant> onCurrentShardSince) {
    /** A collection without a key pattern or chunk history: everything but the auto-merger applies to it. */
    public CollectionState(String namespace, List<Chunk> chunks, Map<String, Long> dataSizeBytes, long maxChunkSizeBytes,
            boolean noBalance, List<ZoneRange> zones) {
        this(namespace, chunks, dataSizeBytes, maxChunkSizeBytes, noBalance, zones, null, true, Map.of());
    }

    public CollectionState {
        onCurrentShardSince = Map.copyOf(Objects.requireNonNull(onCurrentShardSince, "onCurrentShardSince"));
        Objects.requireNonNull(namespace, "namespace");
        chunks = Objects.requireNonNull(chunks, "chunks").stream()
                .sorted(Comparator.comparing(c -> c.range().min(), BsonOrder::compare)).toList();
        dataSizeBytes = Map.copyOf(Objects.requireNonNull(dataSizeBytes, "dataSizeBytes"));
        if (maxChunkSizeBytes <= 0) {
            throw new IllegalArgumentException("maxChunkSizeBytes must be positive, not " + maxChunkSizeBytes);
        }
        zones = Objects.requireNonNull(zones, "zones").stream()
                .sorted(Comparator.comparing(z -> z.range().min(), BsonOrder::compare)).toList();
        for (int i = 1; i < zones.size(); i++) {
            if (BsonOrder.compare(zones.get(i - 1).range().max(), zones.get(i).range().min()) > 0) {
                throw new IllegalArgumentException("zone ranges of " + namespace + " overlap: " + zones.get(i - 1) + " and " + zones.get(i));
            }
        }
    }
}
