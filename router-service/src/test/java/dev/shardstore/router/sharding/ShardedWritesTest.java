package dev.shardstore.router.sharding;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;

/**
 * Write targeting on a sharded collection {@code {x: 1}} split at 0 ({@code [MinKey, 0)} on sh1, {@code [0, MaxKey)}
 * on sh2): insert grouping by owning chunk, ordered/unordered batches, write error index mapping, and mongos'
 * targeting rules for update, delete and findAndModify (an untargetable single write refuses the command). The fake shards fail a statement with {@code fail: true}.
 */
class ShardedWritesTest extends RouterAgainstFakeCluster {
    private static void shard(String db) {
        CLUSTER.shardCollection(db + ".c", new BsonDocument("x", new BsonInt32(1)), List.<BsonValue>of(new BsonInt32(0)), List.of("sh1", "sh2"));
    }

    private static List<Integer> xs(BsonDocument insert) {
        return insert.getArray("documents").stream().map(d -> d.asDocument().getInt32("x").getValue()).toList();
    }

    @Test
    void anUnorderedInsertGoesToTheOwningShardsAndMapsWriteErrorsToTheClientsIndexes() throws Exception {
        shard("w1");
        Reply reply = command("w1", "{insert: 'c', ordered: false, documents: [{x: -1}, {x: 1}, {x: [1, 2]}, {x: -2, fail: true}, {x: 2}]}");

        reply.assertOk();
        assertThat(reply.n()).isEqualTo(3);
        assertThat(sent(CLUSTER.sh1, "w1", "insert")).singleElement().satisfies(b -> assertThat(xs(b)).containsExactly(-1, -2));
        assertThat(sent(CLUSTER.sh2, "w1", "insert")).singleElement().satisfies(b -> assertThat(xs(b)).containsExactly(1, 2));
        assertThat(reply.writeErrors()).hasSize(2);
        assertThat(reply.writeErrors().get(0).getInt32("index").getValue()).isEqualTo(2);
        assertThat(reply.writeErrors().get(0).getInt32("code").getValue()).isEqualTo(61);
        assertThat(reply.writeErrors().get(0).getString("errmsg").getValue()).contains("index 2").contains("array");
        assertThat(reply.writeErrors().get(1).getInt32("index").getValue()).isEqualTo(3);
        assertThat(reply.writeErrors().get(1).getInt32("code").getValue()).isEqualTo(11000);
    }

    @Test
    void anOrderedInsertSendsRunsInOrderAndStopsAtTheFirstError() throws Exception {
        shard("w2");
        Reply reply = command("w2", "{insert: 'c', documents: [{x: -1}, {x: -2}, {x: 1}, {x: -3, fail: true}, {x: 2}]}");

        reply.assertOk();
        assertThat(reply.n()).isEqualTo(3);
        assertThat(sent(CLUSTER.sh1, "w2", "insert")).extracting(ShardedWritesTest::xs).containsExactly(List.of(-1, -2), List.of(-3));
        assertThat(sent(CLUSTER.sh2, "w2", "insert")).extracting(ShardedWritesTest::xs).containsExactly(List.of(1));
        assertThat(reply.writeErrors()).singleElement().satisfies(e -> assertThat(e.getInt32("index").getValue()).isEqualTo(3));
    }

    @Test
    void anOrderedInsertStopsAtADocumentWithoutAUsableShardKey() throws Exception {
        shard("w3");
        Reply reply = command("w3", "{insert: 'c', documents: [{x: -1}, {x: [1]}, {x: 1}]}");

        assertThat(reply.n()).isEqualTo(1);
        assertThat(reply.writeErrors()).singleElement().satisfies(e -> {
            assertThat(e.getInt32("index").getValue()).isEqualTo(1);
            assertThat(e.getInt32("code").getValue()).isEqualTo(61);
        });
        assertThat(sent(CLUSTER.sh2, "w3", "insert")).isEmpty();
    }

    @Test
    void updatesAreTargetedByShardKeyOrBroadcastWhenMulti() throws Exception {
        shard("w4");
        Reply one = command("w4", "{update: 'c', updates: [{q: {x: 5}, u: {$set: {a: 1}}}]}");
        one.assertOk();
        assertThat(one.n()).isEqualTo(1);
        assertThat(sent(CLUSTER.sh1, "w4", "update")).isEmpty();
        assertThat(sent(CLUSTER.sh2, "w4", "update")).hasSize(1);

        Reply multi = command("w4", "{update: 'c', updates: [{q: {a: 1}, u: {$set: {b: 1}}, multi: true}]}");
        multi.assertOk();
        assertThat(multi.n()).isEqualTo(2);
        assertThat(multi.body().getNumber("nModified").intValue()).isEqualTo(2);
        assertThat(sent(CLUSTER.sh1, "w4", "update")).hasSize(1);
        assertThat(sent(CLUSTER.sh2, "w4", "update")).hasSize(2);

        Reply byId = command("w4", "{update: 'c', updates: [{q: {_id: 7}, u: {$set: {b: 2}}}]}");
        byId.assertOk();
        assertThat(sent(CLUSTER.sh1, "w4", "update")).hasSize(2);
        assertThat(sent(CLUSTER.sh2, "w4", "update")).hasSize(3);

        // a multi update bounded on the shard key goes only to the shards whose chunks the bounds intersect
        command("w4", "{update: 'c', updates: [{q: {x: {$gte: 10}}, u: {$set: {b: 3}}, multi: true}]}").assertOk();
        assertThat(sent(CLUSTER.sh1, "w4", "update")).hasSize(2);
        assertThat(sent(CLUSTER.sh2, "w4", "update")).hasSize(4);
    }

    @Test
    void anOrderedBatchSendsAMultiShardStatementAsARoundOfItsOwn() throws Exception {
        shard("w8");
        Reply reply = command("w8", "{update: 'c', updates: [{q: {x: 5}, u: {$set: {a: 1}}}, {q: {x: 6}, u: {$set: {a: 1}}},"
                + " {q: {a: 1}, u: {$set: {b: 1}}, multi: true}, {q: {x: -1}, u: {$set: {a: 1}}}]}");

        reply.assertOk();
        assertThat(reply.n()).isEqualTo(5);
        assertThat(sent(CLUSTER.sh2, "w8", "update")).extracting(u -> u.getArray("updates").size()).containsExactly(2, 1);
        assertThat(sent(CLUSTER.sh1, "w8", "update")).extracting(u -> u.getArray("updates").size()).containsExactly(1, 1);
        assertThat(sent(CLUSTER.sh1, "w8", "update").getFirst().getArray("updates").get(0).asDocument().getBoolean("multi").getValue()).isTrue();
    }

    @Test
    void aMultiUpsertWithoutTheShardKeyRefusesTheCommandBeforeAnythingIsSent() throws Exception {
        shard("w5");
        command("w5", "{update: 'c', updates: [{q: {x: -4}, u: {$set: {b: 1}}}, {q: {a: 1}, u: {$set: {b: 1}}, upsert: true, multi: true}]}")
                .assertError(400, 61, "Failed to target upsert by query");
        command("w5", "{update: 'c', updates: [{q: {a: 1}, u: {$set: {b: 1}}, upsert: true, multi: true}]}")
                .assertError(400, 61, "Failed to target upsert by query");
        assertThat(sent(CLUSTER.sh1, "w5", "update")).isEmpty();
        assertThat(sent(CLUSTER.sh2, "w5", "update")).isEmpty();

        Reply upsert = command("w5", "{update: 'c', updates: [{q: {x: {$eq: -4}}, u: {$set: {b: 1}}, upsert: true}]}");
        upsert.assertOk();
        assertThat(sent(CLUSTER.sh1, "w5", "update")).hasSize(1);
        assertThat(sent(CLUSTER.sh2, "w5", "update")).isEmpty();
    }

    /**
     * Writes carry {@code let} to the shards as sent; a bad one (or a refused option) refuses the command on the router
     * before anything is sent, not statement by statement on the shards. {@code $expr} never pins the shard key.
     */
    @Test
    void letGoesToTheShardsAndABadOneIsRefusedBeforeAnythingIsSent() throws Exception {
        shard("w9");
        command("w9", "{update: 'c', let: {v: 1}, updates: [{q: {x: -4, $expr: {$eq: ['$a', '$$v']}}, u: [{$set: {b: '$$v'}}]}]}").assertOk();
        assertThat(sent(CLUSTER.sh1, "w9", "update")).singleElement()
                .satisfies(u -> assertThat(u.getDocument("let")).isEqualTo(new BsonDocument("v", new BsonInt32(1))));
        Reply expr = command("w9", "{update: 'c', updates: [{q: {$expr: {$eq: ['$x', -4]}}, u: {$set: {b: 1}}}]}");
        expr.assertOk();
        assertThat(expr.n()).as("the fake shards hold nothing to match").isZero();
        assertThat(sent(CLUSTER.sh1, "w9", "find")).as("$expr did not narrow the read phase").hasSize(1);
        assertThat(sent(CLUSTER.sh2, "w9", "find")).hasSize(1);
        command("w9", "{update: 'c', let: {Bad: 1}, updates: [{q: {x: -4}, u: {$set: {b: 1}}}]}").assertError(400, 2, "'let.Bad'");
        command("w9", "{delete: 'c', let: 3, deletes: [{q: {x: -4}, limit: 1}]}").assertError(400, 14, "'let' must be a document");
        command("w9", "{findAndModify: 'c', query: {x: -4}, remove: true, let: {'a.b': 1}}").assertError(400, 2, "'let.a.b'");
        command("w9", "{update: 'c', updates: [{q: {x: -4}, u: {$set: {b: 1}}, collation: {locale: 'xx_YY'}}]}")
                .assertError(400, 2, "locale");
        assertThat(sent(CLUSTER.sh1, "w9", "update")).hasSize(1);
        assertThat(sent(CLUSTER.sh1, "w9", "delete")).isEmpty();
        assertThat(sent(CLUSTER.sh1, "w9", "findAndModify")).isEmpty();
    }

    @Test
    void deletesFollowTheSameRules() throws Exception {
        shard("w6");
        Reply reply = command("w6", "{delete: 'c', ordered: false, deletes: [{q: {x: -5}, limit: 1}, {q: {a: 1}, limit: 0}]}");

        reply.assertOk();
        assertThat(reply.n()).isEqualTo(3);
        assertThat(sent(CLUSTER.sh1, "w6", "delete")).singleElement().satisfies(d -> assertThat(d.getArray("deletes")).hasSize(2));
        assertThat(sent(CLUSTER.sh2, "w6", "delete")).singleElement().satisfies(d -> assertThat(d.getArray("deletes")).hasSize(1));
        Reply withoutKey = command("w6", "{delete: 'c', deletes: [{q: {a: 1}, limit: 1}]}");
        withoutKey.assertOk();
        assertThat(withoutKey.n()).as("read first (WritesWithoutShardKeyTest): the fake shards hold nothing").isZero();
        command("w6", "{delete: 'c', deletes: [{q: {}, limit: 2}]}").assertError(400, 9, "deletes.0.limit");
        assertThat(sent(CLUSTER.sh1, "w6", "delete")).hasSize(1);
    }

    @Test
    void findAndModifyWithTheShardKeyGoesToItsOwnerAndWithoutItReadsFirst() throws Exception {
        shard("w7");
        command("w7", "{findAndModify: 'c', query: {x: 3}, update: {$set: {a: 1}}}").assertOk();
        assertThat(sent(CLUSTER.sh2, "w7", "findAndModify")).hasSize(1);
        assertThat(sent(CLUSTER.sh1, "w7", "findAndModify")).isEmpty();

        Reply reply = command("w7", "{findAndModify: 'c', query: {_id: 4}, remove: true}");
        reply.assertOk();
        assertThat(reply.body().getDocument("lastErrorObject").getNumber("n").intValue()).isZero();
        assertThat(sent(CLUSTER.sh1, "w7", "find")).hasSize(1);
        assertThat(sent(CLUSTER.sh2, "w7", "find")).hasSize(1);
        assertThat(sent(CLUSTER.sh1, "w7", "findAndModify")).as("nothing found: nothing to write").isEmpty();
    }

    /**
     * A statement's collation decides whether its filter can pin a shard (MongoDB manual, "Collation": shard key string
     * equalities under a non-simple collation broadcast): chunk ranges are binary, so a string shard key equality under
     * one goes to every shard (multi) or reads first as a write without the shard key (single-document writes and
     * findAndModify, the read carrying the collation), while a numeric shard key still pins its owner.
     */
    @Test
    void underACollationAStringShardKeyEqualityReachesEveryShardAndANumericOneStillPinsItsOwner() throws Exception {
        CLUSTER.shardCollection("wc1.s", new BsonDocument("k", new BsonInt32(1)), List.<BsonValue>of(new BsonString("m")), List.of("sh1", "sh2"));
        String caseless = "collation: {locale: 'en', strength: 2}";
        command("wc1", "{update: 's', updates: [{q: {k: 'abc'}, u: {$set: {a: 1}}}]}").assertOk();
        assertThat(sent(CLUSTER.sh1, "wc1", "update")).as("binary: 'abc' < 'm' is sh1's").hasSize(1);
        assertThat(sent(CLUSTER.sh2, "wc1", "update")).isEmpty();

        command("wc1", "{update: 's', updates: [{q: {k: 'ABC'}, u: {$set: {a: 1}}, multi: true, " + caseless + "}]}").assertOk();
        assertThat(sent(CLUSTER.sh1, "wc1", "update")).hasSize(2);
        assertThat(sent(CLUSTER.sh2, "wc1", "update")).as("'ABC' equals 'abc' under the collation: every shard").hasSize(1);
        assertThat(sent(CLUSTER.sh2, "wc1", "update").getFirst().getArray("updates").get(0).asDocument().getDocument("collation")
                .getInt32("strength").getValue()).isEqualTo(2);

        for (String single : List.of("{update: 's', updates: [{q: {k: 'ABC'}, u: {$set: {a: 1}}, " + caseless + "}]}",
                "{delete: 's', deletes: [{q: {k: 'ABC'}, limit: 1, " + caseless + "}]}",
                "{findAndModify: 's', query: {k: 'ABC'}, remove: true, " + caseless + "}")) {
            int before = sent(CLUSTER.sh2, "wc1", "find").size();
            command("wc1", single).assertOk();
            assertThat(sent(CLUSTER.sh1, "wc1", "find")).as(single).hasSize(before + 1);
            assertThat(sent(CLUSTER.sh2, "wc1", "find")).as(single).hasSize(before + 1)
                    .last().satisfies(f -> assertThat(f.getDocument("collation").getInt32("strength").getValue()).isEqualTo(2));
        }
        assertThat(sent(CLUSTER.sh2, "wc1", "delete")).as("the fake shards hold nothing: nothing to write").isEmpty();
        command("wc1", "{delete: 's', deletes: [{q: {k: 'ABC'}, limit: 0, " + caseless + "}]}").assertOk();
        assertThat(sent(CLUSTER.sh1, "wc1", "delete")).hasSize(1);
        assertThat(sent(CLUSTER.sh2, "wc1", "delete")).hasSize(1);
        // an upsert cannot be targeted by a string shard key under the collation: multi refuses, single reads first
        command("wc1", "{update: 's', updates: [{q: {k: 'abc'}, u: {$set: {a: 1}}, upsert: true, multi: true, " + caseless + "}]}")
                .assertError(400, 61, "Failed to target upsert by query");

        shard("wc2");
        command("wc2", "{update: 'c', updates: [{q: {x: 5, name: 'abc'}, u: {$set: {a: 1}}, " + caseless + "}]}").assertOk();
        assertThat(sent(CLUSTER.sh2, "wc2", "update")).as("a number compares the same under any collation; 'abc' is no key").hasSize(1);
        assertThat(sent(CLUSTER.sh1, "wc2", "update")).isEmpty();
        command("wc2", "{findAndModify: 'c', query: {x: 5}, remove: true, " + caseless + "}").assertOk();
        assertThat(sent(CLUSTER.sh2, "wc2", "findAndModify")).hasSize(1);
        assertThat(sent(CLUSTER.sh1, "wc2", "find")).isEmpty();
        // an _id equality sends a single write to every shard, unless the _id is a string compared under the collation
        command("wc2", "{update: 'c', updates: [{q: {_id: 7}, u: {$set: {b: 2}}, " + caseless + "}]}").assertOk();
        assertThat(sent(CLUSTER.sh1, "wc2", "update")).hasSize(1);
        assertThat(sent(CLUSTER.sh1, "wc2", "find")).isEmpty();
        command("wc2", "{update: 'c', updates: [{q: {_id: 'seven'}, u: {$set: {b: 2}}, " + caseless + "}]}").assertOk();
        assertThat(sent(CLUSTER.sh1, "wc2", "find")).hasSize(1);
        command("wc2", "{update: 'c', updates: [{q: {$and: [{name: 'Seven'}, {_id: 'seven'}]}, u: {$set: {b: 2}}, " + caseless + "}]}")
                .assertOk();
        assertThat(sent(CLUSTER.sh1, "wc2", "find")).hasSize(2);
        assertThat(sent(CLUSTER.sh1, "wc2", "update")).hasSize(1);
        command("wc2", "{update: 'c', updates: [{q: {_id: 7, name: 'Seven'}, u: {$set: {b: 2}}, " + caseless + "}]}").assertOk();
        assertThat(sent(CLUSTER.sh1, "wc2", "update")).as("a number _id is one document per shard, whatever the string beside it")
                .hasSize(2);
        assertThat(sent(CLUSTER.sh1, "wc2", "find")).hasSize(2);
    }

    @Test
    void versionFieldsAClientSendsNeverReachTheShards() throws Exception {
        shard("w10");
        String bogusDatabaseVersion = "{uuid: {$binary: {base64: 'AAAAAAAAAAAAAAAAAAAAAA==', subType: '04'}}, lastMod: 99, timestamp: {$timestamp: {t: 1, i: 1}}}";
        // x: 5 belongs to sh2, which is not the primary: the router sends it no database version of its own
        Reply insert = command("w10", "{insert: 'c', documents: [{x: 5}], databaseVersion: " + bogusDatabaseVersion + "}");
        insert.assertOk();
        assertThat(insert.n()).isEqualTo(1);
        assertThat(sent(CLUSTER.sh2, "w10", "insert")).singleElement().satisfies(b -> assertThat(b.containsKey("databaseVersion")).isFalse());

        Reply list = command("w10", "{listCollections: 1, shardVersion: {e: {$oid: '000000000000000000000000'}, t: {$timestamp: {t: 1, i: 1}}, v: {$timestamp: {t: 7, i: 7}}}}");
        list.assertOk();
        assertThat(sent(CLUSTER.sh1, "w10", "listCollections")).singleElement().satisfies(b -> assertThat(b.containsKey("shardVersion")).isFalse());
    }
}
