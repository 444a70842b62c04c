package dev.shardstore.router.routing;

import dev.shardstore.support.catalog.DatabaseEntry;
import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.bson.Collation;
import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.version.DatabaseVersion;
import dev.shardstore.contracts.hash.BsonHasher;
import dev.shardstore.contracts.sharding.Chunk;
import dev.shardstore.contracts.sharding.ChunkRange;
import dev.shardstore.contracts.sharding.RoutingTable;
import dev.shardstore.contracts.sharding.ShardKeyPattern;
import dev.shardstore.contracts.sharding.ShardedCollection;
import dev.shardstore.contracts.version.ChunkVersion;
import dev.shardstore.engine.query.Filter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonMaxKey;
import org.bson.BsonMinKey;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;

/** Shard targeting over ranged, compound and hashed routing tables. */
class ShardKeyTargeterTest {
    private static final ObjectId EPOCH = new ObjectId();
    private static final BsonTimestamp TS = new BsonTimestamp(1, 1);

    /** A table of {@code key} whose chunks start at {@code splitPoints} (pattern shape), owned round-robin by s0, s1, s2. */
    static RoutingTable table(String key, String... splitPoints) {
        ShardKeyPattern pattern = ShardKeyPattern.of(ExtendedJson.parse(key));
        List<BsonDocument> bounds = new ArrayList<>();
        bounds.add(pattern.globalMin());
        for (String p : splitPoints) {
            bounds.add(ExtendedJson.parse(p));
        }
        bounds.add(pattern.globalMax());
        List<Chunk> chunks = new ArrayList<>();
        for (int i = 0; i + 1 < bounds.size(); i++) {
            chunks.add(new Chunk(new ChunkRange(bounds.get(i), bounds.get(i + 1)), "s" + (i % 3), new ChunkVersion(1, i, EPOCH, TS)));
        }
        return RoutingTable.of(new ShardedCollection("db.c", UUID.randomUUID(), EPOCH, TS, pattern, false, false), chunks);
    }

    private static List<Integer> chunkIndexes(RoutingTable table, String filter) {
        List<Chunk> all = table.chunks();
        return ShardKeyTargeter.chunks(table, ExtendedJson.parse(filter)).stream().map(all::indexOf).toList();
    }

    private final RoutingTable ranged = table("{x: 1}", "{x: 0}", "{x: 100}", "{x: 'm'}");

    /**
     * Chunks are ranges in binary order: under a non-simple collation a string comparison on the shard key narrows
     * nothing (every shard), while one on numbers still targets (mongo/src/mongo/db/s/README.md "Routing"; MongoDB manual, "Collation").
     */
    @Test
    void aNonSimpleCollationBroadcastsStringConditionsOnTheShardKey() {
        RoutingTable words = table("{x: 1}", "{x: 'g'}", "{x: 'p'}");
        CollectionRouting routing = new CollectionRouting("db.c", new DatabaseEntry("db", "s0", new DatabaseVersion(UUID.randomUUID(), 1, TS)), words);
        Collation caseless = Collation.parse("find.collation", ExtendedJson.parse("{locale: 'en', strength: 2}"));
        BsonDocument equality = ExtendedJson.parse("{x: 'hello'}");

        assertThat(ShardKeyTargeter.shards(routing, equality, Collation.SIMPLE)).containsExactly("s1");
        assertThat(ShardKeyTargeter.shards(routing, equality, caseless)).containsExactly("s0", "s1", "s2");
        assertThat(ShardKeyTargeter.shards(routing, ExtendedJson.parse("{x: {$in: ['a', 'z']}}"), caseless)).containsExactly("s0", "s1", "s2");
        assertThat(ShardKeyTargeter.shards(routing, ExtendedJson.parse("{x: 5}"), caseless)).containsExactly("s0");
        // only conditions that can bound the key count: a string on another field leaves the number targeting
        assertThat(ShardKeyTargeter.shards(routing, ExtendedJson.parse("{x: 5, name: 'hello'}"), caseless)).containsExactly("s0");
        assertThat(ShardKeyTargeter.shards(routing, ExtendedJson.parse("{$and: [{x: 5}, {$or: [{x: 'hello'}, {y: 1}]}]}"), caseless))
                .containsExactly("s0", "s1", "s2");
        assertThat(ShardKeyTargeter.shards(routing, ExtendedJson.parse("{'x.y': 'hello'}"), caseless)).containsExactly("s0", "s1", "s2");
        RoutingTable hashed = table("{x: 'hashed'}", "{x: 0}");
        CollectionRouting hashedRouting = new CollectionRouting("db.c", routing.database(), hashed);
        assertThat(ShardKeyTargeter.shards(hashedRouting, equality, Collation.SIMPLE)).hasSize(1);
        assertThat(ShardKeyTargeter.shards(hashedRouting, equality, caseless)).containsExactly("s0", "s1");
    }

    @Test
    void equalityTargetsTheOwningChunk() {
        assertThat(chunkIndexes(ranged, "{x: 5}")).containsExactly(1);
        assertThat(chunkIndexes(ranged, "{x: -3, y: 'anything'}")).containsExactly(0);
        assertThat(chunkIndexes(ranged, "{x: {$eq: 100}}")).containsExactly(2);
        assertThat(chunkIndexes(ranged, "{x: 'z'}")).containsExactly(3);
        assertThat(chunkIndexes(ranged, "{x: 100.0}")).as("numbers compare by value").containsExactly(2);
    }

    @Test
    void rangesTargetEveryIntersectingChunkAndStayInTheirTypeBracket() {
        assertThat(chunkIndexes(ranged, "{x: {$gte: 50, $lt: 150}}")).containsExactly(1, 2);
        assertThat(chunkIndexes(ranged, "{x: {$lt: 0}}")).containsExactly(0);
        assertThat(chunkIndexes(ranged, "{x: {$gte: 0, $lt: 100}}")).as("upper bound exclusive at a chunk min").containsExactly(1);
        assertThat(chunkIndexes(ranged, "{x: {$gt: 1000}}")).as("numbers end before the string chunk").containsExactly(2);
        assertThat(chunkIndexes(ranged, "{$and: [{x: {$gt: 10}}, {x: {$lt: 20}}]}")).containsExactly(1);
    }

    /** {@code $expr} is an expression over the document, not a condition on the key: it never narrows the chunks. */
    @Test
    void exprDoesNotNarrowTheChunks() {
        assertThat(chunkIndexes(ranged, "{$expr: {$eq: ['$x', 5]}}")).containsExactly(0, 1, 2, 3);
        assertThat(chunkIndexes(ranged, "{$and: [{$expr: {$lt: ['$x', 0]}}, {$expr: true}]}")).containsExactly(0, 1, 2, 3);
        assertThat(chunkIndexes(ranged, "{x: 5, $expr: {$eq: ['$x', 500]}}")).as("the equality beside it still narrows").containsExactly(1);
        RoutingTable hashed = table("{_id: 'hashed'}", "{_id: {$numberLong: '0'}}");
        assertThat(ShardKeyTargeter.chunks(hashed, ExtendedJson.parse("{$expr: {$eq: ['$_id', 1]}}"))).hasSize(2);
        assertThat(ranged.shardKey().extractShardKeyFromQuery(ExtendedJson.parse("{$expr: {$eq: ['$x', 5]}}"))).isEmpty();
    }

    @Test
    void inTargetsEachPoint() {
        assertThat(chunkIndexes(ranged, "{x: {$in: [-1, 200, 'q']}}")).containsExactly(0, 2, 3);
        assertThat(chunkIndexes(ranged, "{x: {$in: [1, 2, 3]}}")).containsExactly(1);
        assertThat(chunkIndexes(ranged, "{x: {$in: []}}")).isEmpty();
    }

    @Test
    void unusablePredicatesTargetEveryChunk() {
        for (String filter : List.of("{}", "{y: 1}", "{x: {$ne: 5}}", "{$or: [{x: 1}, {x: 200}]}", "{x: /a/}", "{x: {$exists: true}}")) {
            assertThat(chunkIndexes(ranged, filter)).as(filter).containsExactly(0, 1, 2, 3);
            assertThat(ShardKeyTargeter.shards(ranged, ExtendedJson.parse(filter))).as(filter).isEqualTo(ranged.shards());
        }
        assertThat(ShardKeyTargeter.chunks(ranged, null)).hasSize(4);
    }

    @Test
    void shardsAreDistinctAndSortedAndNeverEmpty() {
        assertThat(ShardKeyTargeter.shards(ranged, ExtendedJson.parse("{x: {$in: ['q', -1]}}"))).containsExactly("s0");
        assertThat(ShardKeyTargeter.shards(ranged, ExtendedJson.parse("{x: {$gte: 50}}"))).containsExactly("s1", "s2");
        assertThat(ShardKeyTargeter.shards(ranged, ExtendedJson.parse("{x: {$in: []}}")))
                .as("no chunk: the first chunk's shard still answers").containsExactly(ranged.chunks().getFirst().shard());
    }

    private final RoutingTable compound = table("{a: 1, b: 1}", "{a: 'm', b: {$minKey: 1}}", "{a: 'm', b: 50}", "{a: 't', b: {$minKey: 1}}");

    @Test
    void compoundKeysUseThePointPrefixThenTheNextFieldsRange() {
        assertThat(chunkIndexes(compound, "{a: 'm', b: 10}")).containsExactly(1);
        assertThat(chunkIndexes(compound, "{a: 'm', b: {$gte: 40, $lt: 60}}")).containsExactly(1, 2);
        assertThat(chunkIndexes(compound, "{a: 'm'}")).as("prefix only").containsExactly(1, 2);
        assertThat(chunkIndexes(compound, "{a: {$in: ['a', 'z']}, b: 3}")).containsExactly(0, 3);
        assertThat(chunkIndexes(compound, "{a: {$gte: 'n', $lt: 's'}, b: 3}")).as("a range on a stops the prefix").containsExactly(2);
        assertThat(chunkIndexes(compound, "{b: 10}")).as("no prefix: all").containsExactly(0, 1, 2, 3);
    }

    @Test
    void hashedKeysTargetTheHashesOfPoints() {
        RoutingTable hashed = table("{_id: 'hashed'}", "{_id: {$numberLong: '-4611686018427387904'}}", "{_id: {$numberLong: '0'}}",
                "{_id: {$numberLong: '4611686018427387904'}}");
        for (BsonValue v : List.of(new BsonInt32(1), new BsonString("abc"), new BsonInt32(-77), new org.bson.BsonObjectId(new ObjectId()))) {
            List<Chunk> targeted = ShardKeyTargeter.chunks(hashed, new BsonDocument("_id", v));
            assertThat(targeted).as(v.toString()).containsExactly(hashed.chunkFor(new BsonDocument("_id", v)));
        }
        List<Chunk> in = ShardKeyTargeter.chunks(hashed, ExtendedJson.parse("{_id: {$in: [1, 2, 3, 4, 5, 6]}}"));
        Set<Chunk> expected = new HashSet<>();
        for (int i = 1; i <= 6; i++) {
            expected.add(hashed.chunkFor(new BsonDocument("_id", new BsonInt32(i))));
        }
        assertThat(in).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(ShardKeyTargeter.chunks(hashed, ExtendedJson.parse("{_id: {$gt: 5}}"))).as("a range on a hashed field").hasSize(4);
        assertThat(ShardKeyTargeter.chunks(hashed, ExtendedJson.parse("{_id: {$in: [1, 2], $gt: 1}}")))
                .containsExactly(hashed.chunkFor(new BsonDocument("_id", new BsonInt32(2))));
    }

    @Test
    void aHashedSuffixIsTargetedAfterTheRangedPrefix() {
        long h = BsonHasher.hash64(new BsonInt32(7));
        RoutingTable table = table("{r: 1, _id: 'hashed'}", "{r: 'eu', _id: {$minKey: 1}}", "{r: 'eu', _id: {$numberLong: '0'}}",
                "{r: 'us', _id: {$minKey: 1}}");
        assertThat(chunkIndexes(table, "{r: 'eu', _id: 7}")).containsExactly(h < 0 ? 1 : 2);
        assertThat(chunkIndexes(table, "{r: 'eu'}")).containsExactly(1, 2);
        assertThat(chunkIndexes(table, "{r: 'eu', _id: {$gt: 7}}")).containsExactly(1, 2);
    }

    /**
     * Soundness over random documents and filters: every document a filter matches lives in a targeted chunk.
     */
    @Test
    void everyMatchingDocumentIsInATargetedChunk() {
        Random random = new Random(42);
        List<RoutingTable> tables = List.of(ranged, compound,
                table("{a: 'hashed', b: 1}", "{a: {$numberLong: '-10'}, b: {$minKey: 1}}", "{a: {$numberLong: '99'}, b: 5}"),
                table("{a: 1, b: 'hashed'}", "{a: 3, b: {$minKey: 1}}", "{a: 3, b: {$numberLong: '0'}}", "{a: 6, b: {$maxKey: 1}}"));
        String[] fields = {"a", "b", "x"};
        for (int round = 0; round < 400; round++) {
            RoutingTable table = tables.get(round % tables.size());
            BsonDocument filter = randomFilter(random, fields);
            Filter matcher = Filter.parse(filter);
            Set<Chunk> targeted = new HashSet<>(ShardKeyTargeter.chunks(table, filter));
            for (int d = 0; d < 60; d++) {
                BsonDocument doc = new BsonDocument();
                for (String f : fields) {
                    if (random.nextInt(8) > 0) {
                        doc.append(f, randomValue(random));
                    }
                }
                if (matcher.matches(doc)) {
                    assertThat(targeted).as(filter.toJson() + " on " + table.shardKey().pattern().toJson() + " matches " + doc.toJson())
                            .contains(table.chunkFor(doc));
                }
            }
        }
    }

    private static BsonValue randomValue(Random random) {
        return switch (random.nextInt(6)) {
            case 0 -> new BsonString(String.valueOf((char) ('a' + random.nextInt(26))));
            case 1 -> org.bson.BsonNull.VALUE;
            default -> new BsonInt32(random.nextInt(12) - 2);
        };
    }

    private static BsonDocument randomFilter(Random random, String[] fields) {
        BsonDocument filter = new BsonDocument();
        List<BsonDocument> and = new ArrayList<>();
        for (String f : fields) {
            BsonValue condition = switch (random.nextInt(7)) {
                case 0 -> null;
                case 1 -> randomValue(random);
                case 2 -> new BsonDocument("$in", new org.bson.BsonArray(List.of(randomValue(random), randomValue(random))));
                case 3 -> new BsonDocument("$gt", randomValue(random));
                case 4 -> new BsonDocument("$lte", randomValue(random)).append("$gte", randomValue(random));
                case 5 -> new BsonDocument("$ne", randomValue(random));
                default -> new BsonDocument("$lt", randomValue(random));
            };
            if (condition != null) {
                if (random.nextBoolean()) {
                    filter.append(f, condition);
                } else {
                    and.add(new BsonDocument(f, condition));
                }
            }
        }
        if (!and.isEmpty()) {
            filter.append("$and", new org.bson.BsonArray(and));
        }
        return filter;
    }

    /**
     * {@code shards} answers a filter of plain equalities on the whole key with one lookup (the routed point read); over
     * random filters on every kind of table, and the scalar types a point may be, it names exactly the shards of the
     * chunks the bounds-derived {@link ShardKeyTargeter#chunks} targets.
     */
    @Test
    void thePointLookupTargetsWhatTheDerivedBoundsTarget() {
        Random random = new Random(7);
        RoutingTable hashedId = table("{_id: 'hashed'}", "{_id: {$numberLong: '-4611686018427387904'}}", "{_id: {$numberLong: '0'}}",
                "{_id: {$numberLong: '4611686018427387904'}}");
        List<RoutingTable> tables = List.of(ranged, compound, hashedId,
                table("{a: 'hashed', b: 1}", "{a: {$numberLong: '-10'}, b: {$minKey: 1}}", "{a: {$numberLong: '99'}, b: 5}"),
                table("{a: 1, b: 'hashed'}", "{a: 3, b: {$minKey: 1}}", "{a: 3, b: {$numberLong: '0'}}", "{a: 6, b: {$maxKey: 1}}"));
        List<String> filters = new ArrayList<>(List.of("{_id: 'user42'}", "{_id: 7, x: 1}", "{_id: 7.0}", "{_id: {$numberLong: '7'}}",
                "{_id: {$oid: '0123456789abcdef01234567'}}", "{_id: true}", "{_id: {$date: 1}}", "{_id: null}", "{_id: {a: 1}}", "{_id: [1]}",
                "{_id: /x/}", "{_id: {$minKey: 1}}", "{_id: 1, $and: [{_id: 2}]}", "{_id: 1, $or: [{x: 2}]}", "{x: 5}", "{x: 'q'}", "{x: 100}",
                "{x: null}", "{x: 5, $expr: {$eq: ['$x', 6]}}", "{a: 'm', b: 10}", "{a: 'm', b: 50}", "{b: 50, a: 't'}", "{a: 'm'}", "{a: 4, b: 2}",
                "{a: 3, b: 'z'}", "{'a.b': 1, a: 2, b: 3}"));
        for (RoutingTable table : tables) {
            for (String f : filters) {
                assertSameShards(table, ExtendedJson.parse(f));
            }
            for (int round = 0; round < 100; round++) {
                assertSameShards(table, randomFilter(random, new String[] {"a", "b", "x", "_id"}));
            }
        }
    }

    private static void assertSameShards(RoutingTable table, BsonDocument filter) {
        List<String> derived = ShardKeyTargeter.chunks(table, filter).stream().map(Chunk::shard).distinct().sorted().toList();
        assertThat(ShardKeyTargeter.shards(table, filter)).as(filter.toJson() + " on " + table.shardKey().pattern().toJson())
                .isEqualTo(derived.isEmpty() ? List.of(table.chunks().getFirst().shard()) : derived);
    }

    @Test
    void minAndMaxKeyValuesAreNotPoints() {
        assertThat(ShardKeyTargeter.chunks(ranged, new BsonDocument("x", new BsonMinKey()))).hasSize(4);
        assertThat(ShardKeyTargeter.chunks(ranged, new BsonDocument("x", new BsonMaxKey()))).hasSize(4);
    }
}
