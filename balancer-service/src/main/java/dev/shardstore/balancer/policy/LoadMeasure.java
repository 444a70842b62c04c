package dev.shardstore.balancer.policy;

import dev.shardstore.contracts.balancer.BalancerSettings;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * How a policy measures a shard's load in a zone and when a donor/recipient pair is imbalanced enough to migrate
 * (MongoDB's {@code _singleZoneBalanceBasedOnChunks} and {@code _singleZoneBalanceBasedOnDataSize}).
 */
sealed interface LoadMeasure {
    /** The measure a {@link BalancerSettings.Policy} uses. */
    static LoadMeasure of(BalancerSettings.Policy policy) {
        return switch (policy) {
            case DATA_SIZE -> new DataSize();
            case CHUNK_COUNT -> new ChunkCount();
        };
    }

    /** {@code shard}'s load for chunks of {@code zone}. */
    long of(Distribution distribution, String shard, String zone);

    /** Whether a shard that reported no data size must be left out (it cannot be compared). */
    boolean needsDataSize();

    /** Whether imbalance moves send the whole chunk, or only its {@code min} for the donor to cut. */
    boolean wholeChunk();

    /** The ideal load per shard of {@code zone}, over {@code zoneShards} (non-empty). */
    long ideal(Distribution distribution, String zone, List<ShardState> zoneShards);

    /** Why moving from the donor to the recipient is worth it, or null when the pair is balanced enough. */
    @Nullable String imbalance(Distribution distribution, String zone, long donorLoad, long recipientLoad, long ideal);

    /**
     * Chunk count with MongoDB's migration thresholds: the pair must differ by at least 2 chunks (collection under 20
     * chunks), 4 (under 80) or 8; the donor must be above the ideal count and the recipient below it.
     */
    record ChunkCount() implements LoadMeasure {
        static int threshold(int totalChunks) {
            return totalChunks < 20 ? 2 : totalChunks < 80 ? 4 : 8;
        }

        @Override
        public long of(Distribution distribution, String shard, String zone) {
            return distribution.chunksInZone(shard, zone);
        }

        @Override
        public boolean needsDataSize() {
            return false;
        }

        @Override
        public boolean wholeChunk() {
            return true;
        }

        @Override
        public long ideal(Distribution distribution, String zone, List<ShardState> zoneShards) {
            return Math.round(distribution.totalChunksInZone(zone) / (double) zoneShards.size());
        }

        @Override
        public @Nullable String imbalance(Distribution distribution, String zone, long donorLoad, long recipientLoad, long ideal) {
            int threshold = threshold(distribution.collection().chunks().size());
            if (donorLoad <= ideal || recipientLoad >= ideal || donorLoad - recipientLoad < threshold) {
                return null;
            }
            return donorLoad + " vs " + recipientLoad + " chunks (ideal " + ideal + ") reaches the threshold of " + threshold;
        }
    }

    /**
     * Owned bytes: the donor must be above the ideal size and the recipient below it, and they must differ by at least
     * three times the collection's maximum chunk size (MongoDB ≥ 6.0.3).
     */
    record DataSize() implements LoadMeasure {
        @Override
        public long of(Distribution distribution, String shard, String zone) {
            return distribution.dataSize(shard).orElse(0L);
        }

        @Override
        public boolean needsDataSize() {
            return true;
        }

        @Override
        public boolean wholeChunk() {
            return false;
        }

        @Override
        public long ideal(Distribution distribution, String zone, List<ShardState> zoneShards) {
            return zoneShards.stream().mapToLong(s -> of(distribution, s.id(), zone)).sum() / zoneShards.size();
        }

        @Override
        public @Nullable String imbalance(Distribution distribution, String zone, long donorLoad, long recipientLoad, long ideal) {
            long threshold = 3 * distribution.collection().maxChunkSizeBytes();
            if (donorLoad <= ideal || recipientLoad >= ideal || donorLoad - recipientLoad < threshold) {
                return null;
            }
            return donorLoad + " vs " + recipientLoad + " bytes (ideal " + ideal + ") differ by at least 3 chunk sizes (" + threshold + ")";
        }
    }
}
