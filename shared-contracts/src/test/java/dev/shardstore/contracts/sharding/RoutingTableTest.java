package dev.shardstore.contracts.sharding;

import static dev.shardstore.contracts.sharding.ShardingFixtures.EPOCH;
import static dev.shardstore.contracts.sharding.ShardingFixtures.TIMESTAMP;
import static dev.shardstore.contracts.sharding.ShardingFixtures.X_KEY;
import static dev.shardstore.contracts.sharding.ShardingFixtures.chunk;
import static dev.shardstore.contracts.sharding.ShardingFixtures.version;
import static dev.shardstore.contracts.sharding.ShardingFixtures.x;
import static dev.shardstore.contracts.sharding.ShardingFixtures.xMax;
import static dev.shardstore.contracts.sharding.ShardingFixtures.xMin;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.keystring.KeyString;
import dev.shardstore.contracts.timeseries.Granularity;
import dev.shardstore.contracts.timeseries.TimeseriesOptions;
import dev.shardstore.contracts.version.ChunkVersion;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonMaxKey;
import org.bson.BsonMinKey;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The routing table on a small collection sharded on {@code {x: 1}}: validation, lookups at chunk bounds,
 * shard and collection versions, and incremental refreshes for each kind of catalog change, each checked
 * against a table rebuilt from scratch (mongo/src/mongo/db/s/README.md "Routing", "Shard versioning").
 */
class RoutingTableTest {
    private static final ShardedCollection COLL = ShardingFixtures.collection(X_KEY);
    private static final ShardKeyPattern KEY = COLL.key();

    // [MinKey, 0) A 1|0, [0, 100) A 1|1, [100, 200) B 1|2, [200, MaxKey) C 1|3
    private static final Chunk C0 = chunk(xMin(), x(0), "A", version(1, 0));
    private static final Chunk C1 = chunk(x(0), x(100), "A", version(1, 1));
    private static final Chunk C2 = chunk(x(100), x(200), "B", version(1, 2));
    private static final Chunk C3 = chunk(x(200), xMax(), "C", version(1, 3));
    private static final List<Chunk> CHUNKS = List.of(C0, C1, C2, C3);
    private static final RoutingTable TABLE = RoutingTable.of(COLL, CHUNKS);

    private static byte[] key(String xJson) {
        return KEY.encode(ExtendedJson.parse("{x: " + xJson + "}"));
    }

    private static byte[] key(long x) {
        return KEY.encode(x(x));
    }

    /** The incremental result must be the table a full refresh of the same catalog builds. */
    private static RoutingTable assertSameAsRebuilt(RoutingTable incremental) {
        List<Chunk> shuffled = new ArrayList<>(incremental.chunks());
        Collections.shuffle(shuffled, new Random(7));
        RoutingTable rebuilt = RoutingTable.of(COLL, shuffled);
        assertThat(incremental.chunks()).containsExactlyElementsOf(rebuilt.chunks());
        assertThat(incremental.collectionVersion()).isEqualTo(rebuilt.collectionVersion());
        assertThat(incremental.shards()).isEqualTo(rebuilt.shards());
        for (String shard : List.of("A", "B", "C", "D")) {
            assertThat(incremental.shardVersion(shard)).as(shard).isEqualTo(rebuilt.shardVersion(shard));
        }
        return incremental;
    }

    @Test
    void withCollectionTakesTheCurrentEntryOfTheSameInstanceAndRefusesAnother() {
        RoutingTable table = RoutingTable.of(COLL, List.of(C3, C1, C0, C2));
        ShardedCollection modified = new ShardedCollection(COLL.namespace(), COLL.uuid(), COLL.epoch(), COLL.timestamp(), COLL.key(),
                false, false, TimeseriesOptions.of("t", null, Granularity.HOURS));

        RoutingTable current = table.withCollection(modified);

        assertThat(current.collection()).isEqualTo(modified);
        assertThat(current.chunks()).isEqualTo(table.chunks());
        assertThat(current.collectionVersion()).isEqualTo(table.collectionVersion());
        assertThat(current.chunkFor(x(5))).isEqualTo(table.chunkFor(x(5)));
        assertThat(table.withCollection(COLL)).isSameAs(table);
        ShardedCollection otherEpoch = new ShardedCollection(COLL.namespace(), COLL.uuid(), new ObjectId(), COLL.timestamp(), COLL.key(),
                false, false);
        assertThatThrownBy(() -> table.withCollection(otherEpoch)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void ofSortsChunksGivenInAnyOrder() {
        RoutingTable table = RoutingTable.of(COLL, List.of(C3, C1, C0, C2));
        assertThat(table.chunks()).containsExactly(C0, C1, C2, C3);
        assertThat(table.size()).isEqualTo(4);
        assertThat(table.namespace()).isEqualTo("db.coll");
        assertThat(table.collection()).isEqualTo(COLL);
        assertThat(table.shardKey()).isEqualTo(KEY);
    }

    @Test
    void aSingleChunkCoversEverything() {
        RoutingTable table = RoutingTable.of(COLL, List.of(chunk(xMin(), xMax(), "A", version(1, 0))));
        assertThat(table.findChunk(key("{$minKey: 1}")).shard()).isEqualTo("A");
        assertThat(table.findChunk(key("'z'")).shard()).isEqualTo("A");
        assertThat(table.collectionVersion()).isEqualTo(version(1, 0));
    }

    @ParameterizedTest(name = "x = {0} is in chunk {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
        "{$minKey: 1}|0", "null|0", "{$numberLong: '-9223372036854775808'}|0", "-1|0", "-0.5|0",
        "0|1", "-0.0|1", "0.0|1", "99|1", "99.999|1",
        "100|2", "{$numberDecimal: '100.0'}|2", "199|2",
        "200|3", "{$numberLong: '9223372036854775807'}|3", "1e300|3", "'a string'|3", "{a: 1}|3"})
    void findChunkIncludesTheMinAndExcludesTheMax(String x, int chunk) {
        assertThat(TABLE.findChunk(key(x))).isEqualTo(CHUNKS.get(chunk));
    }

    @Test
    void chunkForAndOwnsUseTheDocumentsShardKey() {
        assertThat(TABLE.chunkFor(ExtendedJson.parse("{x: 150, y: 1}"))).isEqualTo(C2);
        assertThat(TABLE.chunkFor(new BsonDocument("y", new BsonString("no x")))).as("missing is null, below numbers").isEqualTo(C0);
        assertThat(TABLE.owns("B", key(100))).isTrue();
        assertThat(TABLE.owns("A", key(100))).isFalse();
        assertThat(TABLE.owns("A", key(99))).isTrue();
    }

    /**
     * The unowned ranges agree with {@link RoutingTable#owns} on every probe, chunk bounds, MinKey and MaxKey included;
     * adjacent chunks of other shards are one range, and the range that reaches the last chunk is open above.
     */
    @Test
    void unownedRangesAreWhereOwnsSaysNo() {
        assertThat(TABLE.unowned("A")).containsExactly(new KeyRange(key(100), KeyString.aboveEveryKey()));
        assertThat(TABLE.unowned("B")).containsExactly(new KeyRange(KEY.encode(xMin()), key(100)),
                new KeyRange(key(200), KeyString.aboveEveryKey()));
        assertThat(TABLE.unowned("C")).containsExactly(new KeyRange(KEY.encode(xMin()), key(200)));
        assertThat(TABLE.unowned("D")).containsExactly(new KeyRange(KEY.encode(xMin()), KeyString.aboveEveryKey()));
        RoutingTable onlyA = RoutingTable.of(COLL, List.of(chunk(xMin(), xMax(), "A", version(1, 0))));
        assertThat(onlyA.unowned("A")).isEmpty();

        List<byte[]> probes = new ArrayList<>(List.of(KEY.encode(xMin()), KEY.encode(xMax()), key("null"), key("'a string'")));
        for (long x : new long[] {-1, 0, 1, 99, 100, 101, 199, 200, 201}) {
            probes.add(key(x));
        }
        for (String shard : List.of("A", "B", "C", "D")) {
            for (byte[] probe : probes) {
                boolean orphan = TABLE.unowned(shard).stream().anyMatch(r -> r.contains(probe));
                assertThat(orphan).as("%s at %s", shard, Arrays.toString(probe)).isEqualTo(!TABLE.owns(shard, probe));
            }
        }
    }

    static Stream<Arguments> ranges() {
        return Stream.of(
                Arguments.of(key(50), key(150), List.of(C1, C2)),
                Arguments.of(key(100), key(200), List.of(C2)),
                Arguments.of(key(0), key(100), List.of(C1)),
                Arguments.of(key(99), key(101), List.of(C1, C2)),
                Arguments.of(key(100), key(101), List.of(C2)),
                Arguments.of(key(-5), key(250), List.of(C0, C1, C2, C3)),
                Arguments.of(KEY.encode(KEY.globalMin()), KEY.encode(KEY.globalMax()), List.of(C0, C1, C2, C3)),
                Arguments.of(key(250), KEY.encode(KEY.globalMax()), List.of(C3)),
                Arguments.of(key(150), key(150), List.of()),
                Arguments.of(key(200), key(100), List.of()));
    }

    @ParameterizedTest
    @MethodSource("ranges")
    void overlappingReturnsTheChunksIntersectingAHalfOpenRange(byte[] low, byte[] high, List<Chunk> expected) {
        assertThat(TABLE.overlapping(low, high)).containsExactlyElementsOf(expected);
    }

    @Test
    void versionsAreTheHighestChunkVersionPerShardAndOverall() {
        assertThat(TABLE.shardVersion("A")).isEqualTo(version(1, 1));
        assertThat(TABLE.shardVersion("B")).isEqualTo(version(1, 2));
        assertThat(TABLE.shardVersion("C")).isEqualTo(version(1, 3));
        assertThat(TABLE.collectionVersion()).isEqualTo(version(1, 3));
        assertThat(TABLE.shards()).containsExactly("A", "B", "C");
    }

    @Test
    void aShardWithoutChunksHasVersionZeroOfTheCollectionsEpoch() {
        ChunkVersion none = TABLE.shardVersion("D");
        assertThat(none).isEqualTo(new ChunkVersion(0, 0, EPOCH, TIMESTAMP));
        assertThat(none).isNotEqualTo(ChunkVersion.UNSHARDED);
    }

    @Test
    void summaryListsVersionsPerShard() {
        BsonDocument summary = TABLE.summary();
        assertThat(summary.getString("ns").getValue()).isEqualTo("db.coll");
        assertThat(summary.getDocument("shardKey")).isEqualTo(X_KEY);
        assertThat(summary.getInt32("chunks").getValue()).isEqualTo(4);
        assertThat(summary.getDocument("collectionVersion")).isEqualTo(version(1, 3).toBson());
        assertThat(summary.getDocument("shardVersions").keySet()).containsExactly("A", "B", "C");
        assertThat(summary.getDocument("shardVersions").getDocument("B")).isEqualTo(version(1, 2).toBson());
    }

    static Stream<Arguments> invalidTables() {
        ChunkVersion otherEpoch = new ChunkVersion(1, 0, new ObjectId(), TIMESTAMP);
        ChunkVersion otherTimestamp = new ChunkVersion(1, 0, EPOCH, new BsonTimestamp(1, 1));
        return Stream.of(
                Arguments.of("empty", List.of(), "at least one chunk"),
                Arguments.of("gap", List.of(C0, C1, C3), "[{\"x\": 0}, {\"x\": 100}) is not followed by a chunk starting at its max"),
                Arguments.of("overlap", List.of(C0, chunk(x(0), x(150), "A", version(1, 1)), C2, C3), "is not followed"),
                Arguments.of("same start", List.of(C0, C1, chunk(x(0), x(50), "B", version(1, 5)), C2, C3), "two chunks"),
                Arguments.of("no MinKey start", List.of(C1, C2, C3), "not at MinKey"),
                Arguments.of("no MaxKey end", List.of(C0, C1, C2), "it is the last chunk"),
                Arguments.of("epoch", List.of(C0, C1, C2, chunk(x(200), xMax(), "C", otherEpoch)), "not of the collection's epoch"),
                Arguments.of("timestamp", List.of(C0, C1, C2, chunk(x(200), xMax(), "C", otherTimestamp)), "not of the collection's epoch"),
                Arguments.of("bound of another key", List.of(chunk(ShardingFixtures.doc("y", new BsonMinKey()),
                        ShardingFixtures.doc("y", new BsonMaxKey()), "A", version(1, 0))), "does not match shard key"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalidTables")
    void ofRejectsAnythingButOneExactCoverOfTheKeySpace(String name, List<Chunk> chunks, String message) {
        assertThatThrownBy(() -> RoutingTable.of(COLL, chunks))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(message);
    }

    @Test
    void noChangesIsTheSameTable() {
        assertThat(TABLE.withChanges(List.of())).isSameAs(TABLE);
    }

    @Test
    void splitOfAChunkOnAShardBelowTheCollectionVersionContinuesFromIt() {
        // protocol: sv(A) = 1|1 != cv = 1|3, so the pieces get 1|4, 1|5, 1|6
        List<Chunk> pieces = List.of(chunk(x(0), x(30), "A", version(1, 4)), chunk(x(30), x(60), "A", version(1, 5)),
                chunk(x(60), x(100), "A", version(1, 6)));
        RoutingTable split = assertSameAsRebuilt(TABLE.withChanges(pieces));
        assertThat(split.chunks()).containsExactly(C0, pieces.get(0), pieces.get(1), pieces.get(2), C2, C3);
        assertThat(split.shardVersion("A")).isEqualTo(version(1, 6));
        assertThat(split.collectionVersion()).isEqualTo(version(1, 6));
        assertThat(split.findChunk(key(30))).isEqualTo(pieces.get(1));
        assertThat(split.findChunk(key(29))).isEqualTo(pieces.get(0));
        assertThat(TABLE.chunks()).as("the old table is untouched").containsExactly(C0, C1, C2, C3);
        assertThat(TABLE.findChunk(key(30))).isEqualTo(C1);
    }

    @Test
    void splitOfTheChunkHoldingTheCollectionVersionBumpsTheMajor() {
        // protocol: sv(C) = cv = 1|3, so the pieces get 2|1 and 2|2
        List<Chunk> pieces = List.of(chunk(x(500), xMax(), "C", version(2, 2)), chunk(x(200), x(500), "C", version(2, 1)));
        RoutingTable split = assertSameAsRebuilt(TABLE.withChanges(pieces));
        assertThat(split.chunks()).containsExactly(C0, C1, C2, pieces.get(1), pieces.get(0));
        assertThat(split.shardVersion("C")).isEqualTo(version(2, 2));
        assertThat(split.shardVersion("A")).isEqualTo(version(1, 1));
        assertThat(split.collectionVersion()).isEqualTo(version(2, 2));
    }

    @Test
    void mergeOfThreeChunksIntoOne() {
        RoutingTable split = TABLE.withChanges(List.of(chunk(x(0), x(30), "A", version(1, 4)),
                chunk(x(30), x(60), "A", version(1, 5)), chunk(x(60), x(100), "A", version(1, 6))));
        Chunk merged = chunk(x(0), x(100), "A", version(2, 0));
        RoutingTable table = assertSameAsRebuilt(split.withChanges(List.of(merged)));
        assertThat(table.chunks()).containsExactly(C0, merged, C2, C3);
        assertThat(table.shardVersion("A")).isEqualTo(version(2, 0));
        assertThat(table.collectionVersion()).isEqualTo(version(2, 0));
        assertThat(table.findChunk(key(60))).isEqualTo(merged);
    }

    @Test
    void mergeOfTheFirstChunks() {
        Chunk merged = chunk(xMin(), x(100), "A", version(2, 0));
        RoutingTable table = assertSameAsRebuilt(TABLE.withChanges(List.of(merged)));
        assertThat(table.chunks()).containsExactly(merged, C2, C3);
    }

    @Test
    void moveOfAShardsOnlyChunkLeavesItAtVersionZero() {
        Chunk moved = chunk(x(100), x(200), "C", version(2, 0));
        RoutingTable table = assertSameAsRebuilt(TABLE.withChanges(List.of(moved)));
        assertThat(table.chunks()).containsExactly(C0, C1, moved, C3);
        assertThat(table.shardVersion("B")).isEqualTo(new ChunkVersion(0, 0, EPOCH, TIMESTAMP));
        assertThat(table.shards()).containsExactly("A", "C");
        assertThat(table.shardVersion("C")).isEqualTo(version(2, 0));
        assertThat(table.collectionVersion()).isEqualTo(version(2, 0));
        assertThat(table.owns("C", key(150))).isTrue();
        assertThat(TABLE.owns("B", key(150))).as("the old table is untouched").isTrue();
    }

    @Test
    void moveWithAControlChunkOnTheDonor() {
        // protocol: the moved chunk gets (cv.major + 1)|0, a chunk left on the donor (cv.major + 1)|1
        Chunk moved = chunk(x(0), x(100), "B", version(2, 0));
        Chunk control = chunk(xMin(), x(0), "A", version(2, 1));
        RoutingTable table = assertSameAsRebuilt(TABLE.withChanges(List.of(moved, control)));
        assertThat(table.chunks()).containsExactly(control, moved, C2, C3);
        assertThat(table.shardVersion("A")).isEqualTo(version(2, 1));
        assertThat(table.shardVersion("B")).isEqualTo(version(2, 0));
        assertThat(table.collectionVersion()).isEqualTo(version(2, 1));
    }

    @Test
    void moveOfTheDonorsHighestChunkRecomputesItsVersionFromWhatItKeeps() {
        // without a control chunk in the changes, A keeps only C0 (1|0); its version must drop from 1|1 to 1|0
        Chunk moved = chunk(x(0), x(100), "B", version(2, 0));
        RoutingTable table = assertSameAsRebuilt(TABLE.withChanges(List.of(moved)));
        assertThat(table.shardVersion("A")).isEqualTo(version(1, 0));
        assertThat(table.shardVersion("B")).isEqualTo(version(2, 0));
        assertThat(table.shards()).containsExactly("A", "B", "C");
    }

    static Stream<Arguments> invalidChanges() {
        return Stream.of(
                Arguments.of("other epoch", List.of(chunk(x(0), x(100), "B", new ChunkVersion(2, 0, new ObjectId(), TIMESTAMP))),
                        "not of the collection's epoch"),
                Arguments.of("split missing its upper piece", List.of(chunk(x(0), x(50), "A", version(1, 4))), "is not followed"),
                Arguments.of("split missing its lower piece", List.of(chunk(x(50), x(100), "A", version(1, 4))), "is not followed"),
                Arguments.of("overlapping an untouched neighbour", List.of(chunk(x(0), x(150), "A", version(2, 0))), "is not followed"),
                Arguments.of("straddling two chunks", List.of(chunk(x(50), x(150), "A", version(2, 0))), "is not followed"),
                Arguments.of("past the last chunk", List.of(chunk(x(200), x(300), "C", version(2, 0))), "it is the last chunk"),
                Arguments.of("changes overlapping each other", List.of(chunk(x(0), x(60), "A", version(1, 4)),
                        chunk(x(50), x(100), "A", version(1, 5))), "is not followed"),
                Arguments.of("two changes with one start", List.of(chunk(x(0), x(60), "A", version(1, 4)),
                        chunk(x(0), x(100), "A", version(1, 5))), "two chunks"),
                Arguments.of("no MinKey start any more", List.of(chunk(x(-10), x(0), "A", version(2, 0))), "not at MinKey"),
                Arguments.of("bound of another key", List.of(chunk(ShardingFixtures.doc("y", new BsonInt64(0)),
                        ShardingFixtures.doc("y", new BsonInt64(100)), "A", version(2, 0))), "does not match shard key"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalidChanges")
    void changesThatDoNotFitAreRefusedSoTheCallerDoesAFullRefresh(String name, List<Chunk> changes, String message) {
        assertThatThrownBy(() -> TABLE.withChanges(changes))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(message);
        assertThat(TABLE.chunks()).containsExactly(C0, C1, C2, C3);
    }

    @Test
    void compoundKeyLookupsAtAndBetweenBounds() {
        int n = 1000;
        ShardedCollection coll = ShardingFixtures.collection(ShardingFixtures.COUNTRY_NAME_KEY);
        List<Chunk> chunks = ShardingFixtures.compoundChunks(n, 3);
        RoutingTable table = RoutingTable.of(coll, chunks);
        ShardKeyPattern key = coll.key();
        Random random = new Random(11);
        for (int round = 0; round < 200; round++) {
            int i = 1 + random.nextInt(n - 1);
            BsonDocument bound = ShardingFixtures.compoundBound(i, n);
            assertThat(table.findChunk(key.encode(bound))).isEqualTo(chunks.get(i));
            BsonDocument inside = bound.clone().append("name", new BsonString(bound.getString("name").getValue() + "x"));
            assertThat(table.chunkFor(inside)).isEqualTo(chunks.get(i));
            String name = bound.getString("name").getValue();
            String lastCharDecremented = name.substring(0, name.length() - 1) + (char) (name.charAt(name.length() - 1) - 1);
            BsonDocument justBelow = bound.clone().append("name", new BsonString(lastCharDecremented));
            assertThat(table.findChunk(key.encode(justBelow))).as(justBelow.toJson()).isEqualTo(chunks.get(i - 1));
        }
        assertThat(table.findChunk(key.encode(new BsonDocument("country", new BsonString("AA"))
                .append("name", new BsonMinKey())))).isEqualTo(chunks.get(0));
    }
}
