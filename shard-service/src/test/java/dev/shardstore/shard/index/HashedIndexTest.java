package dev.shardstore.shard.index;

import static dev.shardstore.shard.index.IndexCommandsTest.assertError;
import static dev.shardstore.shard.index.IndexCommandsTest.ids;
import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.hash.BsonHasher;
import dev.shardstore.contracts.keystring.KeyString;
import dev.shardstore.contracts.keystring.Ordering;
import dev.shardstore.shard.ShardIntegrationTest;
import java.util.Arrays;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonNull;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;

/** Hashed indexes ({@code {a: "hashed"}}, alone or with ascending fields): creation, listing, maintenance, lookups. */
class HashedIndexTest extends ShardIntegrationTest {

    @Test
    void createdListedAndNamedLikeMongoDb() {
        BsonDocument created = run("hx1", "{createIndexes: 'c', indexes: [{key: {_id: 'hashed'}}, {key: {region: 1, h: 'hashed'}}]}");

        assertThat(created.getInt32("numIndexesAfter").getValue()).isEqualTo(3);
        assertThat(run("hx1", "{listIndexes: 'c'}").getDocument("cursor").getArray("firstBatch")).containsExactly(
                ExtendedJson.parse("{v: 2, key: {_id: 1}, name: '_id_'}"),
                ExtendedJson.parse("{v: 2, key: {_id: 'hashed'}, name: '_id_hashed'}"),
                ExtendedJson.parse("{v: 2, key: {region: 1, h: 'hashed'}, name: 'region_1_h_hashed'}"));
        assertError(run("hx1", "{createIndexes: 'c', indexes: [{key: {a: 'hashed', b: 'hashed'}}]}"), 67);
        assertError(run("hx1", "{createIndexes: 'c', indexes: [{key: {a: 'hashed'}, unique: true}]}"), 67);
        assertError(run("hx1", "{createIndexes: 'c', indexes: [{key: {a: 'hashedx'}}]}"), 238);
        assertThat(run("hx1", "{dropIndexes: 'c', index: {_id: 'hashed'}}").getNumber("ok").intValue()).isEqualTo(1);
    }

    @Test
    void entriesHoldTheHashOfTheValueAndFollowWrites() {
        run("hx2", "{insert: 'c', documents: [{_id: 1, a: 'x'}, {_id: 2, a: 5}, {_id: 3}]}");
        run("hx2", "{createIndexes: 'c', indexes: [{key: {a: 'hashed'}}]}");
        run("hx2", "{insert: 'c', documents: [{_id: 4, a: 'y'}]}");
        run("hx2", "{update: 'c', updates: [{q: {_id: 2}, u: {$set: {a: 6}}}]}");
        run("hx2", "{delete: 'c', deletes: [{q: {_id: 1}, limit: 1}]}");

        assertThat(keys("hx2", "a_hashed")).containsExactlyInAnyOrderElementsOf(List.of(
                hashKey(new BsonInt32(6)), hashKey(BsonNull.VALUE), hashKey(new BsonString("y"))));
        BsonDocument arrayInsert = run("hx2", "{insert: 'c', documents: [{_id: 5, a: [1, 2]}]}");
        assertThat(arrayInsert.getArray("writeErrors").get(0).asDocument().getInt32("code").getValue()).isEqualTo(2);
        assertThat(keys("hx2", "a_hashed")).hasSize(3);
    }

    @Test
    void anEqualityOnTheHashedFieldReadsOnePoint() {
        run("hx3", "{insert: 'c', documents: [{_id: 1, a: 'x', b: 1}, {_id: 2, a: 'y', b: 2}, {_id: 3, a: 'x', b: 3}, {_id: 4, b: 4}]}");
        run("hx3", "{createIndexes: 'c', indexes: [{key: {a: 'hashed'}}]}");

        BsonDocument explain = run("hx3", "{explain: {find: 'c', filter: {a: 'x'}}, verbosity: 'executionStats'}");

        assertThat(explain.getDocument("queryPlanner").getDocument("winningPlan").toJson()).contains("a_hashed");
        assertThat(explain.getDocument("executionStats").getNumber("totalKeysExamined").intValue()).isEqualTo(2);
        assertThat(ids(run("hx3", "{find: 'c', filter: {a: 'x'}}"))).containsExactly(1, 3);
        assertThat(ids(run("hx3", "{find: 'c', filter: {a: null}}"))).containsExactly(4);
        assertThat(ids(run("hx3", "{find: 'c', filter: {a: {$gt: 'x'}}}"))).as("ranges do not use the hash").containsExactly(2);
        assertThat(ids(run("hx3", "{find: 'c', filter: {a: 'y'}, hint: {a: 'hashed'}}"))).containsExactly(2);
    }

    private List<String> keys(String db, String index) {
        String table = jdbc.sql("SELECT i.table_name FROM indexes i JOIN collections c ON c.uuid = i.collection_uuid "
                + "WHERE c.namespace = ? AND i.name = ?").param(db + ".c").param(index).query(String.class).single();
        return jdbc.sql("SELECT key FROM " + table).query(byte[].class).list().stream().map(Arrays::toString).toList();
    }

    private static String hashKey(BsonValue value) {
        return Arrays.toString(KeyString.encode(List.of(new BsonInt64(BsonHasher.hash64(value))), Ordering.allAscending(1)));
    }
}
