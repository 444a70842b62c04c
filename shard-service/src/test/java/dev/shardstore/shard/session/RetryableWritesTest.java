package dev.shardstore.shard.session;

import dev.shardstore.support.operation.OperationContext;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.keystring.KeyString;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.session.LogicalSessionId;
import dev.shardstore.shard.ShardIntegrationTest;
import dev.shardstore.shard.storage.MigratedSessionHistory;
import dev.shardstore.shard.storage.WriteUnitOfWork;
import dev.shardstore.support.failpoint.FailPointAction;
import dev.shardstore.support.failpoint.FailPoints;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.bson.BsonBinary;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * Retryable writes on one shard against real PostgreSQL (mongo/src/mongo/db/s/README.md "Retryable writes", "The logical session catalog",
 * "The transactions table"): each kind of write sent twice with the same lsid, txnNumber and stmtIds has one effect and
 * the same reply; TransactionTooOld (225); IncompleteTransactionHistory (217) once the history is gone; a higher
 * txnNumber starts afresh; multi writes are refused; the session's row commits or rolls back with the write; checkout
 * serializes two commands of one session (real threads).
 */
class RetryableWritesTest extends ShardIntegrationTest {
    private static final OperationContext TEST = OperationContext.internal("test");
    private static final String DB = "retry";

    @Autowired
    SessionCatalog catalog;
    @Autowired
    FailPoints failPoints;
    @Autowired
    WriteUnitOfWork units;
    @Autowired
    MigratedSessionHistory migrated;

    private static BsonDocument retryable(String json, LogicalSessionId lsid, long txnNumber) {
        return ExtendedJson.parse(json).append("lsid", lsid.toBson()).append("txnNumber", new BsonInt64(txnNumber));
    }

    /** Sends {@code command} twice and checks both replies are equal; returns the reply. */
    private BsonDocument twice(BsonDocument command) {
        BsonDocument first = run(DB, command.clone());
        BsonDocument second = run(DB, command.clone());
        assertThat(second).as("the retry's reply").isEqualTo(first);
        return first;
    }

    private long sessionEntries(LogicalSessionId lsid) {
        return jdbc.sql("SELECT count(*) FROM oplog WHERE lsid = ?").param(dev.shardstore.contracts.bson.BsonBytes.encode(lsid.toBson()))
                .query(Long.class).single();
    }

    private boolean hasTransactionRow(LogicalSessionId lsid) {
        return jdbc.sql("SELECT count(*) FROM transactions WHERE lsid = ?").param(dev.shardstore.contracts.bson.BsonBytes.encode(lsid.toBson()))
                .query(Long.class).single() > 0;
    }

    @Test
    void anInsertRetriedIsInsertedOnce() {
        LogicalSessionId lsid = LogicalSessionId.random();
        BsonDocument reply = twice(retryable("{insert: 'ins', documents: [{_id: 1}, {_id: 2}]}", lsid, 1));
        assertThat(reply.getInt32("n").getValue()).isEqualTo(2);
        assertThat(reply.containsKey("writeErrors")).as(reply.toJson()).isFalse();
        assertThat(documentsOf(DB, "ins")).hasSize(2);
        assertThat(sessionEntries(lsid)).isEqualTo(2);
        assertThat(hasTransactionRow(lsid)).isTrue();
    }

    @Test
    void aBatchInsertChainsItsStatementsInOneTransaction() {
        LogicalSessionId lsid = LogicalSessionId.random();
        twice(retryable("{insert: 'chain', documents: [{_id: 1}, {_id: 2}, {_id: 3}], stmtIds: [7, 8, 9]}", lsid, 1));
        List<long[]> entries = jdbc.sql("SELECT ts_key, stmt_id, coalesce(prev_op_time, 0) FROM oplog WHERE lsid = ? ORDER BY ts_key")
                .param(dev.shardstore.contracts.bson.BsonBytes.encode(lsid.toBson()))
                .query((rs, i) -> new long[] {rs.getLong(1), rs.getLong(2), rs.getLong(3)}).list();
        assertThat(entries).extracting(e -> e[1]).containsExactly(7L, 8L, 9L);
        assertThat(jdbc.sql("SELECT count(DISTINCT xmin::text) FROM oplog WHERE lsid = ?").param(dev.shardstore.contracts.bson.BsonBytes.encode(lsid.toBson()))
                .query(Long.class).single()).as("the batch was written by one transaction").isEqualTo(1);
        assertThat(entries.get(0)[2]).as("the first statement of the txnNumber has no previous write").isZero();
        assertThat(entries.get(1)[2]).isEqualTo(entries.get(0)[0]);
        assertThat(entries.get(2)[2]).isEqualTo(entries.get(1)[0]);
        assertThat(jdbc.sql("SELECT last_write_op_time FROM transactions WHERE lsid = ?").param(dev.shardstore.contracts.bson.BsonBytes.encode(lsid.toBson()))
                .query(Long.class).single()).isEqualTo(entries.get(2)[0]);
    }

    @Test
    void anOrderedInsertStoppedByADuplicateIsRetriedWithTheSameReply() {
        insertInto(DB, "stop", "{_id: 2}");
        LogicalSessionId lsid = LogicalSessionId.random();
        BsonDocument reply = twice(retryable("{insert: 'stop', documents: [{_id: 1}, {_id: 2}, {_id: 3}]}", lsid, 1));
        assertThat(reply.getInt32("n").getValue()).isEqualTo(1);
        assertThat(reply.getArray("writeErrors")).singleElement().satisfies(e -> {
            assertThat(e.asDocument().getInt32("index").getValue()).isEqualTo(1);
            assertThat(e.asDocument().getInt32("code").getValue()).isEqualTo(ErrorCode.DuplicateKey.code());
        });
        assertThat(documentsOf(DB, "stop")).containsExactly(ExtendedJson.parse("{_id: 1}"), ExtendedJson.parse("{_id: 2}"));
        assertThat(sessionEntries(lsid)).isEqualTo(1);
    }

    @Test
    void measurementsRetriedIntoATimeseriesCollectionAreStoredOnce() {
        LogicalSessionId lsid = LogicalSessionId.random();
        assertThat(run(DB, "{create: 'ts', timeseries: {timeField: 't', metaField: 'm'}}").getNumber("ok").intValue()).isEqualTo(1);
        BsonDocument reply = twice(retryable("{insert: 'ts', documents: [{_id: 1, t: {$date: '2026-11-26T10:00:00Z'}, m: 'a', v: 1},"
                + " {_id: 2, t: {$date: '2026-11-26T10:01:00Z'}, m: 'a', v: 2}, {_id: 3, t: {$date: '2026-11-26T10:02:00Z'}, m: 'b', v: 3}]}",
                lsid, 1));
        assertThat(reply.getInt32("n").getValue()).isEqualTo(3);
        assertThat(reply.containsKey("writeErrors")).as(reply.toJson()).isFalse();
        BsonDocument found = run(DB, "{find: 'ts', sort: {_id: 1}}");
        assertThat(found.getDocument("cursor").getArray("firstBatch")).extracting(v -> v.asDocument().getInt32("_id").getValue())
                .containsExactly(1, 2, 3);
        assertThat(hasTransactionRow(lsid)).isTrue();
    }

    @Test
    void singleMeasurementUpdatesAndDeletesRetriedApplyOnce() {
        LogicalSessionId lsid = LogicalSessionId.random();
        assertThat(run(DB, "{create: 'tsw', timeseries: {timeField: 't', metaField: 'm'}}").getNumber("ok").intValue()).isEqualTo(1);
        run(DB, "{insert: 'tsw', documents: [{_id: 1, t: {$date: '2026-11-26T10:00:00Z'}, m: 'a', v: 1},"
                + " {_id: 2, t: {$date: '2026-11-26T10:01:00Z'}, m: 'a', v: 2}]}");
        BsonDocument reply = twice(retryable("{update: 'tsw', updates: [{q: {_id: 1}, u: {$inc: {v: 10}}}]}", lsid, 1));
        assertThat(reply.getInt32("nModified").getValue()).as(reply.toJson()).isEqualTo(1);
        reply = twice(retryable("{delete: 'tsw', deletes: [{q: {m: 'a'}, limit: 1}]}", lsid, 2));
        assertThat(reply.getInt32("n").getValue()).as(reply.toJson()).isEqualTo(1);
        BsonDocument found = run(DB, "{find: 'tsw'}");
        assertThat(found.getDocument("cursor").getArray("firstBatch")).as("v 11 once, one of the two deleted once").hasSize(1);
    }

    @Test
    void updatesRetriedApplyOnceWithTheSameCountsAndUpsertedId() {
        LogicalSessionId lsid = LogicalSessionId.random();
        insertInto(DB, "upd", "{_id: 1, c: 0}");
        BsonDocument reply = twice(retryable("""
                {update: 'upd', updates: [{q: {_id: 1}, u: {$inc: {c: 1}}}, {q: {_id: 'new'}, u: {$inc: {c: 1}}, upsert: true},
                                          {q: {_id: 'none'}, u: {$inc: {c: 1}}}]}""", lsid, 3));
        assertThat(reply.getInt32("n").getValue()).isEqualTo(2);
        assertThat(reply.getInt32("nModified").getValue()).isEqualTo(1);
        assertThat(reply.getArray("upserted")).hasSize(1);
        assertThat(reply.getArray("upserted").get(0).asDocument().getInt32("index").getValue()).isEqualTo(1);
        assertThat(reply.getArray("upserted").get(0).asDocument().getString("_id").getValue()).isEqualTo("new");
        assertThat(documentsOf(DB, "upd")).containsExactly(ExtendedJson.parse("{_id: 1, c: 1}"), ExtendedJson.parse("{_id: 'new', c: 1}"));
    }

    @Test
    void aDeleteRetriedDeletesOneDocument() {
        LogicalSessionId lsid = LogicalSessionId.random();
        insertInto(DB, "del", "{_id: 1, k: 'a'}", "{_id: 2, k: 'a'}", "{_id: 3, k: 'b'}");
        BsonDocument reply = twice(retryable("{delete: 'del', deletes: [{q: {k: 'a'}, limit: 1}]}", lsid, 1));
        assertThat(reply.getInt32("n").getValue()).isEqualTo(1);
        assertThat(documentsOf(DB, "del")).hasSize(2);
    }

    @Test
    void findAndModifyRetriedReturnsTheSameImages() {
        insertInto(DB, "fam", "{_id: 1, c: 0}", "{_id: 2, c: 0}");
        BsonDocument before = twice(retryable("{findAndModify: 'fam', query: {_id: 1}, update: {$inc: {c: 1}}}", LogicalSessionId.random(), 1));
        assertThat(before.getDocument("value")).isEqualTo(ExtendedJson.parse("{_id: 1, c: 0}"));
        BsonDocument after = twice(retryable("{findAndModify: 'fam', query: {_id: 1}, update: {$inc: {c: 1}}, new: true, fields: {c: 1}}",
                LogicalSessionId.random(), 1));
        assertThat(after.getDocument("value")).isEqualTo(ExtendedJson.parse("{_id: 1, c: 2}"));
        BsonDocument removed = twice(retryable("{findAndModify: 'fam', query: {_id: 2}, remove: true}", LogicalSessionId.random(), 1));
        assertThat(removed.getDocument("value")).isEqualTo(ExtendedJson.parse("{_id: 2, c: 0}"));
        BsonDocument upserted = twice(retryable("{findAndModify: 'fam', query: {_id: 3}, update: {$inc: {c: 5}}, upsert: true, new: true}",
                LogicalSessionId.random(), 1));
        assertThat(upserted.getDocument("lastErrorObject").get("upserted").asInt32().getValue()).isEqualTo(3);
        assertThat(upserted.getDocument("value")).isEqualTo(ExtendedJson.parse("{_id: 3, c: 5}"));
        assertThat(documentsOf(DB, "fam")).containsExactly(ExtendedJson.parse("{_id: 1, c: 2}"), ExtendedJson.parse("{_id: 3, c: 5}"));
    }

    @Test
    void aLowerTxnNumberIsTooOldAndAHigherOneStartsAfresh() {
        LogicalSessionId lsid = LogicalSessionId.random();
        run(DB, retryable("{insert: 'old', documents: [{_id: 1}]}", lsid, 5));
        BsonDocument tooOld = run(DB, retryable("{insert: 'old', documents: [{_id: 2}]}", lsid, 4));
        assertThat(tooOld.getInt32("code").getValue()).as(tooOld.toJson()).isEqualTo(ErrorCode.TransactionTooOld.code());
        BsonDocument fresh = run(DB, retryable("{insert: 'old', documents: [{_id: 3}]}", lsid, 6));
        assertThat(fresh.getInt32("n").getValue()).as("stmtId 0 of txnNumber 6 is a new statement").isEqualTo(1);
        assertThat(documentsOf(DB, "old")).hasSize(2);
    }

    @Test
    void aStatementWhoseHistoryIsGoneIsIncompleteTransactionHistory() {
        LogicalSessionId lsid = LogicalSessionId.random();
        BsonDocument command = retryable("{insert: 'lost', documents: [{_id: 1}, {_id: 2}], ordered: false}", lsid, 1);
        run(DB, command.clone());
        jdbc.sql("DELETE FROM oplog WHERE ts_key = (SELECT min(ts_key) FROM oplog WHERE txn_number = 1 AND stmt_id = 0 AND ns = 'retry.lost')").update();
        BsonDocument retry = run(DB, command.clone());
        assertThat(retry.getInt32("n").getValue()).as("stmtId 1 is still in the history").isEqualTo(1);
        assertThat(retry.getArray("writeErrors")).hasSize(1);
        BsonDocument error = retry.getArray("writeErrors").get(0).asDocument();
        assertThat(error.getInt32("index").getValue()).isZero();
        assertThat(error.getInt32("code").getValue()).isEqualTo(ErrorCode.IncompleteTransactionHistory.code());
        assertThat(documentsOf(DB, "lost")).hasSize(2);
    }

    @Test
    void aTxnNumberNeedsAnLsidAndStatementIdsNeedATxnNumber() {
        BsonDocument noLsid = run(DB, "{insert: 'opts', documents: [{_id: 1}], txnNumber: {$numberLong: '1'}}");
        assertThat(noLsid.getInt32("code").getValue()).isEqualTo(ErrorCode.InvalidOptions.code());
        assertThat(noLsid.getString("errmsg").getValue()).isEqualTo("Transaction number requires a session ID to also be specified");
        BsonDocument noTxn = run(DB, "{insert: 'opts', documents: [{_id: 1}], stmtIds: [0]}");
        assertThat(noTxn.getInt32("code").getValue()).isEqualTo(ErrorCode.InvalidOptions.code());
        assertThat(noTxn.getString("errmsg").getValue()).contains("insert.stmtIds").contains("txnNumber");
        BsonDocument wrongCount = run(DB, retryable("{insert: 'opts', documents: [{_id: 1}], stmtIds: [0, 1]}", LogicalSessionId.random(), 1));
        assertThat(wrongCount.getInt32("code").getValue()).isEqualTo(ErrorCode.InvalidLength.code());
        assertThat(documentsOf(DB, "opts")).isEmpty();
    }

    @Test
    void multiDocumentStatementsAreRefusedInARetryableWrite() {
        LogicalSessionId lsid = LogicalSessionId.random();
        insertInto(DB, "multi", "{_id: 1, k: 1}", "{_id: 2, k: 1}");
        BsonDocument update = run(DB, retryable("{update: 'multi', updates: [{q: {k: 1}, u: {$set: {x: 1}}, multi: true}]}", lsid, 1));
        assertThat(update.getArray("writeErrors").get(0).asDocument().getInt32("code").getValue()).isEqualTo(ErrorCode.InvalidOptions.code());
        assertThat(update.getArray("writeErrors").get(0).asDocument().getString("errmsg").getValue()).contains("multi=true");
        BsonDocument delete = run(DB, retryable("{delete: 'multi', deletes: [{q: {k: 1}, limit: 0}]}", lsid, 2));
        assertThat(delete.getArray("writeErrors").get(0).asDocument().getString("errmsg").getValue()).contains("limit=0");
        assertThat(documentsOf(DB, "multi")).containsExactly(ExtendedJson.parse("{_id: 1, k: 1}"), ExtendedJson.parse("{_id: 2, k: 1}"));
    }

    @Test
    void aFailedWriteLeavesNoTransactionRow() {
        insertInto(DB, "atomic", "{_id: 1}");
        LogicalSessionId duplicate = LogicalSessionId.random();
        BsonDocument reply = run(DB, retryable("{insert: 'atomic', documents: [{_id: 1}]}", duplicate, 1));
        assertThat(reply.getArray("writeErrors").get(0).asDocument().getInt32("code").getValue()).isEqualTo(ErrorCode.DuplicateKey.code());
        assertThat(hasTransactionRow(duplicate)).isFalse();

        LogicalSessionId failed = LogicalSessionId.random();
        failPoints.configure(WriteUnitOfWork.BEFORE_COMMIT, FailPointAction.error(ErrorCode.InternalError), 1);
        try {
            BsonDocument error = run(DB, retryable("{insert: 'atomic', documents: [{_id: 2}]}", failed, 1));
            assertThat(error.getNumber("ok").intValue()).as(error.toJson()).isZero();
        } finally {
            failPoints.configure(WriteUnitOfWork.BEFORE_COMMIT, null, 0);
        }
        assertThat(hasTransactionRow(failed)).as("the write rolled back, and its session row with it").isFalse();
        assertThat(documentsOf(DB, "atomic")).hasSize(1);
        BsonDocument retried = run(DB, retryable("{insert: 'atomic', documents: [{_id: 2}]}", failed, 1));
        assertThat(retried.getInt32("n").getValue()).as("the retry runs the statement, which never committed").isEqualTo(1);
        assertThat(hasTransactionRow(failed)).isTrue();
    }

    @Test
    void twoConcurrentRetriesOfOneStatementApplyItOnce() throws Exception {
        insertInto(DB, "race", "{_id: 1, c: 0}");
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            for (int round = 0; round < 5; round++) {
                LogicalSessionId lsid = LogicalSessionId.random();
                BsonDocument command = retryable("{update: 'race', updates: [{q: {_id: 1}, u: {$inc: {c: 1}}}]}", lsid, 1);
                CyclicBarrier start = new CyclicBarrier(2);
                List<Future<BsonDocument>> replies = List.of(threads.submit(() -> {
                    start.await();
                    return run(DB, command.clone());
                }), threads.submit(() -> {
                    start.await();
                    return run(DB, command.clone());
                }));
                assertThat(replies.get(1).get(60, TimeUnit.SECONDS)).isEqualTo(replies.get(0).get(60, TimeUnit.SECONDS));
            }
        } finally {
            threads.shutdownNow();
        }
        assertThat(documentsOf(DB, "race")).containsExactly(ExtendedJson.parse("{_id: 1, c: 5}"));
    }

    @Test
    void aCheckedOutSessionMakesTheNextCommandWait() throws Exception {
        LogicalSessionId lsid = LogicalSessionId.random();
        CompletableFuture<BsonDocument> waiting;
        try (SessionCatalog.CheckedOutSession held = catalog.checkOut(lsid)) {
            assertThatThrownBy(() -> CompletableFuture.supplyAsync(() -> catalog.checkOut(lsid, Duration.ofMillis(100))).join())
                    .hasCauseInstanceOf(CommandException.class)
                    .cause().satisfies(e -> assertThat(((CommandException) e).code()).isEqualTo(ErrorCode.MaxTimeMSExpired));
            waiting = CompletableFuture.supplyAsync(() -> run(DB, retryable("{insert: 'wait', documents: [{_id: 1}]}", lsid, 1)));
            await().atMost(Duration.ofSeconds(30)).until(() -> catalog.waiters(lsid) > 0);
            assertThat(waiting).as("the command waits for the session").isNotDone();
            assertThat(documentsOf(DB, "wait")).isEmpty();
        }
        assertThat(waiting.get(60, TimeUnit.SECONDS).getInt32("n").getValue()).isEqualTo(1);
    }
    @Test
    void migratedHistoryImportedTwiceIsWrittenOnceAndAnswersARetry() {
        insertInto(DB, "moved", "{_id: 0}");
        UUID ui = jdbc.sql("SELECT uuid FROM collections WHERE namespace = ?").param(DB + ".moved").query(UUID.class).single();
        LogicalSessionId lsid = LogicalSessionId.random();
        List<BsonDocument> entries = List.of(migratedInsert(lsid, 0, 1), migratedInsert(lsid, 1, 2));
        int first = units.writeFromMigrate(TEST, work -> migrated.write(work, DB + ".moved", ui, entries));
        int second = units.writeFromMigrate(TEST, work -> migrated.write(work, DB + ".moved", ui, entries));
        assertThat(first).isEqualTo(2);
        assertThat(second).as("a second import finds both statements by walking the chain it wrote").isZero();
        assertThat(sessionEntries(lsid)).isEqualTo(2);
        BsonDocument retry = run(DB, retryable("{insert: 'moved', documents: [{_id: 1}, {_id: 2}, {_id: 3}]}", lsid, 1));
        assertThat(retry.getInt32("n").getValue()).as("two statements answered from the migrated history, one run").isEqualTo(3);
        assertThat(retry.containsKey("writeErrors")).as(retry.toJson()).isFalse();
        assertThat(documentsOf(DB, "moved")).as("the migrated statements did not run again").hasSize(2);
        assertThat(sessionEntries(lsid)).isEqualTo(3);
    }

    /** A migrated session entry ({@link MigratedSessionHistory#read}'s shape) of an insert of {@code {_id: id}}. */
    private static BsonDocument migratedInsert(LogicalSessionId lsid, int stmtId, int id) {
        return new BsonDocument("ts", new BsonTimestamp(1, stmtId + 1)).append("op", new BsonString("i"))
                .append("o2", new BsonDocument("_id", new BsonInt32(id)))
                .append("shardKey", new BsonBinary(KeyString.encode(new BsonInt32(id))))
                .append("o", new BsonDocument("_id", new BsonInt32(id)))
                .append("lsid", lsid.toBson()).append("txnNumber", new BsonInt64(1)).append("stmtId", new BsonInt32(stmtId));
    }
}
