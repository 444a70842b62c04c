package dev.shardstore.cluster.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.MongoCommandException;
import com.mongodb.MongoException;
import com.mongodb.client.ClientSession;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.error.ErrorLabel;
import dev.shardstore.cluster.router.RouterClient;
import dev.shardstore.contracts.session.LogicalSessionId;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Multi-document transactions through the router on real processes, on the shared cluster (2 shards, 2 routers;
 * mongo/src/mongo/db/s/README.md "Transactions"): {@code txn.acct} is sharded on {@code x} with {@code [MinKey, 50)} on
 * one shard and {@code [50, MaxKey)} on the other, each document starting with a balance of 100. Over REST, a
 * transaction's statements commit together and are invisible before; a read-only participant and one writer commit;
 * a transaction that wrote on both shards commits on both by two-phase commit, and with its coordinator killed at
 * each step it ends whole or absent; a failed statement aborts the transaction; a cursor's getMores read in its
 * transaction; a participant killed while its transaction is prepared keeps it prepared and applies the decision after
 * its restart; a migration of a range with a prepared and an open transaction in it aborts the open one and carries
 * the prepared one's committed writes. Through the Java driver's
 * {@code withTransaction}, concurrent transfers on one shard retry their write conflicts and each applies exactly once;
 * REST and the wire protocol give a write conflict the same {@code TransientTransactionError} label. An update that
 * changes a document's owning shard moves it in the transaction.
 */
@OnSharedCluster
class TransactionsIT {
    private static final String DB = "txn";
    private static MigrationCluster c;
    private static String low;
    private static String high;
    private static MongoClient driver;
    @RegisterExtension
    static final ThreadDumpOnFailure THREAD_DUMPS = new ThreadDumpOnFailure(() -> c == null ? null : c.cluster);

    @BeforeAll
    static void accounts(MigrationCluster shared) {
        c = shared;
        c.shardAndFill(DB, "acct", 100, 50);
        low = c.ownerOf(DB + ".acct", 50); // every chunk starts on the primary shard
        high = MigrationCluster.other(low);
        c.ok("admin", "{\"moveChunk\": \"txn.acct\", \"find\": {\"x\": 50}, \"to\": \"" + high + "\", \"_waitForDelete\": true}");
        c.ok(DB, "{\"update\": \"acct\", \"updates\": [{\"q\": {}, \"u\": {\"$set\": {\"balance\": 100}}, \"multi\": true}]}");
        driver = MongoClients.create(c.cluster.connectionString(1) + "/?appName=TransactionsIT");
    }

    @AfterAll
    static void close() {
        if (driver != null) {
            driver.close();
        }
    }

    /** {@code json} as a statement of {@code lsid}'s transaction {@code txnNumber} (the first with startTransaction). */
    private static BsonDocument statement(String json, LogicalSessionId lsid, long txnNumber, boolean start) {
        BsonDocument command = ExtendedJson.parse(json).append("lsid", lsid.toBson()).append("txnNumber", new BsonInt64(txnNumber))
                .append("autocommit", BsonBoolean.FALSE);
        if (start) {
            command.append("startTransaction", BsonBoolean.TRUE);
        }
        return command;
    }

    private static BsonDocument run(String db, BsonDocument command) {
        return c.router.run(db, command);
    }

    /**
     * {@code read} with {@code readConcern: {afterClusterTime}} of router 1's cluster time now, as a causally consistent
     * session reads: it sees every commit router 1 answered, also a two-phase commit whose coordinator answered once
     * its decision was durable and is still delivering it.
     */
    private static BsonDocument causal(BsonDocument read) {
        BsonTimestamp now = c.router.run("admin", new BsonDocument("ping", new BsonInt32(1))).getTimestamp("operationTime");
        return read.append("readConcern", new BsonDocument("afterClusterTime", now));
    }

    /** {@code json} read causally ({@link #causal}) through router 1; the reply, checked ok. */
    private static BsonDocument causalRead(String json) {
        return RouterClient.requireOk(json, c.router.run(DB, causal(ExtendedJson.parse(json))));
    }

    private static String transfer(int x, int delta) {
        return "{\"update\": \"acct\", \"updates\": [{\"q\": {\"x\": " + x + "}, \"u\": {\"$inc\": {\"balance\": " + delta + "}}}]}";
    }

    private static int balance(int x) {
        return causalRead("{\"find\": \"acct\", \"filter\": {\"x\": " + x + "}}").getDocument("cursor").getArray("firstBatch").get(0)
                .asDocument().getNumber("balance").intValue();
    }

    private static int total() {
        return causalRead("{\"aggregate\": \"acct\", \"pipeline\": [{\"$group\": {\"_id\": null, \"t\": {\"$sum\": \"$balance\"}}}], \"cursor\": {}}")
                .getDocument("cursor").getArray("firstBatch").get(0).asDocument().getNumber("t").intValue();
    }

    private static BsonDocument ok(BsonDocument reply) {
        assertThat(reply.getNumber("ok").intValue()).as("reply %s", reply).isEqualTo(1);
        return reply;
    }

    private static int code(BsonDocument reply) {
        assertThat(reply.getNumber("ok").intValue()).as("an error reply: %s", reply).isZero();
        return reply.getNumber("code").intValue();
    }

    @Test
    void theStatementsOfATransactionOnOneShardCommitTogether() {
        LogicalSessionId lsid = LogicalSessionId.random();
        ok(run(DB, statement(transfer(1, -25), lsid, 1, true)));
        ok(run(DB, statement(transfer(2, 25), lsid, 1, false)));
        ok(run(DB, statement("{\"insert\": \"acct\", \"documents\": [{\"_id\": 1001, \"x\": 3, \"balance\": 0}]}", lsid, 1, false)));
        assertThat(balance(1)).as("not visible before the commit").isEqualTo(100);

        BsonDocument committed = ok(run("admin", statement("{\"commitTransaction\": 1}", lsid, 1, false)));
        assertThat(committed.getDocument("recoveryToken").getString("recoveryShardId").getValue()).isEqualTo(low);
        assertThat(balance(1)).isEqualTo(75);
        assertThat(balance(2)).isEqualTo(125);
        assertThat(c.ok(DB, "{\"count\": \"acct\", \"query\": {\"_id\": 1001}}").getNumber("n").intValue()).isEqualTo(1);
        ok(run("admin", statement("{\"commitTransaction\": 1}", lsid, 1, false))); // a retried commit
        c.ok(DB, "{\"delete\": \"acct\", \"deletes\": [{\"q\": {\"_id\": 1001}, \"limit\": 1}]}");
        c.ok(DB, transfer(1, 25));
        c.ok(DB, transfer(2, -25));
    }

    /**
     * A {@code bulkWrite} with a multi-document update in a transaction runs in it (not as a retryable write, which may
     * not be multi), and a commit whose write concern one copy per shard cannot satisfy ({@code w: 10}) commits and
     * reports UnsatisfiableWriteConcern (100) as its {@code writeConcernError}, without an error label, as MongoDB does.
     */
    @Test
    void aBulkWriteUpdatesManyInATransactionWhoseUnsatisfiableWriteConcernCommitsWithAWriteConcernError() {
        LogicalSessionId lsid = LogicalSessionId.random();
        BsonDocument bulk = ok(run("admin", statement("{\"bulkWrite\": 1, \"ops\": [{\"update\": 0, \"filter\": {\"x\": {\"$in\": [5, 6]}},"
                + " \"updateMods\": {\"$inc\": {\"balance\": 1}}, \"multi\": true}], \"nsInfo\": [{\"ns\": \"txn.acct\"}]}", lsid, 1, true)));
        assertThat(bulk.getNumber("nModified").intValue()).as("%s", bulk).isEqualTo(2);
        assertThat(balance(5)).as("not visible before the commit").isEqualTo(100);
        BsonDocument committed = ok(run("admin", statement("{\"commitTransaction\": 1, \"writeConcern\": {\"w\": 10}}", lsid, 1, false)));
        assertThat(committed.getDocument("writeConcernError").getNumber("code").intValue()).as("%s", committed).isEqualTo(100);
        assertThat(committed.containsKey("errorLabels")).isFalse();
        assertThat(balance(5)).as("committed").isEqualTo(101);
        assertThat(balance(6)).isEqualTo(101);
        c.ok(DB, "{\"update\": \"acct\", \"updates\": [{\"q\": {\"x\": {\"$in\": [5, 6]}}, \"u\": {\"$inc\": {\"balance\": -1}}, \"multi\": true}]}");
    }

    @Test
    void aReadOnlyParticipantAndOneWriterCommit() {
        LogicalSessionId lsid = LogicalSessionId.random();
        BsonDocument read = ok(run(DB, statement("{\"find\": \"acct\", \"filter\": {\"x\": 70}}", lsid, 1, true)));
        int seen = read.getDocument("cursor").getArray("firstBatch").get(0).asDocument().getNumber("balance").intValue();
        ok(run(DB, statement(transfer(5, seen), lsid, 1, false)));
        ok(run("admin", statement("{\"commitTransaction\": 1}", lsid, 1, false)));
        assertThat(balance(5)).isEqualTo(100 + seen);
        c.ok(DB, transfer(5, -seen));
    }

    @Test
    void aTransactionThatWroteOnBothShardsCommitsOnBothByTwoPhaseCommit() {
        LogicalSessionId lsid = LogicalSessionId.random();
        ok(run(DB, statement(transfer(10, -40), lsid, 1, true)));
        ok(run(DB, statement(transfer(60, 40), lsid, 1, false)));
        ok(run("admin", statement("{\"commitTransaction\": 1}", lsid, 1, false)));
        assertThat(balance(10)).isEqualTo(60);
        assertThat(balance(60)).isEqualTo(140);
        assertThat(total()).isEqualTo(100 * 100);
        ok(run("admin", statement("{\"commitTransaction\": 1}", lsid, 1, false))); // a retried commit
        c.ok(DB, transfer(10, 40));
        c.ok(DB, transfer(60, -40));
    }

    /**
     * The coordinator (the first participant) killed by a crash fail point at each of its writes: after the
     * participants are written (no decision: the restarted coordinator aborts, and nothing of the transaction is
     * anywhere) and after the decision is written (the restarted coordinator delivers the commit: all of it is
     * everywhere). The client's commit during the crash is answered with an error either way, never a false ok.
     */
    @Test
    void theCoordinatorKilledAtEachStepLeavesEveryTransactionWholeOrAbsent() {
        int lowX = 15;
        for (String step : List.of("afterParticipants", "afterDecision")) {
            int highX = lowX + 50;
            LogicalSessionId lsid = LogicalSessionId.random();
            ok(run(DB, statement(transfer(lowX, -30), lsid, 1, true))); // the low shard: the coordinator
            ok(run(DB, statement(transfer(highX, 30), lsid, 1, false)));
            c.failPoints.configure(low, "transactionCoordinator." + step, "crash");
            BsonDocument during = run("admin", statement("{\"commitTransaction\": 1}", lsid, 1, false));
            System.out.println("[transactions-it] the commit while the coordinator crashed " + step + ": " + during.toJson());
            assertThat(during.getNumber("ok").intValue()).as("no ok from a coordinator that crashed").isZero();
            ItSupport.waitUntil(() -> !c.running(low), java.time.Duration.ofSeconds(60), low + " crashed " + step);
            c.cluster.startService(low);
            boolean committed = step.equals("afterDecision");
            // the decision reached the other participant: its transaction is over (committed, or aborted: unknown there)
            BsonDocument probe = statement("{\"find\": \"acct\", \"filter\": {\"x\": " + highX + "}}", lsid, 1, false);
            ItSupport.waitUntil(() -> ItSupport.replyOf(c.cluster, high, DB, probe.clone()).getInt32("code", new BsonInt32(0)).getValue()
                    == (committed ? 256 : 251), java.time.Duration.ofSeconds(60), "the restarted coordinator delivers its decision, " + step);
            assertThat(balance(lowX)).isEqualTo(committed ? 70 : 100);
            assertThat(balance(highX)).isEqualTo(committed ? 130 : 100);
            assertThat(total()).isEqualTo(100 * 100);
            if (committed) {
                c.ok(DB, transfer(lowX, 30));
                c.ok(DB, transfer(highX, -30));
            }
            lowX++;
        }
    }

    /**
     * A resume of the coordinator's rows that listed a coordination before its decision, and takes it up only after
     * the coordination ended with a participant unreachable (killed after it prepared, so the delivery failed), delivers
     * the decision the row holds then, commit, not an abort decided from its old look: the restarted participant
     * commits its prepared transaction, and the transfer is whole on both shards. Before the fix, the resume aborted it
     * and the transfer stayed half committed.
     */
    @Test
    void aResumeThatListedACoordinationBeforeItsDecisionDeliversTheDecisionWrittenSince() {
        int lowX = 21;
        int highX = 71;
        LogicalSessionId lsid = LogicalSessionId.random();
        ok(run(DB, statement(transfer(lowX, -9), lsid, 1, true))); // the low shard: the coordinator
        ok(run(DB, statement(transfer(highX, 9), lsid, 1, false)));
        String participantsWritten = "transactionCoordinator.afterParticipants";
        String decided = "transactionCoordinator.afterDecision";
        String listed = "transactionCoordinator.resumeListed";
        String delivered = "transactionCoordinator.afterBackgroundDelivery";
        long atParticipants = c.failPoints.configure(low, participantsWritten, "pause");
        java.util.concurrent.CompletableFuture<BsonDocument> commit = java.util.concurrent.CompletableFuture.supplyAsync(
                () -> run("admin", statement("{\"commitTransaction\": 1}", lsid, 1, false)), Thread.ofVirtual()::start);
        try {
            c.failPoints.waitFor(low, participantsWritten, atParticipants + 1); // the row is written, without a decision
            long atListing = c.failPoints.configure(low, listed, "pause");
            c.failPoints.waitFor(low, listed, atListing + 1); // a resume holds its look at the row
            long atDecision = c.failPoints.configure(low, decided, "pause");
            c.failPoints.disable(low, participantsWritten);
            c.failPoints.waitFor(low, decided, atDecision + 1); // both prepared, commit written
            c.cluster.killService(high);
            long atDelivered = c.failPoints.configure(low, delivered, "pause"); // passed after the coordination's release
            c.failPoints.disable(low, decided);
            ok(commit.join()); // the decision is durable: the coordinator answered
            c.failPoints.waitFor(low, delivered, atDelivered + 1); // the delivery to high failed, the coordination ended
        } finally {
            c.failPoints.disable(low, participantsWritten);
            c.failPoints.disable(low, decided);
            c.failPoints.disable(low, delivered);
            c.failPoints.disable(low, listed); // the held resume takes the coordination up now
        }
        c.cluster.startService(high);
        BsonDocument probe = statement("{\"find\": \"acct\", \"filter\": {\"x\": " + highX + "}}", lsid, 1, false);
        ItSupport.waitUntil(() -> ItSupport.replyOf(c.cluster, high, DB, probe.clone()).getInt32("code", new BsonInt32(0)).getValue() == 256,
                java.time.Duration.ofSeconds(60), "the restarted participant commits (TransactionCommitted to a statement after it)");
        assertThat(balance(lowX)).isEqualTo(91);
        assertThat(balance(highX)).as("the participant that was down has the transfer's other half").isEqualTo(109);
        c.ok(DB, transfer(lowX, 9));
        c.ok(DB, transfer(highX, -9));
    }

    @Test
    void aFailedStatementAbortsTheTransaction() {
        LogicalSessionId lsid = LogicalSessionId.random();
        ok(run(DB, statement(transfer(20, -5), lsid, 1, true)));
        BsonDocument duplicate = run(DB, statement("{\"insert\": \"acct\", \"documents\": [{\"_id\": 21, \"x\": 21}]}", lsid, 1, false));
        assertThat(code(duplicate)).as("the write error is the command's error").isEqualTo(11000);
        BsonDocument after = run(DB, statement(transfer(20, -5), lsid, 1, false));
        assertThat(code(after)).isEqualTo(251);
        assertThat(ErrorLabel.TransientTransactionError.on(after)).isTrue();
        assertThat(balance(20)).isEqualTo(100);
    }

    @Test
    void aWriteConflictHasTheSameLabelOverRestAndTheWireProtocol() {
        LogicalSessionId holder = LogicalSessionId.random();
        ok(run(DB, statement(transfer(30, 1), holder, 1, true)));
        BsonDocument rest = run(DB, statement(transfer(30, 1), LogicalSessionId.random(), 1, true));
        assertThat(code(rest)).isEqualTo(112);
        assertThat(ErrorLabel.TransientTransactionError.on(rest)).isTrue();

        MongoCollection<BsonDocument> acct = driver.getDatabase(DB).getCollection("acct", BsonDocument.class);
        try (ClientSession session = driver.startSession()) {
            session.startTransaction();
            MongoException conflict = org.junit.jupiter.api.Assertions.assertThrows(MongoException.class,
                    () -> acct.updateOne(session, Filters.eq("x", 30), Updates.inc("balance", 1)));
            assertThat(conflict.getCode()).isEqualTo(112);
            assertThat(conflict.hasErrorLabel("TransientTransactionError")).isTrue();
        }
        ok(run("admin", statement("{\"abortTransaction\": 1}", holder, 1, false)));
        assertThat(balance(30)).isEqualTo(100);
    }

    /**
     * Four driver clients, each moving money between two accounts of one shard in {@code withTransaction}, which
     * retries a transaction that failed with TransientTransactionError; each transfer also inserts its own history
     * document. Every transfer is applied exactly once: the total holds and there is one history document per call.
     */
    @Test
    void withTransactionRetriesConflictsAndAppliesEachTransferOnce() throws Exception {
        int clients = 4;
        int transfersEach = 10;
        MongoCollection<BsonDocument> acct = driver.getDatabase(DB).getCollection("acct", BsonDocument.class);
        String run = UUID.randomUUID().toString();
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        List<Future<?>> workers = new ArrayList<>();
        for (int t = 0; t < clients; t++) {
            int seed = t;
            workers.add(pool.submit(() -> {
                for (int i = 0; i < transfersEach; i++) {
                    int from = 40 + (seed + i) % 2;
                    String id = run + "-" + seed + "-" + i;
                    try (ClientSession session = driver.startSession()) {
                        session.withTransaction(() -> {
                            acct.updateOne(session, Filters.eq("x", from), Updates.inc("balance", -1));
                            acct.updateOne(session, Filters.eq("x", 81 - from), Updates.inc("balance", 1));
                            acct.insertOne(session, new BsonDocument("_id", new BsonString(id)).append("x", new BsonInt32(45))
                                    .append("run", new BsonString(run)));
                            return null;
                        });
                    }
                }
                return null;
            }));
        }
        for (Future<?> worker : workers) {
            worker.get();
        }
        pool.shutdown();
        assertThat(balance(40) + balance(41)).isEqualTo(200);
        assertThat(causalRead("{\"count\": \"acct\", \"query\": {\"run\": \"" + run + "\"}}").getNumber("n").intValue())
                .as("one history document per transfer").isEqualTo(clients * transfersEach);
        c.ok(DB, "{\"delete\": \"acct\", \"deletes\": [{\"q\": {\"run\": \"" + run + "\"}, \"limit\": 0}]}");
    }

    @Test
    void aCursorOpenedInATransactionReadsItsLaterBatchesInIt() {
        LogicalSessionId lsid = LogicalSessionId.random();
        ok(run(DB, statement(transfer(7, 1000), lsid, 1, true)));
        BsonDocument first = ok(run(DB, statement("{\"find\": \"acct\", \"filter\": {\"x\": {\"$lt\": 10}}, \"sort\": {\"x\": 1},"
                + " \"batchSize\": 2}", lsid, 1, false)));
        long cursor = first.getDocument("cursor").getNumber("id").longValue();
        List<BsonDocument> rest = new ArrayList<>();
        while (cursor != 0) {
            BsonDocument more = ok(run(DB, statement("{\"getMore\": " + cursor + ", \"collection\": \"acct\"}", lsid, 1, false)));
            more.getDocument("cursor").getArray("nextBatch").forEach(d -> rest.add(d.asDocument()));
            cursor = more.getDocument("cursor").getNumber("id").longValue();
        }
        assertThat(rest).filteredOn(d -> d.getNumber("x").intValue() == 7).singleElement()
                .satisfies(d -> assertThat(d.getNumber("balance").intValue()).as("the transaction's own write").isEqualTo(1100));
        ok(run("admin", statement("{\"abortTransaction\": 1}", lsid, 1, false)));
        assertThat(balance(7)).isEqualTo(100);
    }

    /**
     * A participant killed (kill -9) while its transaction is prepared: PostgreSQL keeps the prepared transaction, the
     * restarted shard takes it up again (still prepared: its statements and a new transaction are refused, reads do
     * not see it) and holds back its oplog's all-durable point until the decision, and the coordinator's commit (sent to
     * the shard as a coordinator sends it) then applies it whole; a second one, aborted after the restart, leaves
     * nothing. While it is down, a new transaction's statement on it fails with a network error that the router labels
     * TransientTransactionError (it aborted the transaction: a retry from the start is safe).
     */
    @Test
    void aPreparedTransactionSurvivesTheParticipantsKillAndIsDecidedAfterItsRestart() {
        LogicalSessionId committed = LogicalSessionId.random();
        LogicalSessionId aborted = LogicalSessionId.random();
        ok(run(DB, statement(transfer(11, -70), committed, 1, true)));
        ok(run(DB, statement(transfer(12, 70), committed, 1, false)));
        ok(run(DB, statement(transfer(13, -50), aborted, 1, true)));
        long prepareTimestamp = ok(ItSupport.onService(c.cluster, low, "admin", statement("{\"prepareTransaction\": 1}", committed, 1, false)))
                .getTimestamp("prepareTimestamp").getValue();
        ok(ItSupport.onService(c.cluster, low, "admin", statement("{\"prepareTransaction\": 1}", aborted, 1, false)));

        c.cluster.killService(low);
        BsonDocument unreachable = run(DB, statement(transfer(14, 1), LogicalSessionId.random(), 1, true));
        assertThat(ErrorLabel.isRetriableError(ErrorCode.ofNumber(code(unreachable)))).as("a participant down: %s", unreachable).isTrue();
        assertThat(ErrorLabel.TransientTransactionError.on(unreachable)).as("the router labels it, having aborted the transaction: %s",
                unreachable).isTrue();
        c.cluster.startService(low);

        assertThat(code(ItSupport.replyOf(c.cluster, low, DB, statement(transfer(11, 1), committed, 1, false))))
                .as("still prepared after the restart").isEqualTo(267);
        assertThat(balance(11)).isEqualTo(100);
        BsonDocument commit = statement("{\"commitTransaction\": 1}", committed, 1, false)
                .append("commitTimestamp", new org.bson.BsonTimestamp(prepareTimestamp));
        ok(ItSupport.onService(c.cluster, low, "admin", commit));
        ok(ItSupport.onService(c.cluster, low, "admin", statement("{\"abortTransaction\": 1}", aborted, 1, false)));
        assertThat(balance(11)).isEqualTo(30);
        assertThat(balance(12)).isEqualTo(170);
        assertThat(balance(13)).isEqualTo(100);
        assertThat(total()).isEqualTo(100 * 100);
        ok(ItSupport.onService(c.cluster, low, "admin", commit)); // the coordinator's retry is answered ok
        c.ok(DB, transfer(11, 70));
        c.ok(DB, transfer(12, -70));
        // the oplog's all-durable point passed the prepared entries once decided: a read after the commit's time answers
        ok(run(DB, ExtendedJson.parse("{\"find\": \"acct\", \"filter\": {\"x\": 11}, \"readConcern\": {\"afterClusterTime\":"
                + " {\"$timestamp\": {\"t\": " + (prepareTimestamp >>> 32) + ", \"i\": " + (prepareTimestamp & 0xffffffffL) + "}}}}")
                .append("lsid", LogicalSessionId.random().toBson())));
    }

    /**
     * A migration of a range with a prepared and an open transaction in it (mongo/src/mongo/db/s/README.md
     * "Transactions"): the donor's critical section aborts the open one as it begins (its next statement is
     * NoSuchTransaction with TransientTransactionError, and its row locks do not hold up the donor's range deletion),
     * and waits for the prepared one's decision (its coordinator paused after deciding) before the last catch-up, so
     * that the committed transaction's writes move with the range: after the move the recipient owns them, the open
     * transaction left nothing, and the total holds.
     */
    @Test
    void aMigrationOverAPreparedAndAnOpenTransactionOfItsRange() {
        c.ok("admin", "{\"split\": \"txn.acct\", \"middle\": {\"x\": 90}}");
        LogicalSessionId prepared = LogicalSessionId.random();
        LogicalSessionId open = LogicalSessionId.random();
        ok(run(DB, statement(transfer(16, -20), prepared, 1, true))); // the low shard: the coordinator
        ok(run(DB, statement(transfer(91, 20), prepared, 1, false)));
        ok(run(DB, statement(transfer(92, -10), open, 1, true)));
        String paused = "transactionCoordinator.afterDecision";
        long entered = c.failPoints.configure(low, paused, "pause");
        java.util.concurrent.CompletableFuture<BsonDocument> commit = java.util.concurrent.CompletableFuture.supplyAsync(
                () -> run("admin", statement("{\"commitTransaction\": 1}", prepared, 1, false)), Thread.ofVirtual()::start);
        c.failPoints.waitFor(low, paused, entered + 1); // both prepared, the decision written, not yet delivered
        java.util.concurrent.CompletableFuture<BsonDocument> move = java.util.concurrent.CompletableFuture.supplyAsync(() -> c.router.run(
                "admin", ExtendedJson.parse("{\"moveChunk\": \"txn.acct\", \"find\": {\"x\": 90}, \"to\": \"" + low + "\","
                        + " \"_waitForDelete\": true}")), Thread.ofVirtual()::start);
        try {
            ItSupport.waitUntil(() -> c.migrations(high).getArray("active").stream()
                    .anyMatch(m -> m.asDocument().getString("phase").getValue().equals("criticalSection")),
                    java.time.Duration.ofSeconds(30), "the donor enters its critical section");
            BsonDocument after = ItSupport.replyOf(c.cluster, high, DB, statement("{\"find\": \"acct\", \"filter\": {\"x\": 92}}", open, 1, false));
            assertThat(code(after)).as("the open transaction was aborted by the section").isEqualTo(251);
            assertThat(ErrorLabel.TransientTransactionError.on(after)).isTrue();
        } finally {
            c.failPoints.disable(low, paused);
        }
        ok(commit.join());
        ok(move.join());
        assertThat(c.ownerOf(DB + ".acct", 90)).isEqualTo(low);
        assertThat(balance(16)).isEqualTo(80);
        assertThat(balance(91)).as("the prepared transaction's write moved with the range").isEqualTo(120);
        assertThat(balance(92)).as("nothing of the aborted one").isEqualTo(100);
        assertThat(code(run("admin", statement("{\"commitTransaction\": 1}", open, 1, false)))).isEqualTo(251);
        assertThat(total()).isEqualTo(100 * 100);
        c.ok(DB, transfer(16, 20));
        c.ok(DB, transfer(91, -20));
        c.ok("admin", "{\"moveChunk\": \"txn.acct\", \"find\": {\"x\": 90}, \"to\": \"" + high + "\", \"_waitForDelete\": true}");
    }

    /** {@code find} of {@code filter} in {@code txn.hist} with read concern snapshot at {@code at}: the reply. */
    private static BsonDocument findAt(String filter, BsonTimestamp at) {
        return run(DB, ExtendedJson.parse("{\"find\": \"hist\", \"filter\": " + filter + "}").append("readConcern",
                new BsonDocument("level", new BsonString("snapshot")).append("atClusterTime", at)));
    }

    private static List<BsonDocument> firstBatch(BsonDocument reply) {
        return ok(reply).getDocument("cursor").getArray("firstBatch").stream().map(BsonValue::asDocument).toList();
    }

    /**
     * Snapshot reads across a chunk migration follow the placement at their time (mongo/src/mongo/db/s/README.md "The
     * historical routing table"): {@code txn.hist}'s {@code [50, MaxKey)} moves from the high shard to the low one
     * after time T, its donor's range deletion held by a fail point. A read at T goes to the donor and sees the value
     * of T, every document exactly once; so does a transaction whose snapshot predates the move, whose later write on
     * the recipient (which gained a chunk since its snapshot) is a WriteConflict labelled TransientTransactionError.
     * Once the donor deleted the range, a read at T is StaleChunkHistory (183), as is a read from before the
     * collection was sharded; a read at a later time sees the moved documents on the recipient.
     */
    @Test
    void snapshotReadsFollowThePlacementAtTheirTimeAcrossAMigration() {
        BsonTimestamp beforeSharding = c.ok(DB, "{\"count\": \"acct\"}").getTimestamp("operationTime");
        c.shardAndFill(DB, "hist", 100, 50);
        String primary = c.ownerOf(DB + ".hist", 50);
        String donor = MigrationCluster.other(primary);
        c.ok("admin", "{\"moveChunk\": \"txn.hist\", \"find\": {\"x\": 50}, \"to\": \"" + donor + "\", \"_waitForDelete\": true}");
        BsonTimestamp t = c.ok(DB, "{\"update\": \"hist\", \"updates\": [{\"q\": {\"x\": 60}, \"u\": {\"$set\": {\"v\": 1}}}]}")
                .getTimestamp("operationTime");
        LogicalSessionId lsid = LogicalSessionId.random();
        BsonDocument first = statement("{\"find\": \"hist\", \"filter\": {\"x\": 10}}", lsid, 1, true)
                .append("readConcern", new BsonDocument("level", new BsonString("snapshot")));
        assertThat(firstBatch(run(DB, first))).hasSize(1); // the transaction's snapshot: before the move
        c.ok(DB, "{\"update\": \"hist\", \"updates\": [{\"q\": {\"x\": 60}, \"u\": {\"$set\": {\"v\": 2}}}]}");

        String deletion = "moveChunk.beforeRangeDeletion";
        long deletions = c.failPoints.configure(donor, deletion, "pause");
        try {
            ok(c.moveChunk(DB + ".hist", 50, primary));
            assertThat(firstBatch(findAt("{\"x\": 60}", t))).as("the donor's document as of T")
                    .singleElement().satisfies(d -> assertThat(d.getNumber("v").intValue()).isEqualTo(1));
            assertThat(firstBatch(findAt("{}", t)).stream().map(d -> d.getNumber("x").intValue()).sorted().toList())
                    .as("every document once at T, none twice from the recipient's copy")
                    .isEqualTo(java.util.stream.IntStream.range(0, 100).boxed().toList());

            List<BsonDocument> inTransaction = firstBatch(run(DB, statement("{\"find\": \"hist\", \"filter\": {\"x\": 60}}", lsid, 1, false)));
            assertThat(inTransaction).as("the transaction's snapshot, from the donor").singleElement()
                    .satisfies(d -> assertThat(d.getNumber("v").intValue()).isEqualTo(1));
            BsonDocument write = run(DB, statement("{\"update\": \"hist\", \"updates\": [{\"q\": {\"x\": 10}, \"u\": {\"$set\": {\"v\": 3}}}]}",
                    lsid, 1, false));
            BsonDocument conflict = write.containsKey("writeErrors") ? write.getArray("writeErrors").get(0).asDocument() : write;
            assertThat(conflict.getNumber("code").intValue()).as("the recipient's placement changed after the snapshot: %s", write)
                    .isEqualTo(ErrorCode.WriteConflict.code());
            assertThat(ErrorLabel.TransientTransactionError.on(write)).as("%s", write).isTrue();
            run("admin", statement("{\"abortTransaction\": 1}", lsid, 1, false));
        } finally {
            c.failPoints.disable(donor, deletion);
        }
        ItSupport.waitUntil(() -> c.settled(DB + ".hist"), java.time.Duration.ofSeconds(60), "the donor's range deletion");
        assertThat(code(findAt("{\"x\": 60}", t))).as("the donor deleted what it owned at T").isEqualTo(ErrorCode.StaleChunkHistory.code());
        assertThat(firstBatch(findAt("{\"x\": 10}", t))).as("the range that never moved still reads at T").hasSize(1);
        assertThat(code(findAt("{}", beforeSharding))).as("no placement before the collection was sharded")
                .isEqualTo(ErrorCode.StaleChunkHistory.code());
        BsonTimestamp now = c.ok(DB, "{\"count\": \"hist\"}").getTimestamp("operationTime");
        assertThat(firstBatch(findAt("{\"x\": {\"$gte\": 50}}", now))).as("the recipient's documents now").hasSize(50)
                .filteredOn(d -> d.getNumber("x").intValue() == 60).singleElement()
                .satisfies(d -> assertThat(d.getNumber("v").intValue()).isEqualTo(2));
    }

    /**
     * Router 2 has had no exchange about a collection router 1 just sharded, and an idle router's clock moves only with
     * what it hears, so the snapshot time it chooses is older than the collection's placement history: a read at it
     * would be StaleChunkHistory (183), as BankIT's readers met. The read outside a transaction and a transaction's
     * first statement run again at the time router 2's routing table refresh taught it, and see every document; a
     * time the client gave is never moved.
     */
    @Test
    void aSnapshotTimeChosenByARouterWhoseClockIsBehindMovesToALaterOne() {
        RouterClient router2 = new RouterClient(c.cluster.routerUrl(2), java.time.Duration.ofSeconds(60));
        BsonTimestamp beforeSharding = router2.run("admin", new BsonDocument("ping", new BsonInt32(1))).getTimestamp("operationTime");
        c.shardAndFill(DB, "late", 20, 10);
        c.shardAndFill(DB, "later", 20, 10);

        BsonDocument read = RouterClient.requireOk("find", router2.run(DB, ExtendedJson.parse(
                "{\"find\": \"late\", \"readConcern\": {\"level\": \"snapshot\"}}")));
        assertThat(read.getDocument("cursor").getArray("firstBatch")).as("every document of the new collection").hasSize(20);
        assertThat(read.getDocument("cursor").getTimestamp("atClusterTime")).as("the time it read at: after the sharding")
                .isGreaterThan(beforeSharding);

        LogicalSessionId lsid = LogicalSessionId.random();
        BsonDocument first = statement("{\"find\": \"later\"}", lsid, 1, true)
                .append("readConcern", new BsonDocument("level", new BsonString("snapshot")));
        assertThat(RouterClient.requireOk("find", router2.run(DB, first)).getDocument("cursor").getArray("firstBatch"))
                .as("the transaction's first statement, at a later time").hasSize(20);
        ok(router2.run("admin", statement("{\"commitTransaction\": 1}", lsid, 1, false)));

        BsonDocument given = router2.run(DB, ExtendedJson.parse("{\"find\": \"later\"}").append("readConcern",
                new BsonDocument("level", new BsonString("snapshot")).append("atClusterTime", beforeSharding)));
        assertThat(code(given)).as("the client's own time before the sharding stays its time").isEqualTo(ErrorCode.StaleChunkHistory.code());
    }

    /**
     * A commit with the {@code recoveryToken} of router 1's replies, sent to router 2, which never ran the transaction
     * (mongo/src/mongo/db/s/README.md "Committing a Transaction"): it reports the true outcome from the recovery shard
     * (the first that wrote, here not the coordinator). Of a transaction router 1 committed: ok. Of one whose two-phase
     * commit is under way (its coordinator paused after deciding): it waits for the prepared recovery shard's decision,
     * then ok, and every write is there. Of one nobody committed yet: NoSuchTransaction, and the transaction can no
     * longer commit through router 1 either. An empty token (a transaction that only read) is NoSuchTransaction.
     */
    @Test
    void aCommitWithTheRecoveryTokenThroughAnotherRouterReportsTheTrueOutcome() throws Exception {
        dev.shardstore.cluster.router.RouterClient router2 = new dev.shardstore.cluster.router.RouterClient(c.cluster.routerUrl(2),
                java.time.Duration.ofSeconds(60));
        // committed by router 1 first
        LogicalSessionId committed = LogicalSessionId.random();
        ok(run(DB, statement(transfer(17, -5), committed, 1, true)));
        BsonDocument token = ok(run(DB, statement(transfer(67, 5), committed, 1, false))).getDocument("recoveryToken");
        assertThat(token.getString("recoveryShardId").getValue()).isEqualTo(low);
        ok(run("admin", statement("{\"commitTransaction\": 1}", committed, 1, false)));
        ok(router2.run("admin", statement("{\"commitTransaction\": 1}", committed, 1, false).append("recoveryToken", token)));

        // under way: the coordinator (low, read first) paused after its decision; the recovery shard (high) is prepared
        LogicalSessionId underWay = LogicalSessionId.random();
        ok(run(DB, statement("{\"find\": \"acct\", \"filter\": {\"x\": 18}}", underWay, 1, true)));
        ok(run(DB, statement(transfer(68, 7), underWay, 1, false)));
        BsonDocument underWayToken = ok(run(DB, statement(transfer(18, -7), underWay, 1, false))).getDocument("recoveryToken");
        assertThat(underWayToken.getString("recoveryShardId").getValue()).isEqualTo(high);
        String paused = "transactionCoordinator.afterDecision";
        long entered = c.failPoints.configure(low, paused, "pause");
        java.util.concurrent.CompletableFuture<BsonDocument> first = java.util.concurrent.CompletableFuture.supplyAsync(
                () -> run("admin", statement("{\"commitTransaction\": 1}", underWay, 1, false)), Thread.ofVirtual()::start);
        java.util.concurrent.CompletableFuture<BsonDocument> joined;
        try {
            c.failPoints.waitFor(low, paused, entered + 1);
            joined = java.util.concurrent.CompletableFuture.supplyAsync(() -> router2.run("admin",
                    statement("{\"commitTransaction\": 1}", underWay, 1, false).append("recoveryToken", underWayToken)), Thread.ofVirtual()::start);
            java.util.concurrent.CompletableFuture<BsonDocument> waiting = joined;
            org.awaitility.Awaitility.await("the joining commit waits for the decision while the recovery shard is prepared")
                    .during(java.time.Duration.ofMillis(500)).atMost(java.time.Duration.ofSeconds(5)).until(() -> !waiting.isDone());
        } finally {
            c.failPoints.disable(low, paused);
        }
        ok(first.join());
        ok(joined.join());
        assertThat(balance(18)).isEqualTo(93);
        assertThat(balance(68)).isEqualTo(107);

        // never committed: the recovery aborts it
        LogicalSessionId open = LogicalSessionId.random();
        BsonDocument openToken = ok(run(DB, statement(transfer(19, -3), open, 1, true))).getDocument("recoveryToken");
        ok(run(DB, statement(transfer(69, 3), open, 1, false)));
        BsonDocument recovered = router2.run("admin", statement("{\"commitTransaction\": 1}", open, 1, false).append("recoveryToken", openToken));
        assertThat(code(recovered)).isEqualTo(251);
        assertThat(code(run("admin", statement("{\"commitTransaction\": 1}", open, 1, false)))).as("router 1's commit after it")
                .isEqualTo(251);
        assertThat(balance(19)).isEqualTo(100);
        assertThat(balance(69)).isEqualTo(100);

        assertThat(code(router2.run("admin", statement("{\"commitTransaction\": 1}", LogicalSessionId.random(), 1, false)
                .append("recoveryToken", new BsonDocument())))).as("an empty token").isEqualTo(251);
        assertThat(total()).isEqualTo(100 * 100);
        c.ok(DB, transfer(17, 5));
        c.ok(DB, transfer(67, -5));
        c.ok(DB, transfer(18, 7));
        c.ok(DB, transfer(68, -7));
    }

    /**
     * {@code killSessions} through the router aborts the session's open transaction on every shard at once (mongos
     * sends it to every shard): a statement of it sent straight to a participant is NoSuchTransaction, its commit too,
     * and nothing of it is left.
     */
    @Test
    void killSessionsAbortsTheSessionsTransactionOnEveryShard() {
        LogicalSessionId lsid = LogicalSessionId.random();
        ok(run(DB, statement(transfer(22, -9), lsid, 1, true)));
        ok(run(DB, statement(transfer(72, 9), lsid, 1, false)));
        c.ok("admin", "{\"killSessions\": [" + lsid.toBson().toJson() + "]}");
        assertThat(code(ItSupport.replyOf(c.cluster, high, DB, statement("{\"find\": \"acct\", \"filter\": {\"x\": 72}}", lsid, 1, false))))
                .as("aborted on the participant that is not the router's first").isEqualTo(251);
        assertThat(code(run("admin", statement("{\"commitTransaction\": 1}", lsid, 1, false)))).isEqualTo(251);
        assertThat(balance(22)).isEqualTo(100);
        assertThat(balance(72)).isEqualTo(100);
    }

    /**
     * An update in a transaction that changes its document's shard key into another shard's range moves the document
     * (MongoDB's router runs it as a delete on the old shard and an insert on the new one, in the transaction): an abort
     * leaves it where it was, a commit leaves it on the new shard only; outside a transaction the update is the write
     * error WouldChangeOwningShard (283), as from MongoDB for a write neither in a transaction nor retryable.
     */
    @Test
    void anUpdateThatChangesTheOwningShardMovesTheDocumentInTheTransaction() {
        c.ok(DB, "{\"insert\": \"acct\", \"documents\": [{\"_id\": \"mover\", \"x\": -5, \"balance\": 0}]}");
        String move = "{\"update\": \"acct\", \"updates\": [{\"q\": {\"x\": -5}, \"u\": {\"$set\": {\"x\": 5000}}}]}";
        BsonDocument outside = ok(run(DB, ExtendedJson.parse(move)));
        assertThat(outside.getArray("writeErrors").get(0).asDocument().getNumber("code").intValue()).as("outside a transaction: %s", outside)
                .isEqualTo(283);

        LogicalSessionId aborted = LogicalSessionId.random();
        assertThat(ok(run(DB, statement(move, aborted, 1, true))).getNumber("nModified").intValue()).isEqualTo(1);
        ok(run("admin", statement("{\"abortTransaction\": 1}", aborted, 1, false)));
        assertThat(moverOn(low)).as("aborted: still on its shard").singleElement()
                .satisfies(d -> assertThat(d.getNumber("x").intValue()).isEqualTo(-5));
        assertThat(moverOn(high)).isEmpty();

        LogicalSessionId committed = LogicalSessionId.random();
        BsonDocument moved = ok(run(DB, statement(move, committed, 1, true)));
        assertThat(moved.getNumber("n").intValue()).isEqualTo(1);
        assertThat(moved.getNumber("nModified").intValue()).isEqualTo(1);
        ok(run("admin", statement("{\"commitTransaction\": 1}", committed, 1, false)));
        assertThat(moverOn(low)).as("committed: gone from its old shard").isEmpty();
        assertThat(moverOn(high)).as("and on the new one, changed").singleElement()
                .satisfies(d -> assertThat(d.getNumber("x").intValue()).isEqualTo(5000));
        assertThat(causalRead("{\"find\": \"acct\", \"filter\": {\"_id\": \"mover\"}}").getDocument("cursor").getArray("firstBatch"))
                .as("through the router: once").hasSize(1);
        c.ok(DB, "{\"delete\": \"acct\", \"deletes\": [{\"q\": {\"_id\": \"mover\"}, \"limit\": 1}]}");
    }

    /** The documents {@code _id: "mover"} that {@code shard} holds (an unversioned read of its own table). */
    private static List<BsonDocument> moverOn(String shard) {
        return ok(ItSupport.onService(c.cluster, shard, DB, causal(ExtendedJson.parse("{\"find\": \"acct\", \"filter\": {\"_id\": \"mover\"}}"))))
                .getDocument("cursor").getArray("firstBatch").stream().map(v -> v.asDocument()).toList();
    }

    @Test
    void aCommitWithoutParticipantsOrRecoveryTokenIsMongosError() {
        BsonDocument commit = run("admin", statement("{\"commitTransaction\": 1}", LogicalSessionId.random(), 1, false));
        assertThat(code(commit)).isEqualTo(50940);
        assertThatThrownBy(() -> driver.getDatabase("admin").runCommand(new BsonDocument("commitTransaction", new BsonInt32(1))))
                .isInstanceOf(MongoCommandException.class);
    }
}
