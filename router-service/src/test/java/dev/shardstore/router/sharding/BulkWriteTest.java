package dev.shardstore.router.sharding;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;

/**
 * {@code bulkWrite} through a real router over the fake cluster ({@code <db>.s} sharded on {@code {x: 1}} split at 0:
 * negative x on sh1, the rest on sh2; {@code <db>.u} unsharded on sh1; the fake shards apply one document per statement
 * and fail a statement with {@code fail: true}): how ops become runs of collection commands, the results cursor and
 * counts, ordered and unordered error handling, statement ids of a retryable bulkWrite, and the refusals that write
 * nothing.
 */
class BulkWriteTest extends RouterAgainstFakeCluster {
    private static final String LSID = "{id: {$binary: {base64: 'AAECAwQFBgcICQoLDA0ODw==', subType: '04'}}}";

    private static void shard(String db) {
        CLUSTER.shardCollection(db + ".s", new BsonDocument("x", new BsonInt32(1)), List.<BsonValue>of(new BsonInt32(0)), List.of("sh1", "sh2"));
    }

    private static List<BsonDocument> results(Reply reply) {
        return reply.body().getDocument("cursor").getArray("firstBatch").stream().map(BsonValue::asDocument).toList();
    }

    private static int count(Reply reply, String field) {
        return reply.body().getNumber(field).intValue();
    }

    @Test
    void mixedOpsOnTwoCollectionsRunAsTheirCollectionCommandsAndReportEveryOp() throws Exception {
        shard("bw1");
        Reply reply = command("admin", """
                {bulkWrite: 1, nsInfo: [{ns: 'bw1.s'}, {ns: 'bw1.u'}], ops: [
                  {insert: 0, document: {x: -1}}, {insert: 0, document: {x: 1}}, {insert: 1, document: {_id: 1}},
                  {update: 0, filter: {x: 1}, updateMods: {$set: {a: 1}}},
                  {update: 1, filter: {_id: 1}, updateMods: {$set: {a: 1}}, upsert: true},
                  {delete: 1, filter: {_id: 1}}]}""");

        reply.assertOk();
        assertThat(reply.body().getDocument("cursor").getString("ns").getValue()).isEqualTo("admin.$cmd.bulkWrite");
        assertThat(results(reply)).extracting(e -> e.getInt32("idx").getValue()).containsExactly(0, 1, 2, 3, 4, 5);
        assertThat(results(reply)).allSatisfy(e -> assertThat(e.getInt32("ok").getValue()).isEqualTo(1));
        assertThat(results(reply).get(3).getInt32("nModified").getValue()).isEqualTo(1);
        assertThat(results(reply).get(5)).doesNotContainKey("nModified");
        assertThat(count(reply, "nInserted")).isEqualTo(3);
        assertThat(count(reply, "nMatched")).isEqualTo(2);
        assertThat(count(reply, "nModified")).isEqualTo(2);
        assertThat(count(reply, "nDeleted")).isEqualTo(1);
        assertThat(count(reply, "nErrors")).isZero();
        // the two consecutive inserts into bw1.s went as one insert command, split by owning shard
        assertThat(sent(CLUSTER.sh1, "bw1", "insert")).extracting(c -> c.getString("insert").getValue()).containsExactly("s", "u");
        assertThat(sent(CLUSTER.sh2, "bw1", "insert")).singleElement();
        assertThat(sent(CLUSTER.sh2, "bw1", "update")).singleElement();
        assertThat(sent(CLUSTER.sh1, "bw1", "delete")).singleElement();
    }

    @Test
    void anOrderedBulkWriteStopsAtTheFirstErrorAndReportsNothingAfterIt() throws Exception {
        shard("bw2");
        Reply reply = command("admin", """
                {bulkWrite: 1, nsInfo: [{ns: 'bw2.s'}], ops: [
                  {insert: 0, document: {x: -1}}, {insert: 0, document: {x: -2, fail: true}}, {insert: 0, document: {x: -3}},
                  {delete: 0, filter: {x: 5}}]}""");

        reply.assertOk();
        assertThat(results(reply)).extracting(e -> e.getInt32("idx").getValue()).containsExactly(0, 1);
        BsonDocument error = results(reply).get(1);
        assertThat(error.getInt32("ok").getValue()).isZero();
        assertThat(error.getInt32("code").getValue()).isEqualTo(11000);
        assertThat(error).doesNotContainKey("index");
        assertThat(count(reply, "nErrors")).isEqualTo(1);
        assertThat(count(reply, "nInserted")).isEqualTo(1);
        assertThat(sent(CLUSTER.sh2, "bw2", "delete")).isEmpty();
    }

    @Test
    void anUnorderedBulkWriteRunsEveryOpAndGroupsByCollectionAndKind() throws Exception {
        shard("bw3");
        Reply reply = command("admin", """
                {bulkWrite: 1, ordered: false, errorsOnly: true, nsInfo: [{ns: 'bw3.s'}, {ns: 'bw3.u'}], ops: [
                  {insert: 0, document: {x: -1}}, {insert: 1, document: {_id: 1, fail: true}}, {insert: 0, document: {x: -2}},
                  {update: 0, filter: {x: 1}, updateMods: {$set: {a: 1}}}, {update: 0, filter: {x: 2}, updateMods: {$set: {a: 1}}},
                  {insert: 1, document: {_id: 2}}]}""");

        reply.assertOk();
        assertThat(results(reply)).singleElement().satisfies(e -> {
            assertThat(e.getInt32("idx").getValue()).isEqualTo(1);
            assertThat(e.getInt32("code").getValue()).isEqualTo(11000);
        });
        assertThat(count(reply, "nInserted")).isEqualTo(3);
        assertThat(count(reply, "nMatched")).isEqualTo(2);
        // errorsOnly: both updates of bw3.s as one update command; the inserts into each collection as one command each
        assertThat(sent(CLUSTER.sh2, "bw3", "update")).singleElement().satisfies(u -> assertThat(u.getArray("updates")).hasSize(2));
        assertThat(sent(CLUSTER.sh1, "bw3", "insert")).extracting(c -> c.getArray("documents").size()).containsExactlyInAnyOrder(2, 2);
    }

    @Test
    void aRetryableBulkWriteGivesEveryOpItsIndexAsStatementId() throws Exception {
        shard("bw4");
        command("admin", "{bulkWrite: 1, nsInfo: [{ns: 'bw4.s'}, {ns: 'bw4.u'}], ops: [{insert: 1, document: {_id: 1}},"
                + " {insert: 0, document: {x: -1}}, {insert: 0, document: {x: 1}}, {delete: 0, filter: {x: -5}}], lsid: " + LSID
                + ", txnNumber: {$numberLong: '3'}, maxTimeMS: 60000}").assertOk();

        assertThat(sent(CLUSTER.sh1, "bw4", "insert")).extracting(c -> c.getArray("stmtIds"))
                .containsExactlyInAnyOrder(ids(0), ids(1));
        assertThat(sent(CLUSTER.sh2, "bw4", "insert")).singleElement().satisfies(c -> {
            assertThat(c.getArray("stmtIds")).isEqualTo(ids(2));
            assertThat(c.getInt64("txnNumber").getValue()).isEqualTo(3);
            assertThat(c.getNumber("maxTimeMS").intValue()).as("each shard enforces the bulkWrite's limit").isEqualTo(60000);
        });
        assertThat(sent(CLUSTER.sh1, "bw4", "delete")).singleElement().satisfies(c -> assertThat(c.getArray("stmtIds")).isEqualTo(ids(3)));
    }

    private static org.bson.BsonArray ids(int... ids) {
        org.bson.BsonArray array = new org.bson.BsonArray();
        for (int id : ids) {
            array.add(new BsonInt32(id));
        }
        return array;
    }

    @Test
    void aSmallBatchSizeLeavesTheRestOfTheResultsToGetMore() throws Exception {
        Reply reply = command("admin", "{bulkWrite: 1, cursor: {batchSize: 1}, nsInfo: [{ns: 'bw5.u'}], ops: ["
                + "{insert: 0, document: {_id: 1}}, {insert: 0, document: {_id: 2}}, {insert: 0, document: {_id: 3}}]}");

        reply.assertOk();
        assertThat(results(reply)).hasSize(1);
        long id = reply.body().getDocument("cursor").getNumber("id").longValue();
        assertThat(id).isNotZero();
        Reply more = command("admin", "{getMore: {$numberLong: '" + id + "'}, collection: '$cmd.bulkWrite'}");
        more.assertOk();
        assertThat(more.body().getDocument("cursor").getArray("nextBatch")).extracting(e -> e.asDocument().getInt32("idx").getValue())
                .containsExactly(1, 2);
    }

    @Test
    void everyDocumentedOptionIsTaken() throws Exception {
        BsonDocument command = dev.shardstore.contracts.bson.ExtendedJson.parse("""
                {bulkWrite: 1, nsInfo: [{ns: 'bw7.u'}], ops: [{update: 0, filter: {_id: 1}, updateMods: {$set: {v: '$$x'}}}],
                 ordered: false, errorsOnly: false, cursor: {batchSize: 10}, let: {x: 1}, bypassDocumentValidation: true}""");
        assertThat(command.keySet()).as("this command walks the whole bulkWrite row of CommandOptions")
                .containsAll(dev.shardstore.support.command.CommandOptions.table().get("bulkWrite").keySet());

        Reply reply = command("admin", command.toJson());

        reply.assertOk();
        BsonDocument sent = sent(CLUSTER.sh1, "bw7", "update").getFirst();
        assertThat(sent.getDocument("let")).isEqualTo(BsonDocument.parse("{x: 1}"));
        assertThat(sent.getBoolean("bypassDocumentValidation").getValue()).isTrue();
        assertThat(sent.getBoolean("ordered").getValue()).isFalse();
    }

    @Test
    void malformedOrRefusedOpsRefuseTheWholeCommandBeforeAnythingIsWritten() throws Exception {
        String ops = "ops: [{insert: 0, document: {_id: 1}}, ";
        command("bw6", "{bulkWrite: 1, nsInfo: [{ns: 'bw6.u'}], ops: [{insert: 0, document: {_id: 1}}]}")
                .assertError(400, 20, "bulkWrite may only be run against the admin database");
        command("admin", "{bulkWrite: 1, nsInfo: [{ns: 'bw6.u'}], " + ops + "{insert: 1, document: {}}]}").assertError(400, 2, "ops entry 1");
        command("admin", "{bulkWrite: 1, nsInfo: [{ns: 'bw6.u'}], " + ops + "{replace: 0, document: {}}]}").assertError(400, 9, "ops entry 1");
        command("admin", "{bulkWrite: 1, nsInfo: [{ns: 'bw6.u'}], " + ops + "{delete: 0, filter: {}, upsert: true}]}")
                .assertError(400, 40415, "bulkWrite.ops.delete.upsert");
        command("admin", "{bulkWrite: 1, nsInfo: [{ns: 'bw6.u'}], " + ops + "{update: 0, filter: {}}]}")
                .assertError(400, 9, "bulkWrite.ops.1.updateMods");
        command("admin", "{bulkWrite: 1, nsInfo: [{ns: 'bw6.u', collectionUUID: {$binary: {base64: 'AAECAwQFBgcICQoLDA0ODw==', subType: '04'}}}],"
                + " ops: [{insert: 0, document: {}}]}").assertError(400, 238, "bulkWrite.nsInfo.0.collectionUUID");
        command("admin", "{bulkWrite: 1, nsInfo: [{ns: 'config.u'}], ops: [{insert: 0, document: {}}]}").assertError(400, 73, "config");
        command("admin", "{bulkWrite: 1, nsInfo: [{ns: 'bw6.u'}], ops: []}").assertError(400, 16, "ops");
        command("admin", "{bulkWrite: 1, nsInfo: [{ns: 'bw6.u'}], " + ops + "{insert: 0, document: {}}], bogus: 1}")
                .assertError(400, 40415, "bulkWrite.bogus");

        assertThat(sent(CLUSTER.sh1, "bw6", "insert")).isEmpty();
    }
}
