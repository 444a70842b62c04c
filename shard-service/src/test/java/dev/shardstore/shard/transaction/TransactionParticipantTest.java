package dev.shardstore.shard.transaction;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.error.ErrorLabel;
import dev.shardstore.contracts.session.LogicalSessionId;
import dev.shardstore.shard.ShardIntegrationTest;
import dev.shardstore.shard.storage.TransactionConnections;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * A shard as a transaction participant, against real PostgreSQL (mongo/src/mongo/db/s/README.md "Transactions"):
 * the statements of one transaction are one PostgreSQL transaction — invisible to others until the commit, all
 * visible after it, gone after an abort; a transaction reads one snapshot; a write conflict fails at once and aborts;
 * a write error aborts; the commit gives the oplog entries real times with the session's fields and records the
 * commit; the errors MongoDB gives for unknown, committed, aborted, too old and refused commands; lifetime expiry and
 * ended sessions abort; real threads moving money between documents keep the total.
 */
class TransactionParticipantTest extends ShardIntegrationTest {
    private static final String DB = "txn";

    @Autowired
    TransactionParticipant participant;
    @Autowired
    TransactionConnections connections;
    @Autowired
    dev.shardstore.shard.storage.OplogTimeReservations reservations;
    @Autowired
    dev.shardstore.shard.versioning.CollectionShardingRuntime runtime;
    /** The shard's clock, which the participant dates transactions by (a movable one in some shared test contexts). */
    @Autowired
    java.time.Clock clock;

    private static final AtomicInteger COLLECTIONS = new AtomicInteger();
    private String coll;

    @BeforeEach
    void freshCollection() {
        coll = "c" + COLLECTIONS.incrementAndGet();
        insertInto(DB, coll, "{_id: 1, balance: 100}", "{_id: 2, balance: 100}");
    }

    /** {@code json} as statement of session {@code lsid}'s transaction {@code txnNumber}; the first with startTransaction. */
    private static BsonDocument statement(String json, LogicalSessionId lsid, long txnNumber, boolean start) {
        BsonDocument command = ExtendedJson.parse(json).append("lsid", lsid.toBson()).append("txnNumber", new BsonInt64(txnNumber))
                .append("autocommit", BsonBoolean.FALSE);
        if (start) {
            command.append("startTransaction", BsonBoolean.TRUE);
        }
        return command;
    }

    private BsonDocument commit(LogicalSessionId lsid, long txnNumber) {
        return run("admin", statement("{commitTransaction: 1}", lsid, txnNumber, false));
    }

    private BsonDocument abort(LogicalSessionId lsid, long txnNumber) {
        return run("admin", statement("{abortTransaction: 1}", lsid, txnNumber, false));
    }

    private String update(int id, int delta) {
        return "{update: '" + coll + "', updates: [{q: {_id: " + id + "}, u: {$inc: {balance: " + delta + "}}}]}";
    }

    private int balance(int id) {
        return documentsOf(DB, coll).stream().filter(d -> d.getInt32("_id").getValue() == id).findFirst().orElseThrow()
                .getNumber("balance").intValue();
    }

    private static int code(BsonDocument reply) {
        assertThat(reply.getNumber("ok").intValue()).as("an error reply: %s", reply).isZero();
        return reply.getNumber("code").intValue();
    }

    private static BsonDocument ok(BsonDocument reply) {
        assertThat(reply.getNumber("ok").intValue()).as("reply %s", reply).isEqualTo(1);
        return reply;
    }

    @Test
    void theStatementsCommitTogetherAndAreInvisibleUntilThen() {
        LogicalSessionId lsid = LogicalSessionId.random();
        BsonDocument first = run(DB, statement(update(1, -30), lsid, 1, true));
        ok(first);
        assertThat(first.getBoolean("readOnly").getValue()).isFalse();
        ok(run(DB, statement(update(2, 30), lsid, 1, false)));
        ok(run(DB, statement("{insert: '" + coll + "', documents: [{_id: 3, balance: 0}]}", lsid, 1, false)));
        BsonDocument inside = run(DB, statement("{find: '" + coll + "', filter: {_id: 1}}", lsid, 1, false));
        assertThat(inside.getDocument("cursor").getArray("firstBatch").get(0).asDocument().getNumber("balance").intValue())
                .as("the transaction reads its own write").isEqualTo(70);
        assertThat(balance(1)).as("others do not see it before the commit").isEqualTo(100);
        assertThat(documentsOf(DB, coll)).hasSize(2);

        ok(commit(lsid, 1));
        assertThat(balance(1)).isEqualTo(70);
        assertThat(balance(2)).isEqualTo(130);
        assertThat(documentsOf(DB, coll)).hasSize(3);
        ok(commit(lsid, 1)); // a retried commit is answered ok

        byte[] key = BsonBytes.encode(lsid.toBson());
        List<Long> times = jdbc.sql("SELECT ts_key FROM oplog WHERE lsid = ? AND txn_number = 1 ORDER BY ts_key").param(key)
                .query(Long.class).list();
        assertThat(times).as("one entry per change, at real times (stored negative), with the session's fields").hasSize(3)
                .allSatisfy(t -> assertThat(t).isNegative());
        assertThat(jdbc.sql("SELECT count(*) FROM oplog WHERE ts_key > 0").query(Long.class).single()).as("no provisional time left").isZero();
        assertThat(jdbc.sql("SELECT state FROM transactions WHERE lsid = ?").param(key).query(String.class).single()).isEqualTo("committed");
        assertThat(jdbc.sql("SELECT last_write_op_time FROM transactions WHERE lsid = ?").param(key).query(Long.class).single())
                .isEqualTo(times.get(2));
    }

    /**
     * A commit or prepare whose write of the session's {@code transactions} row fails after it took its oplog times (here
     * a serialization failure: the row was written after the transaction's snapshot) fails and releases those times:
     * an {@code afterClusterTime} wait at the newest time ends at once. Before the fix such a failure left its
     * reservation in flight, and every later causal read on the shard waited for it until its timeout.
     */
    @Test
    void aCommitOrPrepareThatFailsAfterTakingItsOplogTimesReleasesThem() {
        for (String end : List.of("{commitTransaction: 1}", "{prepareTransaction: 1}")) {
            LogicalSessionId lsid = LogicalSessionId.random();
            ok(run(DB, statement(update(1, -30), lsid, 1, true)));
            jdbc.sql("INSERT INTO transactions (lsid, txn_num, last_write_op_time, last_write_date) VALUES (?, 0, 0, now())")
                    .param(BsonBytes.encode(lsid.toBson())).update();
            BsonDocument failed = run("admin", statement(end, lsid, 1, false));
            assertThat(failed.getNumber("ok").intValue()).as("%s: %s", end, failed).isZero();
            reservations.awaitDurable(reservations.latest(), Duration.ofSeconds(10)); // MaxTimeMSExpired while one is left
            assertThat(balance(1)).as("%s rolled the transaction back", end).isEqualTo(100);
            assertThat(preparedHere()).as("%s left nothing prepared", end).isZero();
        }
    }

    /**
     * A commit decision for a prepared transaction that PostgreSQL no longer holds (ended already, as by an earlier
     * delivery of the same decision) answers ok and releases the transaction's oplog times: the participant tries
     * {@code COMMIT PREPARED} at once and takes PostgreSQL's "does not exist" as done.
     */
    @Test
    void aDecisionForAPreparedTransactionPostgresNoLongerHoldsEndsIt() {
        LogicalSessionId lsid = LogicalSessionId.random();
        ok(run(DB, statement(update(1, -5), lsid, 1, true)));
        BsonDocument prepared = ok(run("admin", statement("{prepareTransaction: 1}", lsid, 1, false)));
        String gid = jdbc.sql("SELECT gid FROM pg_prepared_xacts WHERE database = current_database()").query(String.class).single();
        jdbc.sql("COMMIT PREPARED '" + gid + "'").update();
        ok(run("admin", statement("{commitTransaction: 1}", lsid, 1, false)
                .append(TransactionParticipant.COMMIT_TIMESTAMP, prepared.get("prepareTimestamp"))));
        reservations.awaitDurable(reservations.latest(), Duration.ofSeconds(10));
        assertThat(balance(1)).isEqualTo(95);
        assertThat(preparedHere()).isZero();
    }

    @Test
    void anAbortUndoesEveryStatementAndEndsTheTransaction() {
        int openBefore = connections.openTransactions();
        LogicalSessionId lsid = LogicalSessionId.random();
        ok(run(DB, statement(update(1, -30), lsid, 1, true)));
        ok(run(DB, statement("{delete: '" + coll + "', deletes: [{q: {_id: 2}, limit: 1}]}", lsid, 1, false)));
        ok(abort(lsid, 1));
        assertThat(balance(1)).isEqualTo(100);
        assertThat(documentsOf(DB, coll)).hasSize(2);
        BsonDocument after = run(DB, statement(update(1, 1), lsid, 1, false));
        assertThat(code(after)).as("NoSuchTransaction").isEqualTo(251);
        assertThat(ErrorLabel.TransientTransactionError.on(after)).isTrue();
        assertThat(code(commit(lsid, 1))).isEqualTo(251);
        assertThat(code(abort(lsid, 1))).isEqualTo(251);
        assertThat(connections.openTransactions()).as("its connection is back").isEqualTo(openBefore);
    }

    @Test
    void aTransactionReadsOneSnapshot() {
        LogicalSessionId lsid = LogicalSessionId.random();
        BsonDocument read = run(DB, statement("{find: '" + coll + "', filter: {_id: 1}}", lsid, 1, true));
        assertThat(read.getBoolean("readOnly").getValue()).isTrue();
        ok(run(DB, ExtendedJson.parse(update(1, 5)))); // a plain write commits meanwhile
        BsonDocument again = run(DB, statement("{find: '" + coll + "', filter: {_id: 1}}", lsid, 1, false));
        assertThat(again.getDocument("cursor").getArray("firstBatch").get(0).asDocument().getNumber("balance").intValue())
                .as("still the snapshot of its first read").isEqualTo(100);
        ok(commit(lsid, 1));
        assertThat(balance(1)).isEqualTo(105);
    }

    @Test
    void aConflictingWriteFailsAtOnceAndAbortsItsTransaction() {
        LogicalSessionId a = LogicalSessionId.random();
        LogicalSessionId b = LogicalSessionId.random();
        ok(run(DB, statement(update(1, -10), a, 1, true)));
        ok(run(DB, statement(update(2, 1), b, 1, true)));
        BsonDocument conflict = run(DB, statement(update(1, -20), b, 1, false));
        assertThat(code(conflict)).as("WriteConflict").isEqualTo(112);
        assertThat(ErrorLabel.TransientTransactionError.on(conflict)).isTrue();
        assertThat(code(commit(b, 1))).as("b was aborted").isEqualTo(251);
        ok(commit(a, 1));
        assertThat(balance(1)).isEqualTo(90);
        assertThat(balance(2)).as("nothing of b").isEqualTo(100);
    }

    @Test
    void aWriteErrorAbortsTheTransactionAndIsTheCommandsError() {
        LogicalSessionId lsid = LogicalSessionId.random();
        ok(run(DB, statement(update(1, -10), lsid, 1, true)));
        BsonDocument duplicate = run(DB, statement("{insert: '" + coll + "', documents: [{_id: 2}]}", lsid, 1, false));
        assertThat(code(duplicate)).isEqualTo(11000);
        assertThat(duplicate.containsKey("writeErrors")).isFalse();
        assertThat(code(commit(lsid, 1))).isEqualTo(251);
        assertThat(balance(1)).isEqualTo(100);
    }

    private BsonDocument prepare(LogicalSessionId lsid, long txnNumber) {
        return run("admin", statement("{prepareTransaction: 1}", lsid, txnNumber, false));
    }

    private long preparedHere() {
        return jdbc.sql("SELECT count(*) FROM pg_prepared_xacts WHERE database = current_database()").query(Long.class).single();
    }

    @Test
    void aPreparedTransactionWaitsForItsDecisionThenCommitsWhole() {
        LogicalSessionId lsid = LogicalSessionId.random();
        ok(run(DB, statement(update(1, -60), lsid, 1, true)));
        ok(run(DB, statement(update(2, 60), lsid, 1, false)));
        long before = preparedHere();
        BsonDocument vote = prepare(lsid, 1);
        ok(vote);
        long prepareTimestamp = vote.getTimestamp("prepareTimestamp").getValue();
        assertThat(ok(prepare(lsid, 1)).getTimestamp("prepareTimestamp").getValue()).as("a retried prepare").isEqualTo(prepareTimestamp);
        assertThat(preparedHere()).as("PostgreSQL holds it prepared").isEqualTo(before + 1);
        assertThat(code(run(DB, statement(update(1, 1), lsid, 1, false)))).as("no statement after the prepare").isEqualTo(267);
        assertThat(code(run(DB, statement(update(1, 1), lsid, 2, true).append("maxTimeMS", new BsonInt64(100)))))
                .as("no new transaction on the session while it stays prepared").isEqualTo(267);
        participant.reapExpired(clock.instant().plus(Duration.ofHours(1)));
        participant.reapEnded(lsids -> Set.of());
        assertThat(balance(1)).as("invisible until the decision").isEqualTo(100);
        assertThat(code(commit(lsid, 1))).as("a prepared transaction's commit needs a commitTimestamp").isEqualTo(72);

        ok(run("admin", statement("{commitTransaction: 1}", lsid, 1, false).append("commitTimestamp",
                new org.bson.BsonTimestamp(prepareTimestamp))));
        assertThat(balance(1)).isEqualTo(40);
        assertThat(balance(2)).isEqualTo(160);
        assertThat(preparedHere()).isEqualTo(before);
        byte[] key = BsonBytes.encode(lsid.toBson());
        List<Long> times = jdbc.sql("SELECT ts_key FROM oplog WHERE lsid = ? AND txn_number = 1 ORDER BY ts_key").param(key)
                .query(Long.class).list();
        assertThat(times).hasSize(2);
        assertThat(times.get(1) ^ Long.MIN_VALUE).as("the newest entry is at the prepare time").isEqualTo(prepareTimestamp);
    }

    /**
     * A session's next transaction, started while its previous one is prepared here (a coordinator answers the commit
     * once its decision is durable, then delivers it, and a driver reuses the pooled session at once), waits for the
     * decision outside the session, then runs after it.
     */
    @Test
    void aSessionsNextTransactionWaitsForItsPreparedPredecessorsDecision() throws Exception {
        LogicalSessionId lsid = LogicalSessionId.random();
        ok(run(DB, statement(update(1, -10), lsid, 1, true)));
        long prepareTimestamp = ok(prepare(lsid, 1)).getTimestamp("prepareTimestamp").getValue();
        long waitsBefore = participant.preparedPredecessorWaits();
        try (ExecutorService executor = Executors.newSingleThreadExecutor()) {
            Future<BsonDocument> next = executor.submit(() -> run(DB, statement(update(1, -5), lsid, 2, true)));
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> participant.preparedPredecessorWaits() > waitsBefore);
            assertThat(next).as("waiting for the decision").isNotDone();
            ok(run("admin", statement("{commitTransaction: 1}", lsid, 1, false).append("commitTimestamp",
                    new org.bson.BsonTimestamp(prepareTimestamp))));
            ok(next.get(30, java.util.concurrent.TimeUnit.SECONDS));
        }
        ok(commit(lsid, 2));
        assertThat(balance(1)).as("both, in order").isEqualTo(85);
    }

    /**
     * MongoDB's prepare conflict: a transaction's first read of a collection a prepared transaction wrote to waits for
     * its outcome (MaxTimeMSExpired when its maxTimeMS passes first), then holds it whole; a transaction reading another
     * collection does not wait, nor does a read outside transactions, which answers the state before it.
     */
    @Test
    void aTransactionsFirstReadWaitsForAPreparedWriterOfItsCollection() throws Exception {
        LogicalSessionId writer = LogicalSessionId.random();
        ok(run(DB, statement(update(1, -60), writer, 1, true)));
        ok(run(DB, statement(update(2, 60), writer, 1, false)));
        long prepareTimestamp = ok(prepare(writer, 1)).getTimestamp("prepareTimestamp").getValue();
        String find = "{find: '" + coll + "', filter: {}, sort: {_id: 1}}";

        assertThat(code(run(DB, statement("{find: '" + coll + "', filter: {}, maxTimeMS: 100}", LogicalSessionId.random(), 1, true))))
                .as("MaxTimeMSExpired while the writer is prepared").isEqualTo(50);
        String other = coll + "other";
        insertInto(DB, other, "{_id: 1}");
        LogicalSessionId elsewhere = LogicalSessionId.random();
        ok(run(DB, statement("{find: '" + other + "', filter: {}}", elsewhere, 1, true)));
        ok(abort(elsewhere, 1));
        assertThat(ok(run(DB, ExtendedJson.parse(find))).getDocument("cursor").getArray("firstBatch"))
                .as("outside a transaction: the state before the prepared one, at once")
                .extracting(d -> d.asDocument().getNumber("balance").intValue()).containsExactly(100, 100);

        long conflictsBefore = participant.prepareReadConflicts();
        LogicalSessionId reader = LogicalSessionId.random();
        try (ExecutorService executor = Executors.newSingleThreadExecutor()) {
            Future<BsonDocument> read = executor.submit(() -> run(DB, statement(find, reader, 1, true)));
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> participant.prepareReadConflicts() > conflictsBefore);
            assertThat(read).as("waiting for the prepared transaction's outcome").isNotDone();
            ok(run("admin", statement("{commitTransaction: 1}", writer, 1, false).append("commitTimestamp",
                    new org.bson.BsonTimestamp(prepareTimestamp))));
            assertThat(ok(read.get(30, java.util.concurrent.TimeUnit.SECONDS)).getDocument("cursor").getArray("firstBatch"))
                    .as("the reader's snapshot holds the prepared transaction whole")
                    .extracting(d -> d.asDocument().getNumber("balance").intValue()).containsExactly(40, 160);
        }
        ok(abort(reader, 1));
    }

    @Test
    void aPreparedTransactionAbortedLeavesNothing() {
        LogicalSessionId lsid = LogicalSessionId.random();
        long before = preparedHere();
        ok(run(DB, statement(update(1, -60), lsid, 1, true)));
        ok(prepare(lsid, 1));
        ok(abort(lsid, 1));
        assertThat(preparedHere()).isEqualTo(before);
        assertThat(balance(1)).isEqualTo(100);
        assertThat(code(prepare(lsid, 1))).isEqualTo(251);
        assertThat(code(commit(lsid, 1))).isEqualTo(251);
    }

    /**
     * A critical section (a migration's, a DDL operation's) that begins on a collection after a transaction wrote to
     * it aborts the transaction as it begins, so that its row locks are free for the section's operation (a plain
     * write of the same document does not wait), and its commit or prepare fails, whether the section is still held
     * or already over: the range it wrote may have moved away (mongo/src/mongo/db/s/README.md "Transactions"). A
     * transaction that only read the collection, or wrote after the section, commits.
     */
    @Test
    void aCriticalSectionBegunAfterATransactionsWriteAbortsItsCommit() {
        dev.shardstore.contracts.namespace.Namespace ns = new dev.shardstore.contracts.namespace.Namespace(DB, coll);
        BsonDocument reason = new BsonDocument("command", new org.bson.BsonString("test"));
        LogicalSessionId during = LogicalSessionId.random();
        LogicalSessionId after = LogicalSessionId.random();
        LogicalSessionId preparedAfter = LogicalSessionId.random();
        LogicalSessionId reader = LogicalSessionId.random();
        ok(run(DB, statement(update(1, -1), during, 1, true)));
        ok(run(DB, statement(update(2, -1), after, 1, true)));
        ok(run(DB, statement("{insert: '" + coll + "', documents: [{_id: 10, balance: 0}]}", preparedAfter, 1, true)));
        ok(run(DB, statement("{find: '" + coll + "'}", reader, 1, true)));
        int open = participant.open();
        runtime.enterCriticalSection(ns, dev.shardstore.shard.versioning.CriticalSectionPhase.CATCH_UP, reason, null);
        assertThat(participant.open()).as("the three writers aborted as the section began, the reader left open").isEqualTo(open - 3);
        try {
            runtime.exitCriticalSection(ns, reason);
            ok(run(DB, update(1, 5))); // would wait for the row lock of an open writer
            ok(run(DB, update(1, -5)));
            runtime.enterCriticalSection(ns, dev.shardstore.shard.versioning.CriticalSectionPhase.CATCH_UP, reason, null);
            BsonDocument refused = commit(during, 1);
            assertThat(code(refused)).as("committed during the section").isEqualTo(251);
            assertThat(ErrorLabel.TransientTransactionError.on(refused)).isTrue();
        } finally {
            runtime.exitCriticalSection(ns, reason);
        }
        assertThat(code(commit(after, 1))).as("committed after a section came and went").isEqualTo(251);
        assertThat(code(prepare(preparedAfter, 1))).as("prepared after it").isEqualTo(251);
        ok(commit(reader, 1));
        assertThat(balance(1)).isEqualTo(100);
        assertThat(balance(2)).isEqualTo(100);
        assertThat(documentsOf(DB, coll)).as("nothing of the prepared-after transaction").hasSize(2);
        LogicalSessionId later = LogicalSessionId.random();
        ok(run(DB, statement(update(2, -1), later, 1, true)));
        ok(commit(later, 1));
        assertThat(balance(2)).as("a transaction that wrote after the section commits").isEqualTo(99);
    }

    @Test
    void theErrorsOfMongoDBsParticipant() {
        LogicalSessionId lsid = LogicalSessionId.random();
        assertThat(code(run(DB, statement(update(1, 1), lsid, 4, false)))).as("never started").isEqualTo(251);
        ok(run(DB, statement(update(1, 1), lsid, 5, true)));
        assertThat(code(run(DB, statement(update(1, 1), lsid, 5, true)))).as("started twice").isEqualTo(117);
        assertThat(code(run(DB, statement(update(1, 1), lsid, 4, true)))).as("too old").isEqualTo(225);
        assertThat(code(run(DB, statement("{count: '" + coll + "'}", lsid, 5, false)))).as("count").isEqualTo(263);
        // the refused commands above did not run as statements, so the transaction is still open
        assertThat(code(run(DB, statement("{find: '" + coll + "', readConcern: {level: 'local'}}", lsid, 5, false))))
                .as("readConcern after the first statement").isEqualTo(72);
        assertThat(code(run(DB, statement("{commitTransaction: 1}", lsid, 5, false)))).as("commit on a database other than admin")
                .isEqualTo(13);
        assertThat(code(run(DB, statement("{insert: 'brandnew" + coll + "', documents: [{}]}", lsid, 5, false))))
                .as("creating a collection").isEqualTo(263);
        assertThat(code(commit(lsid, 5))).as("a statement that failed aborted the transaction").isEqualTo(251);
        ok(run(DB, "{create: 'ts" + coll + "', timeseries: {timeField: 't'}}"));
        assertThat(code(run(DB, statement("{insert: 'ts" + coll + "', documents: [{t: {$date: '2026-12-02T00:00:00Z'}}]}",
                LogicalSessionId.random(), 1, true)))).as("a time-series write").isEqualTo(263);
        ok(run(DB, statement(update(1, 1), LogicalSessionId.random(), 1, true)));
        LogicalSessionId committed = LogicalSessionId.random();
        ok(run(DB, statement(update(2, 1), committed, 1, true)));
        ok(commit(committed, 1));
        assertThat(code(run(DB, statement(update(2, 1), committed, 1, false)))).as("after the commit").isEqualTo(256);
        assertThat(code(abort(committed, 1))).isEqualTo(256);
        BsonDocument retryable = ExtendedJson.parse(update(2, 1)).append("lsid", committed.toBson()).append("txnNumber", new BsonInt64(1));
        assertThat(code(run(DB, retryable))).as("a retryable write with the transaction's number").isEqualTo(117);
        ok(run(DB, ExtendedJson.parse(update(2, 1)).append("lsid", committed.toBson()).append("txnNumber", new BsonInt64(2))));
        assertThat(balance(2)).isEqualTo(102);
    }

    @Test
    void aRetryableWriteWithAHigherNumberAbortsTheOpenTransaction() {
        LogicalSessionId lsid = LogicalSessionId.random();
        ok(run(DB, statement(update(1, -50), lsid, 1, true)));
        ok(run(DB, ExtendedJson.parse(update(2, 1)).append("lsid", lsid.toBson()).append("txnNumber", new BsonInt64(2))));
        assertThat(code(commit(lsid, 1))).isIn(225, 251);
        assertThat(balance(1)).isEqualTo(100);
        assertThat(balance(2)).isEqualTo(101);
    }

    @Test
    void transactionsPastTheirLifetimeOrWithEndedSessionsAreAborted() {
        LogicalSessionId old = LogicalSessionId.random();
        LogicalSessionId ended = LogicalSessionId.random();
        LogicalSessionId alive = LogicalSessionId.random();
        ok(run(DB, statement(update(1, -1), old, 1, true)));
        assertThat(participant.reapExpired(clock.instant().plus(Duration.ofSeconds(61)))).isGreaterThanOrEqualTo(1);
        assertThat(code(commit(old, 1))).isEqualTo(251);

        ok(run(DB, statement(update(1, -1), ended, 1, true)));
        ok(run(DB, statement(update(2, -1), alive, 1, true)));
        assertThat(participant.reapExpired(clock.instant())).as("within the lifetime").isZero();
        participant.reapEnded(lsids -> Set.of(alive));
        assertThat(code(commit(ended, 1))).isEqualTo(251);
        ok(commit(alive, 1));
        assertThat(balance(1)).isEqualTo(100);
        assertThat(balance(2)).isEqualTo(99);
    }

    /**
     * Eight threads, each moving money between the two documents in its own transactions, retrying a transaction that
     * failed with a transient error; concurrent readers in transactions always see the total. Real threads against
     * real PostgreSQL: a naive participant (no snapshot, waiting writes, a partial commit) breaks the total or
     * deadlocks.
     */
    @Test
    void concurrentTransfersKeepTheTotal() throws Exception {
        int openBefore = connections.openTransactions();
        int threads = 8;
        int transfersEach = 15;
        ExecutorService pool = Executors.newFixedThreadPool(threads + 1);
        CyclicBarrier start = new CyclicBarrier(threads + 1);
        AtomicInteger committed = new AtomicInteger();
        AtomicInteger retried = new AtomicInteger();
        List<Future<?>> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int seed = t;
            workers.add(pool.submit(() -> {
                start.await();
                LogicalSessionId lsid = LogicalSessionId.random();
                long txnNumber = 0;
                for (int i = 0; i < transfersEach; i++) {
                    int from = (seed + i) % 2 + 1;
                    while (true) {
                        txnNumber++;
                        BsonDocument debit = run(DB, statement(update(from, -1), lsid, txnNumber, true));
                        BsonDocument credit = debit.getNumber("ok").intValue() == 1 ? run(DB, statement(update(3 - from, 1), lsid, txnNumber, false)) : debit;
                        BsonDocument done = credit.getNumber("ok").intValue() == 1 ? commit(lsid, txnNumber) : credit;
                        if (done.getNumber("ok").intValue() == 1) {
                            committed.incrementAndGet();
                            break;
                        }
                        assertThat(ErrorLabel.TransientTransactionError.on(done)).as("only transient failures: %s", done).isTrue();
                        retried.incrementAndGet();
                    }
                }
                return null;
            }));
        }
        Future<List<Integer>> reader = pool.submit(() -> {
            start.await();
            List<Integer> sums = new ArrayList<>();
            LogicalSessionId lsid = LogicalSessionId.random();
            for (long n = 1; workers.stream().anyMatch(w -> !w.isDone()); n++) {
                BsonDocument found = run(DB, statement("{find: '" + coll + "'}", lsid, n, true));
                sums.add(found.getDocument("cursor").getArray("firstBatch").stream()
                        .mapToInt(d -> d.asDocument().getNumber("balance").intValue()).sum());
                ok(commit(lsid, n));
            }
            return sums;
        });
        for (Future<?> worker : workers) {
            worker.get();
        }
        List<Integer> sums = reader.get();
        pool.shutdown();
        assertThat(committed.get()).isEqualTo(threads * transfersEach);
        assertThat(sums).as("every snapshot sums to the total").isNotEmpty().containsOnly(200);
        assertThat(balance(1) + balance(2)).isEqualTo(200);
        assertThat(connections.openTransactions()).isEqualTo(openBefore);
        System.out.printf("concurrentTransfersKeepTheTotal: %d transfers committed, %d retried after a transient error, %d reads%n",
                committed.get(), retried.get(), sums.size());
    }
}
