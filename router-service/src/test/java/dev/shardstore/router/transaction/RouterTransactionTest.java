package dev.shardstore.router.transaction;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.session.LogicalSessionId;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.Test;

/** A transaction's snapshot time moves to a later one only while no shard has a statement of it. */
class RouterTransactionTest {
    private static final BsonDocument FIND = new BsonDocument("find", new BsonString("c"));

    private static RouterTransaction snapshotAt(int seconds) {
        return new RouterTransaction(LogicalSessionId.random(), 1, new BsonDocument("level", new BsonString("snapshot"))
                .append("atClusterTime", new BsonTimestamp(seconds, 1)));
    }

    @Test
    void aTransactionNoShardHasYetReadsAtALaterTimeAndSendsIt() {
        RouterTransaction txn = snapshotAt(10);
        assertThat(txn.readAtLaterTime(new BsonTimestamp(10, 1))).as("the same time is no move").isFalse();
        assertThat(txn.readAtLaterTime(new BsonTimestamp(9, 5))).as("never back").isFalse();
        assertThat(txn.readAtLaterTime(new BsonTimestamp(12, 3))).isTrue();
        assertThat(txn.atClusterTime()).isEqualTo(new BsonTimestamp(12, 3));
        BsonDocument sent = txn.forParticipant("shard1", FIND);
        assertThat(sent.getDocument("readConcern")).isEqualTo(new BsonDocument("level", new BsonString("snapshot"))
                .append("atClusterTime", new BsonTimestamp(12, 3)));
    }

    @Test
    void onceAShardHasAStatementTheTimeStays() {
        RouterTransaction txn = snapshotAt(10);
        txn.forParticipant("shard1", FIND);
        assertThat(txn.readAtLaterTime(new BsonTimestamp(20, 1))).isFalse();
        assertThat(txn.atClusterTime()).isEqualTo(new BsonTimestamp(10, 1));
    }

    @Test
    void aTransactionWithoutASnapshotHasNoTimeToMove() {
        RouterTransaction local = new RouterTransaction(LogicalSessionId.random(), 1, new BsonDocument("level", new BsonString("local")));
        assertThat(local.readAtLaterTime(new BsonTimestamp(20, 1))).isFalse();
        RouterTransaction none = new RouterTransaction(LogicalSessionId.random(), 1, null);
        assertThat(none.readAtLaterTime(new BsonTimestamp(20, 1))).isFalse();
        assertThat(none.forParticipant("shard1", FIND).containsKey("readConcern")).isFalse();
    }
}
