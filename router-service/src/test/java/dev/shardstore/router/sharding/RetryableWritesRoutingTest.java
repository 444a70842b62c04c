package dev.shardstore.router.sharding;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.session.LogicalSessionId;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;

/**
 * The router's part of retryable writes (mongo/src/mongo/db/s/README.md "Retryable writes") on a collection {@code {x: 1}} split at 0
 * ({@code [MinKey, 0)} on sh1, {@code [0, MaxKey)} on sh2): each statement gets its client index as stmtId (or the
 * client's {@code stmtIds}), each shard gets {@code lsid}, {@code txnNumber} and the ids of its own statements;
 * multi-document statements are refused with MongoDB's write error; {@code txnNumber} needs {@code lsid};
 * {@code startSession} hands out a session id.
 */
class RetryableWritesRoutingTest extends RouterAgainstFakeCluster {
    private static final String LSID = "{id: {$binary: {base64: 'AAECAwQFBgcICQoLDA0ODw==', subType: '04'}}}";

    private static void shard(String db) {
        CLUSTER.shardCollection(db + ".c", new BsonDocument("x", new BsonInt32(1)), List.<BsonValue>of(new BsonInt32(0)), List.of("sh1", "sh2"));
    }

    private static List<Integer> stmtIds(BsonDocument sent) {
        return sent.getArray("stmtIds").stream().map(v -> v.asInt32().getValue()).toList();
    }

    @Test
    void eachShardGetsItsStatementsWithTheirIndexesAsStmtIds() throws Exception {
        shard("r1");
        Reply reply = command("r1", "{insert: 'c', ordered: false, documents: [{x: -1}, {x: 1}, {x: 2}, {x: -2}, {x: 3}], lsid: " + LSID
                + ", txnNumber: {$numberLong: '7'}}");

        reply.assertOk();
        assertThat(reply.n()).isEqualTo(5);
        BsonDocument toSh1 = sent(CLUSTER.sh1, "r1", "insert").getFirst();
        BsonDocument toSh2 = sent(CLUSTER.sh2, "r1", "insert").getFirst();
        assertThat(stmtIds(toSh1)).containsExactly(0, 3);
        assertThat(stmtIds(toSh2)).containsExactly(1, 2, 4);
        for (BsonDocument sent : List.of(toSh1, toSh2)) {
            assertThat(sent.getDocument("lsid")).isEqualTo(BsonDocument.parse(LSID));
            assertThat(sent.getInt64("txnNumber").getValue()).isEqualTo(7);
        }
    }

    @Test
    void theClientsStmtIdsAreHonoured() throws Exception {
        shard("r2");
        command("r2", "{update: 'c', updates: [{q: {x: 1}, u: {$set: {a: 1}}}, {q: {x: -1}, u: {$set: {a: 1}}}], lsid: " + LSID
                + ", txnNumber: {$numberLong: '1'}, stmtIds: [40, 41]}").assertOk();

        assertThat(stmtIds(sent(CLUSTER.sh2, "r2", "update").getFirst())).containsExactly(40);
        assertThat(stmtIds(sent(CLUSTER.sh1, "r2", "update").getFirst())).containsExactly(41);
    }

    @Test
    void withoutATxnNumberNoStmtIdsAreSent() throws Exception {
        shard("r3");
        command("r3", "{insert: 'c', documents: [{x: 1}], lsid: " + LSID + "}").assertOk();

        assertThat(sent(CLUSTER.sh2, "r3", "insert").getFirst().containsKey("stmtIds")).isFalse();
    }

    @Test
    void multiDocumentStatementsAreWriteErrorsAndNotSent() throws Exception {
        shard("r4");
        Reply update = command("r4", "{update: 'c', ordered: false, updates: [{q: {a: 1}, u: {$set: {b: 1}}, multi: true},"
                + " {q: {x: 1}, u: {$set: {b: 1}}}], lsid: " + LSID + ", txnNumber: {$numberLong: '1'}}");
        assertThat(update.n()).isEqualTo(1);
        assertThat(update.writeErrors()).singleElement().satisfies(e -> {
            assertThat(e.getInt32("index").getValue()).isZero();
            assertThat(e.getInt32("code").getValue()).isEqualTo(72);
            assertThat(e.getString("errmsg").getValue()).isEqualTo("Cannot use (or request) retryable writes with multi=true");
        });
        assertThat(sent(CLUSTER.sh1, "r4", "update")).isEmpty();
        assertThat(stmtIds(sent(CLUSTER.sh2, "r4", "update").getFirst())).containsExactly(1);

        Reply delete = command("r4", "{delete: 'c', deletes: [{q: {a: 1}, limit: 0}], lsid: " + LSID + ", txnNumber: {$numberLong: '2'}}");
        assertThat(delete.writeErrors()).singleElement()
                .satisfies(e -> assertThat(e.getString("errmsg").getValue()).isEqualTo("Cannot use (or request) retryable writes with limit=0"));
        assertThat(sent(CLUSTER.sh1, "r4", "delete")).isEmpty();
    }

    @Test
    void aTxnNumberNeedsAnLsid() throws Exception {
        Reply reply = command("r5", "{insert: 'c', documents: [{x: 1}], txnNumber: {$numberLong: '1'}}");

        assertThat(reply.body().getInt32("code").getValue()).isEqualTo(72);
        assertThat(reply.body().getString("errmsg").getValue()).isEqualTo("Transaction number requires a session ID to also be specified");
    }

    @Test
    void startSessionHandsOutANewSessionId() throws Exception {
        Reply first = command("admin", "{startSession: 1}");
        Reply second = command("test", "{startSession: 1}");

        first.assertOk();
        LogicalSessionId id = LogicalSessionId.parse(first.body().get("id"), "id");
        assertThat(LogicalSessionId.parse(second.body().get("id"), "id")).isNotEqualTo(id);
        assertThat(first.body().getInt32("timeoutMinutes").getValue()).isEqualTo(30);
    }
}
