package dev.shardstore.router.sharding;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.bson.ExtendedJson;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;

/**
 * MongoDB 7.1's single-document writes without the shard key through the router ({@code updateOne},
 * {@code replaceOne}, {@code deleteOne}, {@code findAndModify}, upserts; {@code sort} where MongoDB has it: update statements and findAndModify), on {@code c} sharded on {@code {x: 1}} split at
 * 0 ({@code [MinKey, 0)} on sh1, {@code [0, MaxKey)} on sh2), the fake shards holding real documents answered by the
 * query engine: a read phase over the shards, then the write on the owner pinned to the document's {@code _id} with the
 * shard version the read saw; a split, a move or a concurrent change between the phases (the cluster's
 * {@code beforeVersionedWrite} hook) reruns both, and exactly one document changes.
 */
class WritesWithoutShardKeyTest extends RouterAgainstFakeCluster {
    private static String shardWithDocuments(String db) {
        String ns = db + ".c";
        CLUSTER.shardCollection(ns, new BsonDocument("x", new BsonInt32(1)), List.<BsonValue>of(new BsonInt32(0)), List.of("sh1", "sh2"));
        CLUSTER.insertOwned(ns, Stream.of("{_id: 1, x: -2, a: 1}", "{_id: 2, x: -1, a: 1}", "{_id: 3, x: 1, a: 1}", "{_id: 4, x: 2, a: 2}")
                .map(ExtendedJson::parse).toList());
        return ns;
    }

    private static List<BsonDocument> all(String ns) {
        List<BsonDocument> docs = new ArrayList<>(CLUSTER.store("sh1", ns).documents());
        docs.addAll(CLUSTER.store("sh2", ns).documents());
        return docs;
    }

    private static List<Integer> idsWith(String ns, String field) {
        return all(ns).stream().filter(d -> d.containsKey(field) && d.isInt32("_id")).map(d -> d.getInt32("_id").getValue()).sorted().toList();
    }

    @Test
    void updateOneWithoutTheShardKeyChangesExactlyOneDocumentOnItsOwner() throws Exception {
        String ns = shardWithDocuments("wk1");

        Reply reply = command("wk1", "{update: 'c', updates: [{q: {a: 1}, u: {$set: {b: 1}}}]}");

        reply.assertOk();
        assertThat(reply.n()).isEqualTo(1);
        assertThat(reply.body().getNumber("nModified").intValue()).isEqualTo(1);
        assertThat(idsWith(ns, "b")).hasSize(1);
        assertThat(sent(CLUSTER.sh1, "wk1", "find")).singleElement().satisfies(f -> {
            assertThat(f.getNumber("limit").intValue()).isEqualTo(1);
            assertThat(f.containsKey("shardVersion")).isTrue();
        });
        assertThat(sent(CLUSTER.sh2, "wk1", "find")).hasSize(1);
        List<BsonDocument> writes = Stream.concat(sent(CLUSTER.sh1, "wk1", "update").stream(), sent(CLUSTER.sh2, "wk1", "update").stream()).toList();
        assertThat(writes).singleElement().satisfies(u -> assertThat(u.getArray("updates").get(0).asDocument().getDocument("q").toJson())
                .contains("$and").contains("_id"));
    }

    @Test
    void sortPicksTheDocumentAcrossShardsForUpdateReplaceAndFindAndModify() throws Exception {
        String ns = shardWithDocuments("wk2");

        command("wk2", "{update: 'c', updates: [{q: {a: 1}, u: {$set: {top: true}}, sort: {x: -1}}]}").assertOk();
        command("wk2", "{update: 'c', updates: [{q: {a: 1}, u: {x: -2, a: 1, replaced: true}, sort: {x: 1}}]}").assertOk();
        Reply deleted = command("wk2", "{findAndModify: 'c', query: {a: {$gte: 1}}, sort: {x: -1}, remove: true}");

        assertThat(idsWith(ns, "replaced")).containsExactly(1);
        deleted.assertOk();
        assertThat(deleted.body().getDocument("value").getInt32("_id").getValue()).isEqualTo(4);
        assertThat(all(ns)).as("x: 2 was the highest").extracting(d -> d.getInt32("_id").getValue()).containsExactlyInAnyOrder(1, 2, 3);
        assertThat(idsWith(ns, "top")).as("x: 1 is the highest with a: 1").containsExactly(3);
    }

    @Test
    void nothingMatchingIsNZeroAndAnUpsertInsertsOnTheOwnerOfTheNewDocument() throws Exception {
        String ns = shardWithDocuments("wk3");

        Reply none = command("wk3", "{update: 'c', updates: [{q: {a: 42}, u: {$set: {b: 1}}}]}");
        Reply upsert = command("wk3", "{update: 'c', updates: [{q: {a: 9}, u: {$set: {x: 5, up: 1}}, upsert: true}]}");
        Reply upsertWithoutKey = command("wk3", "{update: 'c', updates: [{q: {a: 10}, u: {$set: {up: 2}}, upsert: true}]}");

        none.assertOk();
        assertThat(none.n()).isZero();
        upsert.assertOk();
        assertThat(upsert.n()).isEqualTo(1);
        assertThat(upsert.body().getArray("upserted")).singleElement()
                .satisfies(u -> assertThat(u.asDocument().getInt32("index").getValue()).isZero());
        assertThat(CLUSTER.store("sh2", ns).documents()).extracting(d -> d.get("up")).contains(new BsonInt32(1));
        // no x: the shard key is null, which sorts below 0: sh1's chunk
        assertThat(CLUSTER.store("sh1", ns).documents()).extracting(d -> d.get("up")).contains(new BsonInt32(2));
        command("wk3", "{update: 'c', updates: [{q: {a: 9}, u: {$set: {b: 1}}, upsert: true, multi: true}]}")
                .assertError(400, 61, "Failed to target upsert by query");
    }

    @Test
    void findAndModifyWithoutTheShardKeyHonoursSortRemoveAndUpsert() throws Exception {
        String ns = shardWithDocuments("wk4");

        Reply updated = command("wk4", "{findAndModify: 'c', query: {a: 1}, sort: {x: -1}, update: {$set: {b: 1}}, new: true}");
        Reply removed = command("wk4", "{findAndModify: 'c', query: {a: 1}, sort: {x: 1}, remove: true}");
        Reply upserted = command("wk4", "{findAndModify: 'c', query: {a: 7}, update: {$set: {x: 3}}, upsert: true, new: true}");
        Reply none = command("wk4", "{findAndModify: 'c', query: {a: 8}, remove: true}");

        updated.assertOk();
        assertThat(updated.body().getDocument("value").getInt32("_id").getValue()).isEqualTo(3);
        assertThat(updated.body().getDocument("value").getInt32("b").getValue()).isEqualTo(1);
        assertThat(removed.body().getDocument("value").getInt32("_id").getValue()).isEqualTo(1);
        assertThat(upserted.body().getDocument("lastErrorObject").getBoolean("updatedExisting").getValue()).isFalse();
        assertThat(CLUSTER.store("sh2", ns).documents()).anySatisfy(d -> assertThat(d.getInt32("a").getValue()).isEqualTo(7));
        none.assertOk();
        assertThat(none.body().getDocument("lastErrorObject").getNumber("n").intValue()).isZero();
        assertThat(none.body().isNull("value")).isTrue();
        assertThat(all(ns)).extracting(d -> d.get("_id")).doesNotContain(new BsonInt32(1));
    }

    @Test
    void aSplitBetweenTheReadAndTheWriteRerunsBothAndOneDocumentChanges() throws Exception {
        String ns = shardWithDocuments("wk5");
        CLUSTER.beforeVersionedWrite.set(() -> CLUSTER.splitChunk(ns, 1, new BsonInt32(5)));

        Reply reply = command("wk5", "{update: 'c', updates: [{q: {a: 1}, u: {$inc: {n: 1}}, sort: {x: -1}}]}");

        reply.assertOk();
        assertThat(reply.n()).isEqualTo(1);
        assertThat(idsWith(ns, "n")).containsExactly(3);
        assertThat(sent(CLUSTER.sh2, "wk5", "update")).hasSize(2); // StaleConfig, then the write after the reread
        assertThat(sent(CLUSTER.sh2, "wk5", "find")).hasSize(2);
    }

    @Test
    void aMoveBetweenTheReadAndTheWriteWritesOnTheNewOwnerOnce() throws Exception {
        String ns = shardWithDocuments("wk6");
        CLUSTER.beforeVersionedWrite.set(() -> {
            CLUSTER.moveChunk(ns, 1, "sh1");
            CLUSTER.migrateDocuments(ns);
        });

        Reply reply = command("wk6", "{findAndModify: 'c', query: {a: 1}, sort: {x: -1}, update: {$inc: {n: 1}}, new: true}");

        reply.assertOk();
        assertThat(reply.body().getDocument("value").getInt32("n").getValue()).isEqualTo(1);
        assertThat(CLUSTER.store("sh2", ns).documents()).isEmpty();
        assertThat(CLUSTER.store("sh1", ns).documents()).filteredOn(d -> d.containsKey("n")).singleElement()
                .satisfies(d -> assertThat(d.getInt32("_id").getValue()).isEqualTo(3));
        assertThat(sent(CLUSTER.sh1, "wk6", "findAndModify")).hasSize(1);
    }

    @Test
    void aDocumentChangedBetweenTheReadAndTheWriteIsLookedUpAgain() throws Exception {
        String ns = shardWithDocuments("wk7");
        // the document the read picked (x: 1, _id 3) stops matching before the write reaches its shard
        CLUSTER.beforeVersionedWrite.set(() -> CLUSTER.store("sh2", ns).update(ExtendedJson.parse("{a: [{q: {_id: 3}, u: {$set: {a: 0}}}]}")
                .getArray("a")));

        Reply reply = command("wk7", "{update: 'c', updates: [{q: {a: 1}, u: {$set: {b: 1}}, sort: {x: -1}}]}");

        reply.assertOk();
        assertThat(reply.n()).isEqualTo(1);
        assertThat(idsWith(ns, "b")).as("x: -1 is the highest with a: 1 once x: 1 changed").containsExactly(2);
    }

    @Test
    void anOrderedBatchMixesTargetedAndTwoPhaseStatementsInOrder() throws Exception {
        String ns = shardWithDocuments("wk8");

        Reply reply = command("wk8", "{update: 'c', updates: [{q: {x: -2}, u: {$set: {s: 1}}}, {q: {a: 2}, u: {$set: {s: 2}}},"
                + " {q: {x: 1}, u: {$set: {s: 3}}}]}");

        reply.assertOk();
        assertThat(reply.n()).isEqualTo(3);
        assertThat(idsWith(ns, "s")).containsExactly(1, 3, 4);
    }
}
