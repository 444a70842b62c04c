package dev.shardstore.shard.transaction;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.error.ErrorLabel;
import dev.shardstore.contracts.session.LogicalSessionId;
import dev.shardstore.shard.ShardIntegrationTest;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Snapshot reads on one shard against real PostgreSQL (docs/architecture.md "Snapshot reads"): a find, aggregate or
 * distinct at {@code atClusterTime} T sees every write at or before T and none after — updated documents as they were,
 * deleted ones back, later inserts absent — whatever the filter, sort or plan; a transaction reading at T writes only
 * what nobody changed after T; a prepared transaction's writes appear at its commit time, not its prepare time; times
 * older than the history are SnapshotTooOld; commands other than find, aggregate and distinct refuse the level
 * outside a transaction.
 */
class SnapshotReadTest extends ShardIntegrationTest {
    private static final String DB = "snap";
    private static final AtomicInteger COLLECTIONS = new AtomicInteger();
    private String coll;
    /** The time after the first three documents were written with {@code v: 1}. */
    private BsonTimestamp before;

    @BeforeEach
    void historyWithChangesAfterATime() {
        coll = "s" + COLLECTIONS.incrementAndGet();
        before = write("{insert: '" + coll + "', documents: [{_id: 1, v: 1}, {_id: 2, v: 1}, {_id: 3, v: 1}]}");
        write("{update: '" + coll + "', updates: [{q: {_id: 1}, u: {$set: {v: 2}}}]}");
        write("{delete: '" + coll + "', deletes: [{q: {_id: 2}, limit: 1}]}");
        write("{insert: '" + coll + "', documents: [{_id: 4, v: 1}]}");
    }

    private BsonTimestamp write(String json) {
        BsonDocument reply = runWithClusterTime(DB, ExtendedJson.parse(json));
        assertThat(reply.getNumber("ok").intValue()).as("%s", reply).isEqualTo(1);
        return reply.getTimestamp("operationTime");
    }

    private static String at(BsonTimestamp t) {
        return "{level: 'snapshot', atClusterTime: {$timestamp: {t: " + t.getTime() + ", i: " + t.getInc() + "}}}";
    }

    private List<BsonDocument> found(BsonDocument reply) {
        assertThat(reply.getNumber("ok").intValue()).as("%s", reply).isEqualTo(1);
        return reply.getDocument("cursor").getArray("firstBatch").stream().map(BsonValue::asDocument).toList();
    }

    private static BsonDocument statement(String json, LogicalSessionId lsid, boolean start) {
        BsonDocument command = ExtendedJson.parse(json).append("lsid", lsid.toBson()).append("txnNumber", new BsonInt64(1))
                .append("autocommit", BsonBoolean.FALSE);
        if (start) {
            command.append("startTransaction", BsonBoolean.TRUE);
        }
        return command;
    }

    @Test
    void aFindAtATimeSeesTheDocumentsAsTheyWereThen() {
        BsonDocument reply = run(DB, "{find: '" + coll + "', readConcern: " + at(before) + "}");
        assertThat(found(reply)).containsExactlyInAnyOrder(ExtendedJson.parse("{_id: 1, v: 1}"), ExtendedJson.parse("{_id: 2, v: 1}"),
                ExtendedJson.parse("{_id: 3, v: 1}"));
        assertThat(reply.getDocument("cursor").getTimestamp("atClusterTime")).isEqualTo(before);
        assertThat(found(run(DB, "{find: '" + coll + "', filter: {v: 1}, sort: {_id: -1}, readConcern: " + at(before) + "}")))
                .as("the old version matches the filter, in the sort's order").extracting(d -> d.getInt32("_id").getValue())
                .containsExactly(3, 2, 1);
        assertThat(found(run(DB, "{find: '" + coll + "', filter: {_id: 2}, readConcern: " + at(before) + "}")))
                .as("a deleted document by _id").hasSize(1);
        assertThat(found(run(DB, "{find: '" + coll + "', filter: {v: 2}, readConcern: " + at(before) + "}"))).isEmpty();
        BsonDocument now = run(DB, "{find: '" + coll + "', readConcern: {level: 'snapshot'}}");
        assertThat(found(now)).as("without atClusterTime: the shard's latest durable state").extracting(d -> d.getInt32("_id").getValue())
                .containsExactlyInAnyOrder(1, 3, 4);
        assertThat(now.getDocument("cursor").getTimestamp("atClusterTime")).isGreaterThan(before);
    }

    @Test
    void anAggregateAndADistinctAtATime() {
        BsonDocument sum = run(DB, "{aggregate: '" + coll + "', pipeline: [{$group: {_id: null, n: {$sum: 1}, v: {$sum: '$v'}}}],"
                + " cursor: {}, readConcern: " + at(before) + "}");
        assertThat(found(sum)).singleElement().satisfies(d -> {
            assertThat(d.getNumber("n").intValue()).isEqualTo(3);
            assertThat(d.getNumber("v").intValue()).isEqualTo(3);
        });
        BsonDocument distinct = run(DB, "{distinct: '" + coll + "', key: 'v', readConcern: " + at(before) + "}");
        assertThat(distinct.getArray("values")).containsExactly(new org.bson.BsonInt32(1));
        assertThat(distinct.getTimestamp("atClusterTime")).isEqualTo(before);
    }

    @Test
    void aTransactionAtATimeReadsThenAndConflictsWithWhatChangedSince() {
        LogicalSessionId reader = LogicalSessionId.random();
        assertThat(found(run(DB, statement("{find: '" + coll + "', filter: {_id: 1}, readConcern: " + at(before) + "}", reader, true))))
                .singleElement().satisfies(d -> assertThat(d.getInt32("v").getValue()).isEqualTo(1));
        BsonDocument conflict = run(DB, statement("{update: '" + coll + "', updates: [{q: {_id: 1}, u: {$set: {v: 9}}}]}", reader, false));
        assertThat(conflict.getNumber("code").intValue()).as("%s", conflict).isEqualTo(112);
        assertThat(ErrorLabel.TransientTransactionError.on(conflict)).isTrue();

        LogicalSessionId writer = LogicalSessionId.random();
        BsonTimestamp now = write("{update: '" + coll + "', updates: [{q: {_id: 3}, u: {$set: {v: 3}}}]}");
        found(run(DB, statement("{find: '" + coll + "', readConcern: " + at(now) + "}", writer, true)));
        assertThat(run(DB, statement("{update: '" + coll + "', updates: [{q: {_id: 3}, u: {$inc: {v: 1}}}]}", writer, false))
                .getNumber("nModified").intValue()).isEqualTo(1);
        assertThat(found(run(DB, statement("{find: '" + coll + "', filter: {_id: 3}}", writer, false)))).as("its own write")
                .singleElement().satisfies(d -> assertThat(d.getInt32("v").getValue()).isEqualTo(4));
        assertThat(run("admin", statement("{commitTransaction: 1}", writer, false)).getNumber("ok").intValue()).isEqualTo(1);
    }

    /**
     * A prepared transaction gets its oplog times at the prepare; the coordinator's commit time is later (another
     * participant prepared after it). A read at a time between the two must not see it, as on the other participant,
     * where the transaction is not visible before the commit time either.
     */
    @Test
    void aPreparedTransactionBecomesVisibleAtItsCommitTimeNotItsPrepareTime() {
        LogicalSessionId lsid = LogicalSessionId.random();
        run(DB, statement("{update: '" + coll + "', updates: [{q: {_id: 3}, u: {$set: {v: 30}}}]}", lsid, true));
        BsonDocument prepared = run("admin", statement("{prepareTransaction: 1}", lsid, false));
        BsonTimestamp prepareTime = prepared.getTimestamp("prepareTimestamp");
        BsonTimestamp commitTime = write("{insert: '" + coll + "', documents: [{_id: 5, v: 1}]}"); // a later time
        BsonDocument commit = statement("{commitTransaction: 1}", lsid, false).append("commitTimestamp", commitTime);
        assertThat(run("admin", commit).getNumber("ok").intValue()).isEqualTo(1);

        assertThat(found(run(DB, "{find: '" + coll + "', filter: {_id: 3}, readConcern: " + at(prepareTime) + "}"))).singleElement()
                .as("at the prepare time: not yet").satisfies(d -> assertThat(d.getInt32("v").getValue()).isEqualTo(1));
        assertThat(found(run(DB, "{find: '" + coll + "', filter: {_id: 3}, readConcern: " + at(commitTime) + "}"))).singleElement()
                .as("at the commit time").satisfies(d -> assertThat(d.getInt32("v").getValue()).isEqualTo(30));
    }

    /**
     * A commit time ahead of this shard's clock (another participant prepared later, on a clock further on): the next
     * write of the document gets a later time, so a read at that write's time sees both, never the write undone with
     * the commit.
     */
    @Test
    void aWriteAfterAPreparedTransactionsCommitIsLaterThanItsCommitTime() {
        LogicalSessionId lsid = LogicalSessionId.random();
        run(DB, statement("{update: '" + coll + "', updates: [{q: {_id: 3}, u: {$set: {v: 30}}}]}", lsid, true));
        BsonTimestamp prepareTime = run("admin", statement("{prepareTransaction: 1}", lsid, false)).getTimestamp("prepareTimestamp");
        BsonTimestamp commitTime = new BsonTimestamp(prepareTime.getTime() + 60, 1);
        BsonDocument commit = statement("{commitTransaction: 1}", lsid, false).append("commitTimestamp", commitTime);
        assertThat(run("admin", commit).getNumber("ok").intValue()).isEqualTo(1);
        BsonTimestamp next = write("{update: '" + coll + "', updates: [{q: {_id: 3}, u: {$inc: {v: 1}}}]}");
        assertThat(next).isGreaterThan(commitTime);
        assertThat(found(run(DB, "{find: '" + coll + "', filter: {_id: 3}, readConcern: " + at(next) + "}"))).singleElement()
                .satisfies(d -> assertThat(d.getInt32("v").getValue()).isEqualTo(31));
    }

    /**
     * A one-shard transaction's entries have consecutive times, but it commits at once: a read at its first entry's
     * time (every write up to it durable) sees none of it, not the first half (what BankIT caught once under faults).
     */
    @Test
    void aReadBetweenATransactionsEntriesSeesNoneOfIt() {
        LogicalSessionId lsid = LogicalSessionId.random();
        run(DB, statement("{update: '" + coll + "', updates: [{q: {_id: 1}, u: {$inc: {v: -1}}}]}", lsid, true));
        run(DB, statement("{update: '" + coll + "', updates: [{q: {_id: 3}, u: {$inc: {v: 1}}}]}", lsid, false));
        assertThat(run("admin", statement("{commitTransaction: 1}", lsid, false)).getNumber("ok").intValue()).isEqualTo(1);
        long firstStored = jdbc.sql("SELECT min(ts_key) FROM oplog WHERE lsid = ?").param(dev.shardstore.contracts.bson.BsonBytes.encode(
                lsid.toBson())).query(Long.class).single();
        BsonTimestamp first = new BsonTimestamp(firstStored ^ Long.MIN_VALUE);
        List<BsonDocument> seen = found(run(DB, "{find: '" + coll + "', filter: {_id: {$in: [1, 3]}}, sort: {_id: 1}, readConcern: " + at(first) + "}"));
        assertThat(seen).extracting(d -> d.getInt32("v").getValue()).as("both as before the transaction").containsExactly(2, 1);
    }

    @Test
    void tooOldTimesAndCommandsThatDoNotReadAtASnapshot() {
        BsonDocument old = run(DB, "{find: '" + coll + "', readConcern: " + at(new BsonTimestamp(1, 1)) + "}");
        assertThat(old.getNumber("code").intValue()).as("%s", old).isEqualTo(239);
        BsonDocument count = run(DB, "{count: '" + coll + "', readConcern: {level: 'snapshot'}}");
        assertThat(count.getNumber("code").intValue()).as("%s", count).isEqualTo(72);
        BsonDocument both = run(DB, "{find: '" + coll + "', readConcern: {level: 'local', atClusterTime: {$timestamp: {t: 1, i: 1}}}}");
        assertThat(both.getNumber("code").intValue()).as("%s", both).isEqualTo(72);
    }
}
