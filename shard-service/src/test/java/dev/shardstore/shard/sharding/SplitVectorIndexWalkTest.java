package dev.shardstore.shard.sharding;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.sharding.ShardKeyPattern;
import dev.shardstore.shard.ShardIntegrationTest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code splitVector} and {@code _shardsvrPrepareShardCollection} choose their split points by walking the shard key
 * index: the points must be those computed directly from the documents (every document's shard key, sorted, a point
 * every {@code maxChunkSizeBytes / avgObjSize} documents, repeated keys skipped).
 */
class SplitVectorIndexWalkTest extends ShardIntegrationTest {
    private static final String DB = "sv_walk";
    private static final int DOCUMENTS = 3000;
    private static final String PAD = "p".repeat(100);
    private static final List<BsonDocument> INSERTED = new ArrayList<>();
    private static boolean loaded;

    /** {_id: i, a: i % 700 (so a repeats), b: i % 3, pad}: every document the same size. */
    private static BsonDocument document(int i) {
        return new BsonDocument("_id", new BsonInt32(i)).append("a", new BsonInt32((i * 7919) % 700))
                .append("b", new BsonInt32(i % 3)).append("pad", new BsonString(PAD));
    }

    @BeforeAll
    static void documents() {
        for (int i = 0; i < DOCUMENTS; i++) {
            INSERTED.add(document(i));
        }
    }

    private void load() {
        if (loaded) {
            return;
        }
        for (int from = 0; from < DOCUMENTS; from += 1000) {
            run(DB, new BsonDocument("insert", new BsonString("c"))
                    .append("documents", new BsonArray(INSERTED.subList(from, Math.min(DOCUMENTS, from + 1000)))));
        }
        run(DB, "{createIndexes: 'c', indexes: [{key: {a: 1, b: 1}}, {key: {a: 'hashed'}}]}");
        loaded = true;
    }

    @Test
    void indexWalkPointsEqualThoseFromTheDocuments() {
        load();
        int size = BsonBytes.encode(document(0)).length;
        for (String pattern : List.of("{_id: 1}", "{a: 1}", "{a: 1, b: 1}", "{a: 'hashed'}")) {
            ShardKeyPattern key = ShardKeyPattern.of(ExtendedJson.parse(pattern));
            for (int perChunk : List.of(1, 97, 250, 1499, 2999, 3000)) {
                BsonDocument reply = run(DB, "{splitVector: '" + DB + ".c', keyPattern: " + pattern
                        + ", maxChunkSizeBytes: " + (long) perChunk * size + "}");
                assertThat(reply.getArray("splitKeys")).as(pattern + " every " + perChunk)
                        .containsExactlyElementsOf(bySize(sortedKeys(key, null, null), perChunk));
            }
            BsonDocument median = run(DB, "{splitVector: '" + DB + ".c', keyPattern: " + pattern + ", force: true}");
            assertThat(median.getArray("splitKeys")).as(pattern + " median").containsExactlyElementsOf(median(sortedKeys(key, null, null)));
        }
        assertThat(bySize(sortedKeys(ShardKeyPattern.of(ExtendedJson.parse("{a: 1}")), null, null), 97))
                .as("the reference itself cuts the collection").hasSizeGreaterThan(20);
    }

    @Test
    void prepareChoosesTheSamePointsOverACompoundPrefixIndex() {
        load();
        int size = BsonBytes.encode(document(0)).length;
        BsonDocument prepared = run(DB, "{_shardsvrPrepareShardCollection: 'c', key: {a: 1}, maxChunkSizeBytes: " + 400 * size + "}");

        assertThat(prepared.getNumber("count").intValue()).isEqualTo(DOCUMENTS);
        assertThat(prepared.getArray("splitKeys"))
                .containsExactlyElementsOf(bySize(sortedKeys(ShardKeyPattern.of(ExtendedJson.parse("{a: 1}")), null, null), 400));
    }

    @Test
    void boundsInsideTheKeySpaceKeepEveryPointInside() {
        load();
        int size = BsonBytes.encode(document(0)).length;
        record Case(String pattern, String min, String max) {}
        for (Case c : List.of(new Case("{a: 1}", "{a: 100}", "{a: 400}"),
                new Case("{a: 1, b: 1}", "{a: 100, b: 1}", "{a: 400, b: 0}"),
                new Case("{a: 'hashed'}", "{a: {$numberLong: '-4611686018427387904'}}", "{a: {$numberLong: '4611686018427387904'}}"))) {
            ShardKeyPattern key = ShardKeyPattern.of(ExtendedJson.parse(c.pattern()));
            byte[] low = key.encode(ExtendedJson.parse(c.min()));
            byte[] high = key.encode(ExtendedJson.parse(c.max()));
            List<BsonDocument> inRange = sortedKeys(key, low, high);
            String bounds = ", min: " + c.min() + ", max: " + c.max();

            BsonArray cut = run(DB, "{splitVector: '" + DB + ".c', keyPattern: " + c.pattern() + bounds
                    + ", maxChunkSizeBytes: " + 50 * size + "}").getArray("splitKeys");
            BsonArray middle = run(DB, "{splitVector: '" + DB + ".c', keyPattern: " + c.pattern() + bounds + ", force: true}")
                    .getArray("splitKeys");

            assertThat(cut).as(c.pattern()).containsExactlyElementsOf(bySize(inRange, 50)).hasSizeGreaterThan(5);
            assertThat(middle).as(c.pattern()).containsExactlyElementsOf(median(inRange)).hasSize(1);
            for (BsonValue point : cut) {
                byte[] encoded = key.encode(point.asDocument());
                assertThat(Arrays.compareUnsigned(encoded, low)).as(point.toString()).isPositive();
                assertThat(Arrays.compareUnsigned(encoded, high)).as(point.toString()).isNegative();
            }
        }
    }

    @Test
    void aMultikeyShardKeyIndexIsTheArrayError() {
        run("sv_multikey", "{insert: 'c', documents: [{_id: 1, a: 1}, {_id: 2, a: [2, 3]}]}");
        run("sv_multikey", "{createIndexes: 'c', indexes: [{key: {a: 1}}]}");
        run("sv_multikey", "{insert: 'd', documents: [{_id: 1, a: 1}, {_id: 2, a: 2}]}");

        BsonDocument multikey = run("sv_multikey", "{splitVector: 'sv_multikey.c', keyPattern: {a: 1}, force: true}");
        BsonDocument noIndex = run("sv_multikey", "{splitVector: 'sv_multikey.d', keyPattern: {a: 1}, force: true}");

        assertThat(multikey.getInt32("code").getValue()).isEqualTo(61);
        assertThat(multikey.getString("errmsg").getValue()).contains("a");
        assertThat(noIndex.getInt32("code").getValue()).isEqualTo(27);
    }

    /** The shard keys of the inserted documents within [low, high) (null: unbounded), sorted by KeyString. */
    private static List<BsonDocument> sortedKeys(ShardKeyPattern key, byte[] low, byte[] high) {
        return INSERTED.stream().map(key::extractKey)
                .filter(k -> low == null || Arrays.compareUnsigned(key.encode(k), low) >= 0)
                .filter(k -> high == null || Arrays.compareUnsigned(key.encode(k), high) < 0)
                .sorted(Comparator.comparing(key::encode, Arrays::compareUnsigned))
                .toList();
    }

    /**
     * A point every {@code perChunk} keys, moved past keys equal to the previous point (or the first key); in a
     * sorted list those are the keys not above it.
     */
    private static List<BsonDocument> bySize(List<BsonDocument> sorted, int perChunk) {
        List<BsonDocument> points = new ArrayList<>();
        if (sorted.size() <= perChunk) {
            return points;
        }
        BsonDocument last = sorted.getFirst();
        int i = perChunk;
        while (i < sorted.size()) {
            while (i < sorted.size() && sorted.get(i).equals(last)) {
                i++;
            }
            if (i >= sorted.size()) {
                break;
            }
            points.add(sorted.get(i));
            last = sorted.get(i);
            i += perChunk;
        }
        return points;
    }

    private static List<BsonDocument> median(List<BsonDocument> sorted) {
        int i = sorted.size() / 2;
        while (i < sorted.size() && sorted.get(i).equals(sorted.getFirst())) {
            i++;
        }
        return i < sorted.size() ? List.of(sorted.get(i)) : List.of();
    }
}
