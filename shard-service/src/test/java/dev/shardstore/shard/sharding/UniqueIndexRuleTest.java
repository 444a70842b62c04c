package dev.shardstore.shard.sharding;

import static dev.shardstore.shard.TestRouting.chunk;
import static dev.shardstore.shard.TestRouting.collection;
import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.sharding.ShardedCollection;
import dev.shardstore.shard.ConfigServerStub;
import dev.shardstore.shard.ShardIntegrationTest;
import java.util.List;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;

/**
 * MongoDB's unique index rule on sharded collections, on a real shard over HTTP: a unique index is allowed only when
 * the shard key leads it (or it leads with {@code _id}); {@code createIndexes} on a sharded collection refuses with
 * CannotCreateIndex (67), {@code _shardsvrPrepareShardCollection} (shardCollection's check on the primary) with
 * InvalidOptions (72), MongoDB's messages in both.
 */
class UniqueIndexRuleTest extends ShardIntegrationTest {
    private static final ConfigServerStub CONFIG = ConfigServerStub.instance();

    private static void shardOn(String ns, String key) {
        ShardedCollection coll = collection(ns, key);
        CONFIG.putRoutingTable(coll, List.of(chunk(coll, minMax(key, "$minKey"), minMax(key, "$maxKey"), SHARD_NAME, 1, 0)));
    }

    /** {@code {<first field of key>: {$minKey|$maxKey: 1}}} for a single-field key. */
    private static String minMax(String key, String bound) {
        String field = key.substring(1, key.indexOf(':')).trim();
        return "{" + field + ": {" + bound + ": 1}}";
    }

    private static int code(BsonDocument reply) {
        return reply.getNumber("code").intValue();
    }

    @Test
    void theIssuesExampleAHashedIdKeyDoesNotBackAUniqueIndexOnAnotherField() {
        shardOn("ui_hashed.c", "{_id: 'hashed'}");
        insertInto("ui_hashed", "c", "{_id: 1, x: 'foo'}");

        BsonDocument refused = run("ui_hashed", "{createIndexes: 'c', indexes: [{key: {x: 1}, name: 'x_1', unique: true}]}");

        assertThat(code(refused)).as(refused.toJson()).isEqualTo(67);
        assertThat(refused.getString("codeName").getValue()).isEqualTo("CannotCreateIndex");
        assertThat(refused.getString("errmsg").getValue()).isEqualTo(
                "cannot create unique index over {\"x\": 1} with shard key pattern {\"_id\": \"hashed\"}");
        assertThat(indexNames("ui_hashed")).doesNotContain("x_1");
        // what stays allowed: unique indexes led by _id, and any non-unique index
        assertThat(ok(run("ui_hashed", "{createIndexes: 'c', indexes: [{key: {_id: 1, x: 1}, unique: true}, {key: {x: 1}}]}"))).isTrue();
        assertThat(indexNames("ui_hashed")).contains("_id_1_x_1", "x_1");
    }

    @Test
    void aUniqueIndexLedByTheShardKeyIsAllowedAndOneBatchWithAnIncompatibleIndexCreatesNone() {
        shardOn("ui_ranged.c", "{k: 1}");

        assertThat(ok(run("ui_ranged", "{createIndexes: 'c', indexes: [{key: {k: 1, y: -1}, unique: true}]}"))).isTrue();
        BsonDocument mixed = run("ui_ranged", "{createIndexes: 'c', indexes: [{key: {z: 1}}, {key: {y: 1, k: 1}, unique: true}]}");

        assertThat(code(mixed)).isEqualTo(67);
        assertThat(indexNames("ui_ranged")).contains("k_1_y_-1").doesNotContain("z_1", "y_1_k_1");
    }

    @Test
    void anUnshardedCollectionTakesAnyUniqueIndex() {
        assertThat(ok(run("ui_unsharded", "{createIndexes: 'c', indexes: [{key: {x: 1}, unique: true}]}"))).isTrue();
    }

    @Test
    void shardCollectionIsRefusedOverAUniqueIndexTheProposedKeyDoesNotLead() {
        run("ui_prepare", "{createIndexes: 'c', indexes: [{key: {x: 1}, unique: true}]}");

        BsonDocument refused = run("ui_prepare", "{_shardsvrPrepareShardCollection: 'c', key: {_id: 'hashed'}}");
        BsonDocument compound = run("ui_prepare", "{_shardsvrPrepareShardCollection: 'c', key: {x: 1, y: 1}}");

        assertThat(code(refused)).isEqualTo(72);
        assertThat(refused.getString("errmsg").getValue()).isEqualTo("can't shard collection 'ui_prepare.c' with unique index on {\"x\": 1}"
                + " and proposed shard key {\"_id\": \"hashed\"}. Uniqueness can't be maintained unless shard key is a prefix");
        assertThat(code(compound)).as("{x: 1, y: 1} does not lead {x: 1}").isEqualTo(72);
        assertThat(ok(run("ui_prepare", "{insert: 'c', documents: [{_id: 1, x: 1}]}"))).as("the refusal left no critical section").isTrue();
        // a key leading the unique index, hashed or not, is accepted (equal x values hash alike, so they share a shard)
        assertThat(ok(run("ui_prepare", "{_shardsvrPrepareShardCollection: 'c', key: {x: 'hashed'}}"))).isFalse(); // no {x: 'hashed'} index yet
        run("ui_prepare", "{createIndexes: 'c', indexes: [{key: {x: 'hashed'}}]}");
        BsonDocument hashed = run("ui_prepare", "{_shardsvrPrepareShardCollection: 'c', key: {x: 'hashed'}}");
        assertThat(ok(hashed)).as(hashed.toJson()).isTrue();
    }

    @Test
    void shardCollectionWithUniqueTrueOnAnEmptyCollectionChecksTheOtherUniqueIndexes() {
        run("ui_unique", "{createIndexes: 'c', indexes: [{key: {a: 1, b: 1}, unique: true}]}");

        assertThat(code(run("ui_unique", "{_shardsvrPrepareShardCollection: 'c', key: {b: 1}, unique: true}"))).isEqualTo(72);
        BsonDocument prepared = run("ui_unique", "{_shardsvrPrepareShardCollection: 'c', key: {a: 1}, unique: true}");
        assertThat(ok(prepared)).as(prepared.toJson()).isTrue();
        assertThat(indexNames("ui_unique")).contains("a_1");
    }

    private static boolean ok(BsonDocument reply) {
        return reply.getNumber("ok").intValue() == 1;
    }

    private List<String> indexNames(String db) {
        return run(db, "{listIndexes: 'c'}").getDocument("cursor").getArray("firstBatch").stream()
                .map(i -> i.asDocument().getString("name").getValue()).toList();
    }
}
