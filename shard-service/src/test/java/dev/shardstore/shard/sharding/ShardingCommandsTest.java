package dev.shardstore.shard.sharding;

import static dev.shardstore.shard.TestRouting.chunk;
import static dev.shardstore.shard.TestRouting.collection;
import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.hash.BsonHasher;
import dev.shardstore.contracts.sharding.ShardKeyPattern;
import dev.shardstore.contracts.sharding.ShardedCollection;
import dev.shardstore.shard.ConfigServerStub;
import dev.shardstore.shard.ShardIntegrationTest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;

/** {@code _shardsvrPrepareShardCollection}, {@code splitVector} and {@code _shardsvrDataDistribution} over real HTTP. */
class ShardingCommandsTest extends ShardIntegrationTest {
    private static final String PAD = "p".repeat(200);

    @Test
    void preparingAnEmptyCollectionCreatesItAndItsShardKeyIndex() {
        BsonDocument ranged = run("pr_empty", "{_shardsvrPrepareShardCollection: 'c', key: {country: 1, name: 1}, unique: true}");
        run("pr_empty", "{_shardsvrPrepareShardCollection: 'h', key: {_id: 'hashed'}}");
        run("pr_empty", "{_shardsvrPrepareShardCollection: 'i', key: {_id: 1}}");

        assertThat(ranged).isEqualTo(ExtendedJson.parse("{empty: true, count: {$numberLong: '0'}, splitKeys: [], ok: 1.0}"));
        assertThat(indexes("pr_empty", "c")).contains(
                ExtendedJson.parse("{v: 2, key: {country: 1, name: 1}, name: 'country_1_name_1', unique: true}"));
        assertThat(indexes("pr_empty", "h")).contains(ExtendedJson.parse("{v: 2, key: {_id: 'hashed'}, name: '_id_hashed'}"));
        assertThat(indexes("pr_empty", "i")).hasSize(1);
        assertThat(run("pr_empty", "{_shardsvrPrepareShardCollection: 'c', key: {country: 1, name: 1}, unique: true}")
                .getNumber("ok").intValue()).as("preparing again is harmless").isEqualTo(1);
        assertThat(run("pr_empty", "{_shardsvrPrepareShardCollection: 'u', key: {_id: 'hashed'}, unique: true}")
                .getInt32("code").getValue()).isEqualTo(72);
    }

    @Test
    void preparingANonEmptyCollectionNeedsAnIndexStartingWithTheShardKey() {
        insertDocuments("pr_full", "c", 50);

        BsonDocument missing = run("pr_full", "{_shardsvrPrepareShardCollection: 'c', key: {x: 1}, maxChunkSizeBytes: 1000}");
        run("pr_full", "{createIndexes: 'c', indexes: [{key: {x: 1, pad: 1}}]}");
        BsonDocument notUnique = run("pr_full", "{_shardsvrPrepareShardCollection: 'c', key: {x: 1}, unique: true}");
        BsonDocument prepared = run("pr_full", new BsonDocument("_shardsvrPrepareShardCollection", new BsonString("c"))
                .append("key", ExtendedJson.parse("{x: 1}")).append("maxChunkSizeBytes", new BsonInt32(10 * documentSize(0))));

        assertThat(missing.getInt32("code").getValue()).isEqualTo(72);
        assertThat(missing.getString("errmsg").getValue()).contains("{\"x\": 1}");
        assertThat(notUnique.getInt32("code").getValue()).isEqualTo(72);
        assertThat(prepared.getBoolean("empty").getValue()).isFalse();
        assertThat(prepared.getNumber("count").intValue()).isEqualTo(50);
        assertThat(prepared.getArray("splitKeys")).containsExactly(
                key(10), key(20), key(30), key(40));
    }

    @Test
    void hashedSplitKeysAreIncreasingHashes() {
        insertDocuments("pr_hashed", "c", 40);
        run("pr_hashed", "{createIndexes: 'c', indexes: [{key: {x: 'hashed'}}]}");

        BsonDocument prepared = run("pr_hashed", new BsonDocument("_shardsvrPrepareShardCollection", new BsonString("c"))
                .append("key", ExtendedJson.parse("{x: 'hashed'}")).append("maxChunkSizeBytes", new BsonInt32(10 * documentSize(0))));

        ShardKeyPattern pattern = ShardKeyPattern.of(ExtendedJson.parse("{x: 'hashed'}"));
        List<byte[]> encoded = new ArrayList<>();
        for (BsonValue k : prepared.getArray("splitKeys")) {
            assertThat(k.asDocument().get("x").isInt64()).as(k.toString()).isTrue();
            encoded.add(pattern.encode(k.asDocument()));
        }
        assertThat(encoded).hasSize(3);
        for (int i = 1; i < encoded.size(); i++) {
            assertThat(Arrays.compareUnsigned(encoded.get(i - 1), encoded.get(i))).isNegative();
        }
    }

    @Test
    void aShardKeyHoldingAnArrayIsRefused() {
        run("pr_array", "{insert: 'c', documents: [{_id: 1, a: {b: 1}}, {_id: 2, a: {b: [1, 2]}}]}");

        assertThat(run("pr_array", "{_shardsvrPrepareShardCollection: 'c', key: {_id: 1, 'a.b': 1}}").getInt32("code").getValue())
                .isEqualTo(61);
    }

    @Test
    void splitVectorFindsTheMedianOrCutsBySize() {
        insertDocuments("sp_vec", "c", 9);
        int size = documentSize(0);
        BsonDocument withoutIndex = run("sp_vec", "{splitVector: 'sp_vec.c', keyPattern: {x: 1}, force: true}");
        run("sp_vec", "{createIndexes: 'c', indexes: [{key: {x: 1}}]}");

        assertThat(withoutIndex.getInt32("code").getValue()).as("splitVector walks the shard key index").isEqualTo(27);

        assertThat(run("sp_vec", "{splitVector: 'sp_vec.c', keyPattern: {x: 1}, force: true}").getArray("splitKeys"))
                .containsExactly(key(4));
        assertThat(run("sp_vec", "{splitVector: 'sp_vec.c', keyPattern: {x: 1}, min: {x: 3}, max: {x: 7}, force: true}")
                .getArray("splitKeys")).containsExactly(key(5));
        assertThat(run("sp_vec", "{splitVector: 'sp_vec.c', keyPattern: {x: 1}, min: {x: 3}, max: {x: 4}, force: true}")
                .getArray("splitKeys")).isEmpty();
        assertThat(run("sp_vec", "{splitVector: 'sp_vec.c', keyPattern: {x: 1}, maxChunkSizeBytes: " + 3 * size + "}")
                .getArray("splitKeys")).containsExactly(key(3), key(6));
        assertThat(run("sp_vec", "{splitVector: 'sp_vec.c', keyPattern: {x: 1}}").getInt32("code").getValue()).isEqualTo(72);
        assertThat(run("sp_vec", "{splitVector: 'sp_vec.none', keyPattern: {x: 1}, force: true}").getInt32("code").getValue())
                .isEqualTo(26);
        assertThat(run("sp_vec", "{splitVector: 'sp_vec.c', keyPattern: {x: 1}, min: {y: 1}, force: true}").getInt32("code").getValue())
                .isEqualTo(2);
    }

    @Test
    void dataDistributionSplitsOwnedFromOrphanedDocuments() {
        ShardedCollection coll = collection("dd.c", "{x: 1}");
        ConfigServerStub.instance().putRoutingTable(coll, List.of(
                chunk(coll, "{x: {$minKey: 1}}", "{x: 5}", SHARD_NAME, 1, 0),
                chunk(coll, "{x: 5}", "{x: {$maxKey: 1}}", "other", 1, 1)));
        insertDocuments("dd", "c", 8);
        int size = documentSize(0);

        BsonDocument sharded = run("admin", "{_shardsvrDataDistribution: 'dd.c'}");
        insertDocuments("dd", "plain", 3);
        BsonDocument unsharded = run("admin", "{_shardsvrDataDistribution: 'dd.plain'}");

        assertThat(sharded).isEqualTo(new BsonDocument("numOwnedDocuments", new org.bson.BsonInt64(5))
                .append("ownedSizeBytes", new org.bson.BsonInt64(5L * size))
                .append("numOrphanedDocs", new org.bson.BsonInt64(3))
                .append("orphanedSizeBytes", new org.bson.BsonInt64(3L * size))
                .append("ok", new org.bson.BsonDouble(1)));
        assertThat(unsharded.getNumber("numOwnedDocuments").intValue()).isEqualTo(3);
        assertThat(unsharded.getNumber("numOrphanedDocs").intValue()).isZero();
    }

    @Test
    void dataDistributionCountsAsOrphansTheDocumentsOfAChunkMovedAwaySinceTheMetadataWasCached() {
        ShardedCollection coll = collection("ddmoved.c", "{x: 1}");
        ConfigServerStub.instance().putRoutingTable(coll, List.of(
                chunk(coll, "{x: {$minKey: 1}}", "{x: 5}", SHARD_NAME, 1, 0),
                chunk(coll, "{x: 5}", "{x: {$maxKey: 1}}", "other", 1, 1)));
        insertDocuments("ddmoved", "c", 8);
        assertThat(run("admin", "{_shardsvrDataDistribution: 'ddmoved.c'}").getNumber("numOwnedDocuments").intValue()).isEqualTo(5);

        // a migration commits elsewhere; no event reaches this shard, its documents wait for their range deletion
        ConfigServerStub.instance().putRoutingTable(coll, List.of(
                chunk(coll, "{x: {$minKey: 1}}", "{x: 5}", "other", 2, 0),
                chunk(coll, "{x: 5}", "{x: {$maxKey: 1}}", "other", 1, 1)));
        BsonDocument after = run("admin", "{_shardsvrDataDistribution: 'ddmoved.c'}");

        assertThat(after.getNumber("numOwnedDocuments").intValue()).as(after.toJson()).isZero();
        assertThat(after.getNumber("numOrphanedDocs").intValue()).isEqualTo(8);
    }

    @Test
    void dataDistributionOverARangedKeysIndexCountsAsTheOwnershipRuleDoes() {
        // the index starts with the shard key ({x: 1, y: 1} for {x: 1}): the chunk bounds compare as prefixes
        ShardedCollection coll = collection("ddx.c", "{x: 1}");
        ConfigServerStub.instance().putRoutingTable(coll, List.of(
                chunk(coll, "{x: {$minKey: 1}}", "{x: 0}", "other", 1, 0),
                chunk(coll, "{x: 0}", "{x: 5}", SHARD_NAME, 1, 1),
                chunk(coll, "{x: 5}", "{x: 9}", "other", 1, 2),
                chunk(coll, "{x: 9}", "{x: {$maxKey: 1}}", "other", 1, 3)));
        run("ddx", "{createIndexes: 'c', indexes: [{key: {x: 1, y: 1}, name: 'x_1_y_1'}]}");
        List<String> owned = new ArrayList<>();
        List<String> orphaned = new ArrayList<>(List.of("{_id: 'min', x: {$minKey: 1}}", "{_id: 'missing'}", "{_id: 'null', x: null}",
                "{_id: 'string', x: 's'}", "{_id: 'document', x: {a: 1}}", "{_id: 'max', x: {$maxKey: 1}}", "{_id: 'five', x: 5, y: -1}"));
        for (int x = -3; x < 12; x++) {
            (x >= 0 && x < 5 ? owned : orphaned).add("{_id: " + x + ", x: " + x + ", y: " + (x % 3) + "}");
        }
        owned.add("{_id: 'fraction', x: 4.5}");
        insertAll("ddx", owned, orphaned);

        assertDistribution("ddx.c", owned, orphaned);
    }

    @Test
    void dataDistributionOverAHashedKeysIndexCountsAsTheOwnershipRuleDoes() {
        ShardedCollection coll = collection("ddh.c", "{_id: 'hashed'}");
        long quarter = Long.MIN_VALUE / 2;
        ConfigServerStub.instance().putRoutingTable(coll, List.of(
                chunk(coll, "{_id: {$minKey: 1}}", "{_id: {$numberLong: '" + quarter + "'}}", "other", 1, 0),
                chunk(coll, "{_id: {$numberLong: '" + quarter + "'}}", "{_id: {$numberLong: '0'}}", SHARD_NAME, 1, 1),
                chunk(coll, "{_id: {$numberLong: '0'}}", "{_id: {$numberLong: '" + -quarter + "'}}", "other", 1, 2),
                chunk(coll, "{_id: {$numberLong: '" + -quarter + "'}}", "{_id: {$maxKey: 1}}", SHARD_NAME, 1, 3)));
        run("ddh", "{createIndexes: 'c', indexes: [{key: {_id: 'hashed'}, name: '_id_hashed'}]}");
        List<String> owned = new ArrayList<>();
        List<String> orphaned = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            long hash = BsonHasher.hash64(new BsonInt32(i));
            (hash >= quarter && hash < 0 || hash >= -quarter ? owned : orphaned).add("{_id: " + i + ", v: '" + "v".repeat(i) + "'}");
        }
        assertThat(owned).isNotEmpty();
        assertThat(orphaned).isNotEmpty();
        insertAll("ddh", owned, orphaned);

        assertDistribution("ddh.c", owned, orphaned);
    }

    @Test
    void dataDistributionOverTheIdIndexCountsAsTheOwnershipRuleDoes() {
        ShardedCollection coll = collection("ddi.c", "{_id: 1}");
        ConfigServerStub.instance().putRoutingTable(coll, List.of(
                chunk(coll, "{_id: {$minKey: 1}}", "{_id: 10}", "other", 1, 0),
                chunk(coll, "{_id: 10}", "{_id: 20}", SHARD_NAME, 1, 1),
                chunk(coll, "{_id: 20}", "{_id: {$maxKey: 1}}", "other", 1, 2)));
        List<String> owned = new ArrayList<>();
        List<String> orphaned = new ArrayList<>(List.of("{_id: {$maxKey: 1}}", "{_id: {$minKey: 1}}", "{_id: 'text'}"));
        for (int i = 0; i < 30; i++) {
            (i >= 10 && i < 20 ? owned : orphaned).add("{_id: " + i + ", pad: '" + "p".repeat(i) + "'}");
        }
        insertAll("ddi", owned, orphaned);

        assertDistribution("ddi.c", owned, orphaned);
    }

    private void insertAll(String db, List<String> owned, List<String> orphaned) {
        List<String> all = new ArrayList<>(owned);
        all.addAll(orphaned);
        insertInto(db, "c", all.toArray(String[]::new));
    }

    private void assertDistribution(String ns, List<String> owned, List<String> orphaned) {
        BsonDocument reply = run("admin", "{_shardsvrDataDistribution: '" + ns + "'}");
        assertThat(reply).as(reply.toJson()).isEqualTo(new BsonDocument("numOwnedDocuments", new BsonInt64(owned.size()))
                .append("ownedSizeBytes", new BsonInt64(bytes(owned)))
                .append("numOrphanedDocs", new BsonInt64(orphaned.size()))
                .append("orphanedSizeBytes", new BsonInt64(bytes(orphaned)))
                .append("ok", new org.bson.BsonDouble(1)));
    }

    private static long bytes(List<String> documents) {
        return documents.stream().mapToLong(d -> BsonBytes.encode(ExtendedJson.parse(d)).length).sum();
    }

    /** Inserts {@code n} documents {_id: i, x: i, pad}, all of {@link #documentSize} bytes, in reverse order. */
    private void insertDocuments(String db, String coll, int n) {
        BsonArray docs = new BsonArray();
        for (int i = n - 1; i >= 0; i--) {
            docs.add(document(i));
        }
        run(db, new BsonDocument("insert", new BsonString(coll)).append("documents", docs));
    }

    private static BsonDocument document(int i) {
        return new BsonDocument("_id", new BsonInt32(i)).append("x", new BsonInt32(i)).append("pad", new BsonString(PAD));
    }

    private static int documentSize(int i) {
        return BsonBytes.encode(document(i)).length;
    }

    private static BsonDocument key(int x) {
        return new BsonDocument("x", new BsonInt32(x));
    }

    private List<BsonDocument> indexes(String db, String coll) {
        return run(db, "{listIndexes: '" + coll + "'}").getDocument("cursor").getArray("firstBatch").stream()
                .map(BsonValue::asDocument).toList();
    }
}
