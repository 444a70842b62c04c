package dev.shardstore.contracts.sharding;

import static dev.shardstore.contracts.sharding.ShardingFixtures.EPOCH;
import static dev.shardstore.contracts.sharding.ShardingFixtures.TIMESTAMP;
import static dev.shardstore.contracts.sharding.ShardingFixtures.chunk;
import static dev.shardstore.contracts.sharding.ShardingFixtures.doc;
import static dev.shardstore.contracts.sharding.ShardingFixtures.version;
import static dev.shardstore.contracts.sharding.ShardingFixtures.x;
import static dev.shardstore.contracts.sharding.ShardingFixtures.xMax;
import static dev.shardstore.contracts.sharding.ShardingFixtures.xMin;
import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.bson.BsonOrder;
import dev.shardstore.contracts.version.ChunkVersion;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonMaxKey;
import org.bson.BsonMinKey;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Random splits, merges and moves on a collection sharded on {@code {x: 1}}, with the chunk versions the
 * config service gives them (docs/sharding-protocol.md, "Version rules"). After each batch of catalog changes
 * the previous table takes an incremental refresh (the chunks newer than its collection version, in random
 * order) and a second table is rebuilt from the whole catalog; both must hold exactly the catalog's chunks, the
 * same versions as a direct computation over the catalog, and route random keys as a linear scan does.
 */
class RoutingTableRandomizedTest {
    private static final ShardedCollection COLL = ShardingFixtures.collection(ShardingFixtures.X_KEY);
    private static final List<String> SHARDS = List.of("s0", "s1", "s2", "s3");
    /** Finite bounds lie strictly inside; MinKey and MaxKey stand for the ends. */
    private static final long LOWEST = -1_000_000;
    private static final long HIGHEST = 1_000_000;
    private static final int STEPS = 150;

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 20261121})
    void incrementalRefreshesMatchFullRebuilds(long seed) {
        Random random = new Random(seed);
        List<Chunk> catalog = initialChunks(random);
        RoutingTable table = RoutingTable.of(COLL, shuffled(catalog, random));
        assertMatchesCatalog(table, catalog, random);
        for (int step = 0; step < STEPS; step++) {
            int operations = random.nextInt(4); // 0 to 3 catalog changes between two refreshes
            for (int op = 0; op < operations; op++) {
                switch (random.nextInt(3)) {
                    case 0 -> split(catalog, random);
                    case 1 -> merge(catalog, random);
                    default -> move(catalog, random);
                }
            }
            ChunkVersion cached = table.collectionVersion();
            List<Chunk> newer = catalog.stream().filter(c -> c.lastmod().compareTo(cached) > 0).toList();
            RoutingTable incremental = table.withChanges(shuffled(newer, random));
            RoutingTable rebuilt = RoutingTable.of(COLL, shuffled(catalog, random));
            assertMatchesCatalog(incremental, catalog, random);
            assertMatchesCatalog(rebuilt, catalog, random);
            table = incremental;
        }
    }

    /**
     * Lookups compare the first 16 bytes of the bounds before the whole bounds: string bounds that share long
     * prefixes, are prefixes of each other, or hold bytes 0x00 and 0x01 (escaped by KeyString) must still route as
     * a linear scan in BSON order does.
     */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {7, 8, 9})
    void lookupsMatchALinearScanForKeysSharingLongPrefixes(long seed) {
        Random random = new Random(seed);
        TreeSet<String> bounds = new TreeSet<>(BsonOrder::compareStrings);
        while (bounds.size() < 300) {
            bounds.add(randomString(random));
        }
        List<String> mins = new ArrayList<>(bounds);
        ShardedCollection coll = ShardingFixtures.collection(new BsonDocument("s", new BsonInt32(1)));
        List<Chunk> chunks = new ArrayList<>();
        chunks.add(chunk(doc("s", new BsonMinKey()), doc("s", new BsonString(mins.getFirst())), "s0", version(1, 0)));
        for (int i = 0; i < mins.size(); i++) {
            BsonValue max = i + 1 < mins.size() ? new BsonString(mins.get(i + 1)) : new BsonMaxKey();
            chunks.add(chunk(doc("s", new BsonString(mins.get(i))), doc("s", max), SHARDS.get(random.nextInt(SHARDS.size())), version(1, i + 1)));
        }
        RoutingTable table = RoutingTable.of(coll, shuffled(chunks, random));
        for (int i = 0; i < 3000; i++) {
            String key = i % 3 == 0 ? mins.get(random.nextInt(mins.size())) : randomString(random);
            int expected = 0;
            for (int j = 0; j < mins.size(); j++) {
                if (BsonOrder.compareStrings(mins.get(j), key) <= 0) {
                    expected = j + 1;
                }
            }
            assertThat(table.findChunk(coll.key().encode(doc("s", new BsonString(key))))).as("%s", key).isEqualTo(chunks.get(expected));
        }
    }

    /** Strings over a tiny alphabet, most after a prefix longer than the 16 bytes the lookup compares first. */
    private static String randomString(Random random) {
        String[] prefixes = {"", "s", "shard-key-prefix", "shard-key-prefix-and-more"};
        char[] alphabet = {'\0', '\1', 'a', 'b', '\u00e9'};
        StringBuilder s = new StringBuilder(prefixes[random.nextInt(prefixes.length)]);
        int length = random.nextInt(6);
        for (int i = 0; i < length; i++) {
            s.append(alphabet[random.nextInt(alphabet.length)]);
        }
        return s.toString();
    }

    private static void assertMatchesCatalog(RoutingTable table, List<Chunk> catalog, Random random) {
        assertThat(table.chunks()).containsExactlyElementsOf(catalog);
        assertThat(table.collectionVersion()).isEqualTo(collectionVersion(catalog));
        for (String shard : SHARDS) {
            assertThat(table.shardVersion(shard)).as(shard).isEqualTo(shardVersion(catalog, shard));
        }
        assertThat(table.shards()).containsExactlyElementsOf(SHARDS.stream().filter(s -> owns(catalog, s)).toList());
        for (int i = 0; i < 20; i++) {
            // half of the keys are chunk lower bounds, the other half anywhere
            long key = i % 2 == 0 ? low(catalog.get(random.nextInt(catalog.size()))) : LOWEST + (long) (random.nextDouble() * (HIGHEST - LOWEST));
            Chunk expected = catalog.stream().filter(c -> low(c) <= key && key < high(c)).findFirst().orElseThrow();
            assertThat(table.findChunk(COLL.key().encode(x(key)))).as("x = %d", key).isEqualTo(expected);
        }
    }

    /** 1 to 30 chunks on random shards with versions 1|0, 1|1, … in key order. */
    private static List<Chunk> initialChunks(Random random) {
        int n = 1 + random.nextInt(30);
        TreeSet<Long> bounds = new TreeSet<>();
        while (bounds.size() < n - 1) {
            bounds.add(LOWEST + 1 + (long) (random.nextDouble() * (HIGHEST - LOWEST - 1)));
        }
        List<Long> points = new ArrayList<>();
        points.add(LOWEST);
        points.addAll(bounds);
        points.add(HIGHEST);
        List<Chunk> chunks = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            chunks.add(piece(points.get(i), points.get(i + 1), SHARDS.get(random.nextInt(SHARDS.size())), version(1, i)));
        }
        return chunks;
    }

    /** Protocol: base = (cv.major + 1)|0 if sv(s) == cv, else cv; the k pieces get base.minor + 1, + 2, … */
    private static void split(List<Chunk> catalog, Random random) {
        int i = random.nextInt(catalog.size());
        Chunk chunk = catalog.get(i);
        long low = low(chunk);
        long high = high(chunk);
        if (high - low < 2) {
            return;
        }
        int pieces = 2 + random.nextInt((int) Math.min(3, high - low - 1));
        TreeSet<Long> points = new TreeSet<>();
        while (points.size() < pieces - 1) {
            points.add(low + 1 + (long) (random.nextDouble() * (high - low - 1)));
        }
        ChunkVersion cv = collectionVersion(catalog);
        ChunkVersion base = shardVersion(catalog, chunk.shard()).compareTo(cv) == 0 ? version(cv.major() + 1, 0) : cv;
        List<Long> edges = new ArrayList<>(List.of(low));
        edges.addAll(points);
        edges.add(high);
        List<Chunk> replacement = new ArrayList<>();
        for (int p = 0; p < pieces; p++) {
            replacement.add(piece(edges.get(p), edges.get(p + 1), chunk.shard(), version(base.major(), base.minor() + 1 + p)));
        }
        replace(catalog, i, i + 1, replacement);
    }

    /** Protocol: the merged chunk gets (cv.major + 1)|0; the chunks must be contiguous and on one shard. */
    private static void merge(List<Chunk> catalog, Random random) {
        int from = random.nextInt(catalog.size());
        String shard = catalog.get(from).shard();
        int end = from + 1;
        while (end < catalog.size() && catalog.get(end).shard().equals(shard)) {
            end++;
        }
        if (end - from < 2) {
            return;
        }
        int to = from + 2 + random.nextInt(end - from - 1);
        ChunkVersion cv = collectionVersion(catalog);
        Chunk merged = piece(low(catalog.get(from)), high(catalog.get(to - 1)), shard, version(cv.major() + 1, 0));
        replace(catalog, from, to, List.of(merged));
    }

    /** Protocol: the moved chunk gets (cv.major + 1)|0, and maybe a chunk left on the donor (cv.major + 1)|1. */
    private static void move(List<Chunk> catalog, Random random) {
        int i = random.nextInt(catalog.size());
        Chunk chunk = catalog.get(i);
        List<String> others = SHARDS.stream().filter(s -> !s.equals(chunk.shard())).toList();
        String to = others.get(random.nextInt(others.size()));
        ChunkVersion cv = collectionVersion(catalog);
        replace(catalog, i, i + 1, List.of(piece(low(chunk), high(chunk), to, version(cv.major() + 1, 0))));
        List<Integer> left = new ArrayList<>();
        for (int j = 0; j < catalog.size(); j++) {
            if (catalog.get(j).shard().equals(chunk.shard())) {
                left.add(j);
            }
        }
        if (!left.isEmpty() && random.nextBoolean()) {
            int control = left.get(random.nextInt(left.size()));
            Chunk kept = catalog.get(control);
            replace(catalog, control, control + 1, List.of(piece(low(kept), high(kept), kept.shard(), version(cv.major() + 1, 1))));
        }
    }

    private static void replace(List<Chunk> catalog, int from, int to, List<Chunk> replacement) {
        catalog.subList(from, to).clear();
        catalog.addAll(from, replacement);
    }

    private static Chunk piece(long low, long high, String shard, ChunkVersion version) {
        return chunk(low == LOWEST ? xMin() : x(low), high == HIGHEST ? xMax() : x(high), shard, version);
    }

    private static long low(Chunk chunk) {
        return valueOf(chunk.range().min(), LOWEST);
    }

    private static long high(Chunk chunk) {
        return valueOf(chunk.range().max(), HIGHEST);
    }

    private static long valueOf(BsonDocument bound, long extreme) {
        return bound.get("x").isInt64() ? bound.getInt64("x").getValue() : extreme;
    }

    private static ChunkVersion collectionVersion(List<Chunk> catalog) {
        ChunkVersion cv = version(0, 0);
        for (Chunk c : catalog) {
            cv = c.lastmod().compareTo(cv) > 0 ? c.lastmod() : cv;
        }
        return cv;
    }

    private static ChunkVersion shardVersion(List<Chunk> catalog, String shard) {
        ChunkVersion sv = new ChunkVersion(0, 0, EPOCH, TIMESTAMP);
        for (Chunk c : catalog) {
            if (c.shard().equals(shard) && c.lastmod().compareTo(sv) > 0) {
                sv = c.lastmod();
            }
        }
        return sv;
    }

    private static boolean owns(List<Chunk> catalog, String shard) {
        return catalog.stream().anyMatch(c -> c.shard().equals(shard));
    }

    private static List<Chunk> shuffled(List<Chunk> chunks, Random random) {
        List<Chunk> copy = new ArrayList<>(chunks);
        Collections.shuffle(copy, random);
        return copy;
    }
}
