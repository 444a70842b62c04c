package dev.shardstore.contracts.sharding;

import dev.shardstore.contracts.keystring.KeyString;
import dev.shardstore.contracts.version.ChunkVersion;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import org.bson.BsonDocument;

/**
 * An immutable routing table of one sharded collection (MongoDB's {@code ChunkManager}): its chunks sorted by
 * range, covering the whole key space from {@link ShardKeyPattern#globalMin} to {@link ShardKeyPattern#globalMax}
 * without gaps or overlaps, with the collection version (highest chunk version) and each shard's version (its
 * highest chunk version). Routers use it to target shards, shards as their filtering metadata.
 *
 * <p>Lookups binary-search the chunks' encoded lower bounds: {@link #findChunk} is O(log n).
 * {@link #withChanges} applies an incremental refresh (only chunks newer than the cached collection version,
 * reference: "Types of refreshes") in O(n) array copying plus O(k log n) for k changed chunks, without
 * re-encoding the untouched chunks.
 */
public final class RoutingTable {
    private final ShardedCollection collection;
    private final Chunk[] chunks;
    private final byte[][] mins;
    private final ChunkVersion collectionVersion;
    private final Map<String, ChunkVersion> shardVersions;

    private RoutingTable(ShardedCollection collection, Chunk[] chunks, byte[][] mins, Map<String, ChunkVersion> shardVersions) {
        this.collection = collection;
        this.chunks = chunks;
        this.mins = mins;
        this.shardVersions = Map.copyOf(shardVersions);
        this.collectionVersion = shardVersions.values().stream().max(Comparator.naturalOrder()).orElseThrow();
    }

    /**
     * A routing table of {@code collection} made of {@code chunks} (any order).
     *
     * @throws IllegalArgumentException when there are no chunks, a chunk's epoch is not the collection's, a
     *                                  bound does not match the shard key pattern, or the chunks leave a gap or
     *                                  overlap (the message names the range)
     */
    public static RoutingTable of(ShardedCollection collection, Collection<Chunk> chunks) {
        Objects.requireNonNull(collection, "collection");
        if (chunks.isEmpty()) {
            throw new IllegalArgumentException("a routing table of " + collection.namespace() + " needs at least one chunk");
        }
        ShardKeyPattern key = collection.key();
        TreeMap<byte[], Chunk> sorted = new TreeMap<>(Arrays::compareUnsigned);
        for (Chunk c : chunks) {
            checkEpoch(collection, c);
            if (sorted.put(encode(key, c.range().min()), c) != null) {
                throw new IllegalArgumentException("two chunks of " + collection.namespace() + " start at " + c.range().min().toJson());
            }
        }
        Chunk[] array = sorted.values().toArray(Chunk[]::new);
        byte[][] mins = sorted.keySet().toArray(byte[][]::new);
        checkContiguous(key, array, mins, 0, array.length);
        Map<String, ChunkVersion> versions = new HashMap<>();
        for (Chunk c : array) {
            versions.merge(c.shard(), c.lastmod(), (a, b) -> a.compareTo(b) >= 0 ? a : b);
        }
        return new RoutingTable(collection, array, mins, versions);
    }

    /**
     * This table with {@code changed} chunks (all newer than {@link #collectionVersion}, same epoch) replacing
     * the chunks they overlap: the result of a split, merge or migration commit.
     *
     * @throws IllegalArgumentException when a changed chunk is of another epoch, or the result has a gap or overlap
     *                                  (the caller must then do a full refresh)
     */
    public RoutingTable withChanges(Collection<Chunk> changed) {
        if (changed.isEmpty()) {
            return this;
        }
        ShardKeyPattern key = collection.key();
        List<Chunk> added = new ArrayList<>(changed);
        List<byte[]> addedMins = new ArrayList<>();
        for (Chunk c : added) {
            checkEpoch(collection, c);
        }
        added.sort((a, b) -> Arrays.compareUnsigned(encode(key, a.range().min()), encode(key, b.range().min())));
        added.forEach(c -> addedMins.add(encode(key, c.range().min())));

        List<Chunk> outChunks = new ArrayList<>(chunks.length + added.size());
        List<byte[]> outMins = new ArrayList<>(chunks.length + added.size());
        Set<String> lost = new HashSet<>();
        List<Integer> seams = new ArrayList<>();
        int next = 0; // first old chunk not yet copied or dropped
        for (int i = 0; i < added.size(); i++) {
            byte[] low = addedMins.get(i);
            byte[] high = encode(key, added.get(i).range().max());
            int first = Math.max(next, indexOf(low));
            copy(next, first, outChunks, outMins);
            int last = first;
            while (last < chunks.length && Arrays.compareUnsigned(mins[last], high) < 0) {
                lost.add(chunks[last].shard());
                last++;
            }
            // an old chunk straddling the changed range's start would be a gap or an overlap: caught below
            seams.add(outChunks.size() - 1);
            seams.add(outChunks.size());
            outChunks.add(added.get(i));
            outMins.add(low);
            next = last;
        }
        copy(next, chunks.length, outChunks, outMins);
        Chunk[] array = outChunks.toArray(Chunk[]::new);
        byte[][] newMins = outMins.toArray(byte[][]::new);
        checkStart(key, array, newMins);
        for (int i : seams) {
            checkLink(key, array, newMins, i);
        }

        Map<String, ChunkVersion> versions = new HashMap<>(shardVersions);
        Set<String> gained = new HashSet<>();
        for (Chunk c : added) {
            gained.add(c.shard());
            versions.merge(c.shard(), c.lastmod(), (a, b) -> a.compareTo(b) >= 0 ? a : b);
        }
        lost.removeAll(gained);
        for (String shard : lost) { // rare (a donor that received nothing): recompute from its remaining chunks
            versions.remove(shard);
            for (Chunk c : array) {
                if (c.shard().equals(shard)) {
                    versions.merge(shard, c.lastmod(), (a, b) -> a.compareTo(b) >= 0 ? a : b);
                }
            }
        }
        return new RoutingTable(collection, array, newMins, versions);
    }

    public ShardedCollection collection() {
        return collection;
    }

    public String namespace() {
        return collection.namespace();
    }

    public ShardKeyPattern shardKey() {
        return collection.key();
    }

    /** The highest chunk version of the collection (reference: "Collection version"). */
    public ChunkVersion collectionVersion() {
        return collectionVersion;
    }

    /**
     * The highest chunk version on {@code shard} (reference: "Shard version"); {@code 0|0} with the collection's
     * epoch and timestamp for a shard that owns no chunk, as MongoDB reports it.
     */
    public ChunkVersion shardVersion(String shard) {
        ChunkVersion v = shardVersions.get(shard);
        return v != null ? v : new ChunkVersion(0, 0, collection.epoch(), collection.timestamp());
    }

    /** The shards that own at least one chunk, sorted. */
    public List<String> shards() {
        return shardVersions.keySet().stream().sorted().toList();
    }

    /** Number of chunks. */
    public int size() {
        return chunks.length;
    }

    /** The chunks in key order. */
    public List<Chunk> chunks() {
        return List.of(chunks);
    }

    /** The chunk whose range contains the encoded shard key {@code key}. */
    public Chunk findChunk(byte[] key) {
        return chunks[indexOf(key)];
    }

    /** The chunk that owns {@code document} (see {@link ShardKeyPattern#keyOf}). */
    public Chunk chunkFor(BsonDocument document) {
        return findChunk(collection.key().keyOf(document));
    }

    /** Whether {@code shard} owns the encoded shard key {@code key}. */
    public boolean owns(String shard, byte[] key) {
        return findChunk(key).shard().equals(shard);
    }

    /** The chunks intersecting the encoded key range {@code [low, high)}, in key order. */
    public List<Chunk> overlapping(byte[] low, byte[] high) {
        if (Arrays.compareUnsigned(low, high) >= 0) {
            return List.of();
        }
        int from = indexOf(low);
        int to = from;
        while (to < chunks.length && Arrays.compareUnsigned(mins[to], high) < 0) {
            to++;
        }
        return List.of(Arrays.copyOfRange(chunks, from, to));
    }

    /** A summary for actuator endpoints: {@code {ns, collectionVersion, chunks, shardVersions: {shard: version}}}. */
    public BsonDocument summary() {
        BsonDocument perShard = new BsonDocument();
        shards().forEach(s -> perShard.append(s, shardVersion(s).toBson()));
        return new BsonDocument("ns", new org.bson.BsonString(namespace()))
                .append("shardKey", collection.key().pattern())
                .append("collectionVersion", collectionVersion.toBson())
                .append("chunks", new org.bson.BsonInt32(chunks.length))
                .append("shardVersions", perShard);
    }

    /** Index of the last chunk whose min is at or below {@code key}. */
    private int indexOf(byte[] key) {
        int lo = 0;
        int hi = mins.length - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (Arrays.compareUnsigned(mins[mid], key) <= 0) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }

    private void copy(int from, int to, List<Chunk> outChunks, List<byte[]> outMins) {
        for (int i = from; i < to; i++) {
            outChunks.add(chunks[i]);
            outMins.add(mins[i]);
        }
    }

    private static byte[] encode(ShardKeyPattern key, BsonDocument bound) {
        try {
            return key.encode(bound);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("chunk bound " + bound.toJson() + " does not match shard key " + key.pattern().toJson(), e);
        }
    }

    private static void checkEpoch(ShardedCollection collection, Chunk c) {
        if (!c.lastmod().epoch().equals(collection.epoch()) || !c.lastmod().timestamp().equals(collection.timestamp())) {
            throw new IllegalArgumentException("chunk " + c.range() + " of " + collection.namespace() + " has version "
                    + c.lastmod() + ", not of the collection's epoch " + collection.epoch().toHexString());
        }
    }

    private static void checkContiguous(ShardKeyPattern key, Chunk[] array, byte[][] mins, int from, int to) {
        checkStart(key, array, mins);
        for (int i = from; i < to; i++) {
            checkLink(key, array, mins, i);
        }
    }

    private static void checkStart(ShardKeyPattern key, Chunk[] array, byte[][] mins) {
        if (Arrays.compareUnsigned(mins[0], key.encode(key.globalMin())) != 0) {
            throw new IllegalArgumentException("the first chunk starts at " + array[0].range().min().toJson() + ", not at MinKey");
        }
    }

    /** Checks that chunk {@code i} ends where chunk {@code i + 1} starts (the last chunk: at MaxKey); ignores i < 0. */
    private static void checkLink(ShardKeyPattern key, Chunk[] array, byte[][] mins, int i) {
        if (i < 0 || i >= array.length) {
            return;
        }
        byte[] max = i + 1 < array.length ? mins[i + 1] : key.encode(key.globalMax());
        if (Arrays.compareUnsigned(encode(key, array[i].range().max()), max) != 0) {
            throw new IllegalArgumentException("chunk " + array[i].range() + " is not followed by a chunk starting at its max"
                    + (i + 1 < array.length ? " but by " + array[i + 1].range() : " (it is the last chunk)"));
        }
    }
}
