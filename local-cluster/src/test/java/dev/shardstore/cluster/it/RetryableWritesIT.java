package dev.shardstore.cluster.it;

import static dev.shardstore.cluster.it.ItSupport.waitUntil;
import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.cluster.bench.RetryableWritesBenchmark;
import dev.shardstore.cluster.router.RouterException;
import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.session.LogicalSessionId;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Retryable writes end to end (mongo/src/mongo/db/s/README.md "Retryable writes") on a local cluster (2 shards, 1 router, test commands on,
 * ports offset 2700) with {@code retryit.c} sharded on {@code {x: 1}}, {@code [MinKey, 400)} on one shard and
 * {@code [400, MaxKey)} on the other:
 * <ol>
 *   <li>each kind of write (insert, update with an upsert, delete, findAndModify) is sent through the router with an
 *       {@code lsid} and {@code txnNumber}, its reply dropped, and sent again: one effect, and the same reply;</li>
 *   <li>the shard is killed (a crash fail point: {@code Runtime.halt}, what kill -9 leaves) right after the write's
 *       transaction committed and before it replied; restarted, the retry is answered from the history and applies
 *       nothing twice.</li>
 * </ol>
 * <ol start="3">
 *   <li>after a retryable insert and update, the chunk holding their documents moves; the update resent is answered by
 *       the recipient from the history that moved with the chunk, and the older insert is TransactionTooOld there.</li>
 * </ol>
 * A last method runs a concurrent insert load with retryable writes off and on: every document is stored once.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@OnSharedCluster
class RetryableWritesIT {
    private static final String DB = "retryit";
    private static final String NS = DB + ".c";
    private static MigrationCluster c;
    /** The shard owning {@code [MinKey, 400)}: the database's primary. */
    private static String lowShard;
    @RegisterExtension
    static final ThreadDumpOnFailure THREAD_DUMPS = new ThreadDumpOnFailure(() -> c == null ? null : c.cluster);

    @BeforeAll
    static void onSharedCluster(MigrationCluster shared) throws Exception {
        c = shared;
        c.shardAndFill(DB, "c", 600, 400);
        lowShard = c.ownerOf(NS, 400); // every chunk starts on the primary
        c.ok("admin", "{\"moveChunk\": \"" + NS + "\", \"find\": {\"x\": 400}, \"to\": \"" + MigrationCluster.other(lowShard) + "\"}");
        assertThat(c.ownerOf(NS, 400)).isNotEqualTo(lowShard);
    }

    private static BsonDocument retryable(String json, LogicalSessionId lsid, long txnNumber) {
        return ExtendedJson.parse(json).append("lsid", lsid.toBson()).append("txnNumber", new BsonInt64(txnNumber));
    }

    /** Sends {@code command} through the router, drops the reply, sends it again; checks the replies are equal. */
    private static BsonDocument sentTwice(BsonDocument command) {
        BsonDocument first = withoutClusterTime(c.router.run(DB, command.clone()));
        BsonDocument second = withoutClusterTime(c.router.run(DB, command.clone()));
        assertThat(second).as("the retry's reply to %s", command.toJson()).isEqualTo(first);
        return second;
    }

    private static BsonDocument withoutClusterTime(BsonDocument reply) {
        reply.remove("$clusterTime");
        reply.remove("operationTime");
        return reply;
    }

    private static List<BsonDocument> find(String filter) {
        return c.ok(DB, "{\"find\": \"c\", \"filter\": " + filter + "}").getDocument("cursor").getArray("firstBatch")
                .stream().map(BsonValue::asDocument).toList();
    }

    @Test
    @Order(1)
    void eachKindOfWriteRetriedHasOneEffectAndTheSameReply() {
        LogicalSessionId lsid = LogicalSessionId.random();
        BsonDocument insert = sentTwice(retryable("{\"insert\": \"c\", \"documents\": [{\"_id\": 1000, \"x\": 100}, {\"_id\": 1001, \"x\": 500}]}", lsid, 1));
        assertThat(insert.getNumber("n").intValue()).as(insert.toJson()).isEqualTo(2);
        assertThat(insert.containsKey("writeErrors")).as(insert.toJson()).isFalse();
        assertThat(find("{\"_id\": {\"$in\": [1000, 1001]}}")).hasSize(2);

        BsonDocument update = sentTwice(retryable("{\"update\": \"c\", \"updates\": [{\"q\": {\"x\": 10}, \"u\": {\"$inc\": {\"c\": 1}}},"
                + " {\"q\": {\"x\": 700, \"_id\": \"up\"}, \"u\": {\"$inc\": {\"c\": 1}}, \"upsert\": true},"
                + " {\"q\": {\"x\": 510}, \"u\": {\"$inc\": {\"c\": 1}}}]}", lsid, 2));
        assertThat(update.getNumber("n").intValue()).as(update.toJson()).isEqualTo(3);
        assertThat(update.getNumber("nModified").intValue()).isEqualTo(2);
        assertThat(update.getArray("upserted").get(0).asDocument().getString("_id").getValue()).isEqualTo("up");
        assertThat(find("{\"x\": {\"$in\": [10, 510, 700]}}")).as("each updated or upserted once")
                .allSatisfy(doc -> assertThat(doc.getNumber("c").intValue()).isEqualTo(1)).hasSize(3);

        BsonDocument delete = sentTwice(retryable("{\"delete\": \"c\", \"deletes\": [{\"q\": {\"x\": 20}, \"limit\": 1},"
                + " {\"q\": {\"x\": 520}, \"limit\": 1}]}", lsid, 3));
        assertThat(delete.getNumber("n").intValue()).as("the retry answers n: 2 although nothing is left to delete: %s", delete.toJson())
                .isEqualTo(2);
        assertThat(find("{\"x\": {\"$in\": [20, 520]}}")).isEmpty();

        BsonDocument modified = sentTwice(retryable("{\"findAndModify\": \"c\", \"query\": {\"x\": 30}, \"update\": {\"$inc\": {\"c\": 1}}}", lsid, 4));
        assertThat(modified.getDocument("value")).isEqualTo(ExtendedJson.parse("{\"_id\": 30, \"x\": 30}"));
        assertThat(find("{\"x\": 30}")).singleElement().satisfies(doc -> assertThat(doc.getNumber("c").intValue()).isEqualTo(1));

        BsonDocument tooOld = c.router.run(DB, retryable("{\"insert\": \"c\", \"documents\": [{\"_id\": 1002, \"x\": 102}]}", lsid, 1));
        assertThat(tooOld.toJson()).as("txnNumber 1 after 4 on the shard of x: 102").contains("TransactionTooOld");
        assertThat(find("{\"_id\": 1002}")).isEmpty();
    }

    @Test
    @Order(2)
    void aShardKilledAfterItsCommitAndBeforeItsReplyAppliesTheRetryOnce() throws Exception {
        String shard = lowShard; // owns x: 50
        BsonDocument command = retryable("{\"update\": \"c\", \"updates\": [{\"q\": {\"x\": 50}, \"u\": {\"$inc\": {\"c\": 1}}}]}",
                LogicalSessionId.random(), 1);
        c.failPoints.configure(shard, "retryableWrite.afterStatementCommitted", "crash");
        BsonDocument lost = attempt(() -> c.router.run(DB, command.clone()));
        System.out.println("[retryable-writes-it] the reply while " + shard + " crashed: " + lost.toJson());
        waitUntil(() -> !c.running(shard), Duration.ofSeconds(120), shard + " crashed after its commit");
        c.cluster.startService(shard);

        BsonDocument retried = c.router.run(DB, command.clone());
        assertThat(retried.getNumber("n").intValue()).as(retried.toJson()).isEqualTo(1);
        assertThat(retried.getNumber("nModified").intValue()).as(retried.toJson()).isEqualTo(1);
        assertThat(retried.containsKey("writeErrors")).as(retried.toJson()).isFalse();
        assertThat(find("{\"x\": 50}")).singleElement().satisfies(doc -> assertThat(doc.getNumber("c").intValue())
                .as("the update committed before the crash and was not applied again").isEqualTo(1));
    }

    @Test
    @Order(3)
    void aRetryAfterTheDocumentsChunkMovedIsAnsweredFromTheHistoryThatMovedWithIt() {
        LogicalSessionId lsid = LogicalSessionId.random();
        BsonDocument insert = retryable("{\"insert\": \"c\", \"documents\": [{\"_id\": 2000, \"x\": 70}]}", lsid, 1);
        BsonDocument update = retryable("{\"update\": \"c\", \"updates\": [{\"q\": {\"x\": 60}, \"u\": {\"$inc\": {\"c\": 1}}}]}", lsid, 2);
        BsonDocument inserted = withoutClusterTime(c.router.run(DB, insert.clone()));
        BsonDocument updated = withoutClusterTime(c.router.run(DB, update.clone()));
        assertThat(updated.getNumber("nModified").intValue()).as(updated.toJson()).isEqualTo(1);
        String donor = lowShard; // owns [MinKey, 400)

        BsonDocument moved = c.moveChunk(NS, 60, MigrationCluster.other(donor));
        assertThat(moved.getNumber("ok").intValue()).as(moved.toJson()).isEqualTo(1);

        assertThat(withoutClusterTime(c.router.run(DB, update.clone()))).as("the update resent to the recipient").isEqualTo(updated);
        assertThat(find("{\"x\": 60}")).singleElement().satisfies(doc -> assertThat(doc.getNumber("c").intValue())
                .as("applied once, on the donor before the move").isEqualTo(1));
        BsonDocument older = c.router.run(DB, insert.clone());
        assertThat(older.toJson()).as("txnNumber 1 after 2 moved with the session's history").contains("TransactionTooOld");
        assertThat(find("{\"_id\": 2000}")).hasSize(1);
        assertThat(inserted.getNumber("n").intValue()).isEqualTo(1);
    }

    /**
     * 4 clients insert 4,000 documents through the router over both shards, once as plain inserts and once as retryable
     * writes: every insert is acknowledged and each document is stored exactly once either way. (The throughput of the
     * two is measured by {@code RetryableWritesBenchmark}, outside the tests.)
     */
    @Test
    @Order(4)
    void concurrentLoadsWithAndWithoutRetryableWritesStoreEveryDocumentOnce() throws Exception {
        for (boolean retryable : new boolean[] {false, true}) {
            int firstId = retryable ? 11_000_000 : 10_000_000;
            assertThat(RetryableWritesBenchmark.insertLoad(c.router, DB, "c", firstId, retryable)).as("acknowledged, retryable: %s", retryable)
                    .isEqualTo(RetryableWritesBenchmark.LOAD_DOCUMENTS);
            BsonDocument count = c.router.run(DB, ExtendedJson.parse("{\"count\": \"c\", \"query\": {\"_id\": {\"$gte\": " + firstId
                    + ", \"$lt\": " + (firstId + RetryableWritesBenchmark.LOAD_DOCUMENTS) + "}}}"));
            assertThat(count.getNumber("n").intValue()).as("stored, retryable: %s", retryable).isEqualTo(RetryableWritesBenchmark.LOAD_DOCUMENTS);
        }
    }

    /** The router's reply, or the client's error as {@code {ok: 0, errmsg}} (the router may time out on the dead shard). */
    private static BsonDocument attempt(Supplier<BsonDocument> call) {
        try {
            return call.get();
        } catch (RouterException e) {
            return new BsonDocument("ok", new BsonDouble(0)).append("errmsg", new BsonString(e.getMessage()));
        }
    }
}
