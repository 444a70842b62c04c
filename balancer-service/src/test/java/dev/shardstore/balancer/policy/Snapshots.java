package dev.shardstore.balancer.policy;

import dev.shardstore.contracts.balancer.BalancerSettings;

import dev.shardstore.contracts.sharding.Chunk;
import dev.shardstore.contracts.sharding.ChunkRange;
import dev.shardstore.contracts.version.ChunkVersion;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonMaxKey;
import org.bson.BsonMinKey;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.bson.types.ObjectId;

/** Builds snapshots over a collection sharded on {@code {x: 1}} with chunks {@code [MinKey, 10), [10, 20), ..., [10k, MaxKey)}. */
final class Snapshots {
    static final String NS = "test.coll";
    static final long MB = 1024 * 1024;
    private static final ObjectId EPOCH = new ObjectId();
    /** The snapshots' {@code now}. */
    static final java.time.Instant NOW = java.time.Instant.parse("2026-01-01T12:00:00Z");

    private Snapshots() {
    }

    static BsonDocument key(int x) {
        return new BsonDocument("x", new BsonInt32(x));
    }

    static ChunkRange range(int lowOrMin, int highOrMax) {
        return new ChunkRange(bound(lowOrMin), bound(highOrMax));
    }

    /** Integer.MIN_VALUE is MinKey and Integer.MAX_VALUE is MaxKey. */
    private static BsonDocument bound(int x) {
        BsonValue value = x == Integer.MIN_VALUE ? new BsonMinKey() : x == Integer.MAX_VALUE ? new BsonMaxKey() : new BsonInt32(x);
        return new BsonDocument("x", value);
    }

    /**
     * Contiguous chunks placed by {@code shardsInOrder}: the i-th chunk is {@code [10 i, 10 (i + 1))} (the first from MinKey,
     * the last to MaxKey) on {@code shardsInOrder[i]}.
     */
    static List<Chunk> chunks(String... shardsInOrder) {
        List<Chunk> chunks = new ArrayList<>();
        for (int i = 0; i < shardsInOrder.length; i++) {
            int min = i == 0 ? Integer.MIN_VALUE : 10 * i;
            int max = i == shardsInOrder.length - 1 ? Integer.MAX_VALUE : 10 * (i + 1);
            chunks.add(new Chunk(range(min, max), shardsInOrder[i], new ChunkVersion(1, i, EPOCH, new BsonTimestamp(1, 0))));
        }
        return chunks;
    }

    /** {@code count} chunks on each listed shard, in order: {@code spread("a", 2, "b", 1)} = a, a, b. */
    static List<Chunk> spread(Object... shardThenCount) {
        List<String> order = new ArrayList<>();
        for (int i = 0; i < shardThenCount.length; i += 2) {
            for (int n = 0; n < (Integer) shardThenCount[i + 1]; n++) {
                order.add((String) shardThenCount[i]);
            }
        }
        return chunks(order.toArray(String[]::new));
    }

    static Chunk jumbo(Chunk chunk) {
        return new Chunk(chunk.range(), chunk.shard(), chunk.lastmod(), true);
    }

    static List<ShardState> shards(String... ids) {
        return java.util.Arrays.stream(ids).map(ShardState::active).toList();
    }

    static CollectionState collection(List<Chunk> chunks) {
        return collection(NS, chunks, sizesByChunkCount(chunks, MB), 128 * MB, List.of());
    }

    static CollectionState collection(String ns, List<Chunk> chunks, Map<String, Long> sizes, long maxChunkSize, List<ZoneRange> zones) {
        return new CollectionState(ns, chunks, sizes, maxChunkSize, false, zones);
    }

    /** Every chunk weighs {@code perChunk} bytes. */
    static Map<String, Long> sizesByChunkCount(List<Chunk> chunks, long perChunk) {
        Map<String, Long> sizes = new HashMap<>();
        chunks.forEach(c -> sizes.merge(c.shard(), perChunk, Long::sum));
        return sizes;
    }

    static Map<String, Long> sizes(Object... shardThenBytes) {
        Map<String, Long> sizes = new LinkedHashMap<>();
        for (int i = 0; i < shardThenBytes.length; i += 2) {
            sizes.put((String) shardThenBytes[i], ((Number) shardThenBytes[i + 1]).longValue());
        }
        return sizes;
    }

    static BalancerSettings chunkCount() {
        return new BalancerSettings(BalancerSettings.Mode.FULL, null, false, 128 * MB, BalancerSettings.Policy.CHUNK_COUNT, true, false);
    }

    static ClusterSnapshot snapshot(List<ShardState> shards, BalancerSettings settings, CollectionState... collections) {
        return new ClusterSnapshot(shards, List.of(collections), settings, LocalTime.NOON, NOW);
    }

    static ShardState inZones(String id, String... zones) {
        return new ShardState(id, false, Set.of(zones));
    }

    static ShardState draining(String id) {
        return new ShardState(id, true, Set.of());
    }
}
