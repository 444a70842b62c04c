package dev.shardstore.contracts.sharding;

import dev.shardstore.contracts.error.CommandException;
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
import org.bson.BsonTimestamp;
import org.jspecify.annotations.Nullable;

/**
 * An immutable routing table of one sharded collection (MongoDB's {@code ChunkManager}): its chunks sorted by
 * range, covering the whole key space from {@link ShardKeyPattern#globalMin} to {@link ShardKeyPattern#globalMax}
 * without gaps or overlaps, with the collection version (highest chunk version) and each shard's version (its
 * highest chunk version). Routers use it to target shards, shards as their filtering metadata.
 *
 * <p>Lookups binary-search the chunks' encoded lower bounds: {@link #findChunk} is O(log n). In a table of a
 * million chunks the time goes to cache misses, so the search is laid out for the cache: the first 24 bytes of
 * each bound are kept packed in one {@code long[]} (three longs per bound, zero-padded) and compared first, so a
 * step reads one cache line instead of following a pointer to a separate {@code byte[]} (only bounds whose first
 * 24 bytes tie with the key are compared in full; 24 bytes hold an int64 or hashed key, an ObjectId, or a
 * country code and a 12-character name); and the search first runs over every 32nd bound's prefix, a block index
 * small enough to stay in the CPU cache, then within one 32-bound block. Measured in docs/benchmarks.md
 * ("Routing table").
 *
 * <p>{@link #withChanges} applies an incremental refresh (only chunks newer than the cached collection version,
 * mongo/src/mongo/db/s/README.md "Types of refreshes") in O(k log n) searches plus block copies of the untouched runs (no
 * per-chunk work on them, no re-encoding).
 *
 * <p>{@link #atClusterTime} gives the placement at a past cluster time from the chunks' histories (MongoDB's
 * {@code ChunkManager} at an {@code atClusterTime}; mongo/src/mongo/db/s/README.md "The historical routing table"),
 * for reads at a snapshot: the same ranges on the shards that owned them then, with today's versions.
 */
public final class RoutingTable {
    /** Longs of packed prefix per bound (24 bytes; see the class comment). */
    private static final int PREFIX_LONGS = 3;
    /** Bounds per entry of the block index: 1,000,000 chunks give a 750 KB index and 32-bound (768 B) blocks. */
    private static final int BLOCK = 32;

    private final ShardedCollection collection;
    private final Chunk[] chunks;
    private final byte[][] mins;
    /** {@code prefixes[3i + j]}: bytes {@code 8j} to {@code 8j + 7} of {@code mins[i]}, big-endian, zero-padded. */
    private final long[] prefixes;
    /** The prefixes of {@code mins[0], mins[BLOCK], mins[2 BLOCK], …}: small enough to stay in the CPU cache. */
    private final long[] blockPrefixes;
    private final ChunkVersion collectionVersion;
    /** Today's version of each shard that owns a chunk today. */
    private final Map<String, ChunkVersion> shardVersions;
    /** The shards owning a chunk of this table, sorted: those of {@link #shardVersions}, or of a past placement. */
    private final List<String> owners;
    /** At or after the newest placement of any chunk (a bound, not exact after {@link #withChanges}); null: no history. */
    private final @Nullable BsonTimestamp newestPlacement;
    /** The cluster time this table's placement is of, when {@link #atClusterTime} made it; null: today's. */
    private final @Nullable BsonTimestamp placementTime;
    /**
     * The placement {@link #atClusterTime} derived last, kept so that the statements of one snapshot (a transaction's,
     * a cursor's batches), which all ask for the same time, pay the pass over the chunks once. Racy by design: a
     * lost update only derives again.
     */
    private volatile @Nullable RoutingTable lastDerived;

    private RoutingTable(ShardedCollection collection, Chunk[] chunks, byte[][] mins, long[] prefixes,
            Map<String, ChunkVersion> shardVersions) {
        this(collection, chunks, mins, prefixes, shardVersions, shardVersions.keySet(), newestPlacement(chunks, null), null);
    }

    private RoutingTable(ShardedCollection collection, Chunk[] chunks, byte[][] mins, long[] prefixes,
            Map<String, ChunkVersion> shardVersions, Collection<String> owners, @Nullable BsonTimestamp newestPlacement,
            @Nullable BsonTimestamp placementTime) {
        this.collection = collection;
        this.owners = owners.stream().sorted().toList();
        this.newestPlacement = newestPlacement;
        this.placementTime = placementTime;
        this.chunks = chunks;
        this.mins = mins;
        this.prefixes = prefixes;
        this.blockPrefixes = new long[(mins.length + BLOCK - 1) / BLOCK * PREFIX_LONGS];
        for (int b = 0; b < blockPrefixes.length / PREFIX_LONGS; b++) {
            System.arraycopy(prefixes, b * BLOCK * PREFIX_LONGS, blockPrefixes, b * PREFIX_LONGS, PREFIX_LONGS);
        }
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
        TreeMap<byte[], Chunk> sorted = sortByMin(collection, chunks);
        Chunk[] array = sorted.values().toArray(Chunk[]::new);
        byte[][] mins = sorted.keySet().toArray(byte[][]::new);
        long[] prefixes = new long[mins.length * PREFIX_LONGS];
        for (int i = 0; i < mins.length; i++) {
            setPrefix(prefixes, i, mins[i]);
        }
        checkStart(key, array, mins);
        for (int i = 0; i < array.length; i++) {
            checkLink(key, array, mins, i);
        }
        Map<String, ChunkVersion> versions = new HashMap<>();
        for (Chunk c : array) {
            versions.merge(c.shard(), c.lastmod(), RoutingTable::newer);
        }
        return new RoutingTable(collection, array, mins, prefixes, versions);
    }

    /**
     * This table's chunks under {@code current}, the collection entry an incremental refresh read with them: the
     * entry's own fields can change without a new epoch ({@code collMod}'s {@code timeseriesFields}, balancing
     * settings), and routers and shards must use the current ones (mongo/src/mongo/db/s/README_timeseries.md "Sharding metadata").
     *
     * @throws IllegalArgumentException when {@code current} is another collection, epoch, timestamp or shard key (the
     *                                  caller must then do a full refresh)
     */
    public RoutingTable withCollection(ShardedCollection current) {
        if (current.equals(collection)) {
            return this;
        }
        if (!current.uuid().equals(collection.uuid()) || !current.epoch().equals(collection.epoch())
                || !current.timestamp().equals(collection.timestamp()) || !current.key().equals(collection.key())) {
            throw new IllegalArgumentException("collection entry of " + current.namespace() + " is of another instance, epoch or key");
        }
        requireToday();
        return new RoutingTable(current, chunks, mins, prefixes, shardVersions, owners, newestPlacement, null);
    }

    /**
     * This table with {@code changed} chunks (all newer than {@link #collectionVersion}, same epoch) replacing
     * the chunks they overlap: the result of a split, merge or migration commit.
     *
     * @throws IllegalArgumentException when a changed chunk is of another epoch, two start at the same key, or the
     *                                  result has a gap or overlap (the caller must then do a full refresh)
     */
    public RoutingTable withChanges(Collection<Chunk> changed) {
        requireToday();
        if (changed.isEmpty()) {
            return this;
        }
        ShardKeyPattern key = collection.key();
        TreeMap<byte[], Chunk> sorted = sortByMin(collection, changed);
        Chunk[] added = sorted.values().toArray(Chunk[]::new);
        byte[][] addedMins = sorted.keySet().toArray(byte[][]::new);

        // First pass: the old chunks [from[i], to[i]) that added[i] replaces. An old chunk straddling a changed
        // range's start or end is dropped too; the gap or overlap that leaves is caught by the seam checks below.
        int[] from = new int[added.length];
        int[] to = new int[added.length];
        Set<String> lost = new HashSet<>();
        int next = 0; // first old chunk not yet kept or replaced
        int replaced = 0;
        for (int i = 0; i < added.length; i++) {
            byte[] high = encode(key, added[i].range().max());
            int first = Math.max(next, indexOf(addedMins[i]));
            int last = first;
            while (last < chunks.length && Arrays.compareUnsigned(mins[last], high) < 0) {
                lost.add(chunks[last].shard());
                last++;
            }
            from[i] = first;
            to[i] = last;
            replaced += last - first;
            next = last;
        }

        // Second pass: block-copy the kept runs around the added chunks.
        int size = chunks.length - replaced + added.length;
        Chunk[] array = new Chunk[size];
        byte[][] newMins = new byte[size][];
        long[] newPrefixes = new long[size * PREFIX_LONGS];
        int[] seams = new int[2 * added.length];
        int out = 0;
        next = 0;
        for (int i = 0; i < added.length; i++) {
            out = copyKept(next, from[i], array, newMins, newPrefixes, out);
            seams[2 * i] = out - 1; // the chunk before added[i] must end where it starts
            seams[2 * i + 1] = out; // added[i] must end where the next chunk starts
            array[out] = added[i];
            newMins[out] = addedMins[i];
            setPrefix(newPrefixes, out, addedMins[i]);
            out++;
            next = to[i];
        }
        copyKept(next, chunks.length, array, newMins, newPrefixes, out);
        checkStart(key, array, newMins);
        for (int i : seams) {
            checkLink(key, array, newMins, i);
        }

        Map<String, ChunkVersion> versions = new HashMap<>(shardVersions);
        Set<String> gained = new HashSet<>();
        for (Chunk c : added) {
            gained.add(c.shard());
            versions.merge(c.shard(), c.lastmod(), RoutingTable::newer);
        }
        lost.removeAll(gained);
        for (String shard : lost) { // rare (a donor that received nothing): recompute from its remaining chunks
            versions.remove(shard);
            for (Chunk c : array) {
                if (c.shard().equals(shard)) {
                    versions.merge(shard, c.lastmod(), RoutingTable::newer);
                }
            }
        }
        return new RoutingTable(collection, array, newMins, newPrefixes, versions, versions.keySet(),
                newestPlacement(added, newestPlacement), null);
    }

    /**
     * This collection's placement at cluster time {@code at}: each chunk on the shard that owned its range then
     * ({@link Chunk#placementAt}), {@link #shards} those shards; {@link #shardVersion} stays today's, the version a
     * request is checked against. {@code this} when no chunk changed shards after {@code at}; otherwise one pass over
     * the chunks (no re-encoding), so a snapshot read soon after a migration pays O(n), once per time asked for last.
     *
     * @throws CommandException StaleChunkHistory (183) when a chunk's kept history does not reach back to {@code at}
     *                          (older than {@code minSnapshotHistoryWindowInSeconds}, or before a merge or the
     *                          collection's sharding)
     */
    public RoutingTable atClusterTime(BsonTimestamp at) {
        Objects.requireNonNull(at, "at");
        if (placementTime != null) {
            if (placementTime.equals(at)) {
                return this;
            }
            throw new IllegalStateException("the routing table of " + namespace() + " is already the placement at " + placementTime);
        }
        if (newestPlacement == null || Long.compareUnsigned(newestPlacement.getValue(), at.getValue()) <= 0) {
            return this;
        }
        RoutingTable last = lastDerived;
        if (last != null && at.equals(last.placementTime)) {
            return last;
        }
        Chunk[] placed = new Chunk[chunks.length];
        Set<String> then = new HashSet<>();
        for (int i = 0; i < chunks.length; i++) {
            placed[i] = chunks[i].placementAt(at);
            then.add(placed[i].shard());
        }
        RoutingTable derived = new RoutingTable(collection, placed, mins, prefixes, shardVersions, then, newestPlacement, at);
        lastDerived = derived;
        return derived;
    }

    /**
     * Whether {@code shard} owned other ranges at cluster time {@code at} than it owns today, or some chunk's history
     * cannot say (merged since): a write of a transaction reading at {@code at} on that shard would act on a placement
     * that is no longer the shard's.
     */
    public boolean placementChangedSince(String shard, BsonTimestamp at) {
        if (newestPlacement == null || Long.compareUnsigned(newestPlacement.getValue(), at.getValue()) <= 0) {
            return false;
        }
        for (Chunk c : chunks) {
            BsonTimestamp placed = c.placedAt();
            if (placed == null || Long.compareUnsigned(placed.getValue(), at.getValue()) <= 0) {
                continue;
            }
            String then;
            try {
                then = c.placementAt(at).shard();
            } catch (CommandException e) {
                return true;
            }
            if (then.equals(shard) != c.shard().equals(shard)) {
                return true;
            }
        }
        return false;
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

    /** The highest chunk version of the collection (mongo/src/mongo/db/s/README.md "Collection version"). */
    public ChunkVersion collectionVersion() {
        return collectionVersion;
    }

    /**
     * The highest chunk version on {@code shard} (mongo/src/mongo/db/s/README.md "Shard version"); {@code 0|0} with the collection's
     * epoch and timestamp for a shard that owns no chunk, as MongoDB reports it.
     */
    public ChunkVersion shardVersion(String shard) {
        ChunkVersion v = shardVersions.get(shard);
        return v != null ? v : new ChunkVersion(0, 0, collection.epoch(), collection.timestamp());
    }

    /**
     * {@code shard}'s version of a collection whose routing table is {@code table}: {@link #shardVersion} when sharded,
     * {@link ChunkVersion#UNSHARDED} when there is no table — the collection is unsharded, or was dropped (reference:
     * "Types of operations that will cause the versioning information to become stale": dropping a collection sets its
     * version and epoch to the unsharded convention).
     */
    public static ChunkVersion versionOf(@Nullable RoutingTable table, String shard) {
        return table == null ? ChunkVersion.UNSHARDED : table.shardVersion(shard);
    }

    /** The shards that own at least one chunk (of the placement at {@link #atClusterTime}'s time, for such a table), sorted. */
    public List<String> shards() {
        return owners;
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

    /**
     * The encoded key ranges of the chunks {@code shard} does not own, in key order, adjacent ones merged: what the shard
     * holds there is orphaned. A range that reaches the last chunk is {@link KeyRange#toTop}, so the ranges and
     * {@link #owns} agree on every key, MaxKey included. Empty when the shard owns every chunk.
     */
    public List<KeyRange> unowned(String shard) {
        List<KeyRange> ranges = new ArrayList<>();
        byte[] low = null;
        for (int i = 0; i < chunks.length; i++) {
            boolean others = !chunks[i].shard().equals(shard);
            if (others && low == null) {
                low = mins[i];
            } else if (!others && low != null) {
                ranges.add(new KeyRange(low, mins[i]));
                low = null;
            }
        }
        if (low != null) {
            ranges.add(KeyRange.toTop(low));
        }
        return ranges;
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

    /** Index of the last chunk whose min is at or below {@code key} (0 for a key below every min). */
    private int indexOf(byte[] key) {
        long key0 = prefix(key, 0);
        long key1 = prefix(key, Long.BYTES);
        long key2 = prefix(key, 2 * Long.BYTES);
        // first the block (its first bound at or below the key), in the small block index
        int lo = 0;
        int hi = blockPrefixes.length / PREFIX_LONGS - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (compareBound(blockPrefixes, mid, mid * BLOCK, key0, key1, key2, key) <= 0) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        // then the bound within the block
        hi = Math.min((lo + 1) * BLOCK, mins.length) - 1;
        lo = lo * BLOCK;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (compareBound(prefixes, mid, mid, key0, key1, key2, key) <= 0) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }

    /**
     * Compares bound {@code i}, whose packed prefix is at {@code slot} of {@code packed}, with the key. Unequal
     * zero-padded prefixes order the bounds as their bytes do; only a tie needs the whole bound.
     */
    private int compareBound(long[] packed, int slot, int i, long key0, long key1, long key2, byte[] key) {
        int at = slot * PREFIX_LONGS;
        int c = Long.compareUnsigned(packed[at], key0);
        if (c == 0) {
            c = Long.compareUnsigned(packed[at + 1], key1);
            if (c == 0) {
                c = Long.compareUnsigned(packed[at + 2], key2);
                if (c == 0) {
                    c = Arrays.compareUnsigned(mins[i], key);
                }
            }
        }
        return c;
    }

    /** Copies the old chunks {@code [from, to)} to position {@code out} of the new arrays; returns the next position. */
    private int copyKept(int from, int to, Chunk[] outChunks, byte[][] outMins, long[] outPrefixes, int out) {
        int n = to - from;
        System.arraycopy(chunks, from, outChunks, out, n);
        System.arraycopy(mins, from, outMins, out, n);
        System.arraycopy(prefixes, from * PREFIX_LONGS, outPrefixes, out * PREFIX_LONGS, n * PREFIX_LONGS);
        return out + n;
    }

    private static void setPrefix(long[] prefixes, int i, byte[] bound) {
        for (int j = 0; j < PREFIX_LONGS; j++) {
            prefixes[i * PREFIX_LONGS + j] = prefix(bound, j * Long.BYTES);
        }
    }

    /** Bytes {@code [from, from + 8)} of {@code bytes} as a big-endian long, missing bytes as 0. */
    private static long prefix(byte[] bytes, int from) {
        long v = 0;
        for (int i = from; i < from + Long.BYTES; i++) {
            v = (v << Byte.SIZE) | (i < bytes.length ? bytes[i] & 0xFF : 0);
        }
        return v;
    }

    /** The newest {@link Chunk#placedAt} of {@code chunks} and {@code bound}; null when none has one. */
    private static @Nullable BsonTimestamp newestPlacement(Chunk[] chunks, @Nullable BsonTimestamp bound) {
        BsonTimestamp newest = bound;
        for (Chunk c : chunks) {
            BsonTimestamp placed = c.placedAt();
            if (placed != null && (newest == null || Long.compareUnsigned(placed.getValue(), newest.getValue()) > 0)) {
                newest = placed;
            }
        }
        return newest;
    }

    private void requireToday() {
        if (placementTime != null) {
            throw new IllegalStateException("the placement of " + namespace() + " at " + placementTime + " is not refreshed");
        }
    }

    private static ChunkVersion newer(ChunkVersion a, ChunkVersion b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    /**
     * The chunks keyed by their encoded min, checking each one's epoch.
     *
     * @throws IllegalArgumentException on another epoch, a bound not of the pattern, or two chunks with one min
     */
    private static TreeMap<byte[], Chunk> sortByMin(ShardedCollection collection, Collection<Chunk> chunks) {
        TreeMap<byte[], Chunk> sorted = new TreeMap<>(Arrays::compareUnsigned);
        for (Chunk c : chunks) {
            checkEpoch(collection, c);
            if (sorted.put(encode(collection.key(), c.range().min()), c) != null) {
                throw new IllegalArgumentException("two chunks of " + collection.namespace() + " start at " + c.range().min().toJson());
            }
        }
        return sorted;
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
