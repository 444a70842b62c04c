package dev.shardstore.shard.storage;

import static dev.shardstore.shard.TestRouting.chunk;
import static dev.shardstore.shard.TestRouting.collection;
import static dev.shardstore.shard.TestRouting.version;
import static dev.shardstore.shard.TestRouting.versioned;
import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.contracts.session.LogicalSessionId;
import dev.shardstore.contracts.sharding.Chunk;
import dev.shardstore.contracts.sharding.KeyRange;
import dev.shardstore.contracts.sharding.ShardedCollection;
import dev.shardstore.contracts.version.ChunkVersion;
import dev.shardstore.shard.ConfigServerStub;
import dev.shardstore.shard.ShardIntegrationTest;
import java.util.List;
import java.util.UUID;
import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * {@link MigratedSessionHistory#read}, the donor's side of {@code _getNextSessionMods}: the session entries of a chunk
 * range's documents, for each session only its current transaction number, oldest first and paged by time; retryable
 * writes (chained by {@code prevOpTime}, a batch's statements included) and a committed multi-document transaction's
 * entries alike, none of another range or collection.
 */
class MigratedSessionHistoryTest extends ShardIntegrationTest {
    private static final String DB = "sesshist";

    @Autowired
    MigratedSessionHistory history;
    @Autowired
    CollectionCatalog catalog;

    @Test
    void aRangesHistoryIsEachSessionsCurrentTransactionNumberInTimeOrder() {
        ShardedCollection coll = collection(DB + ".c", "{x: 1}");
        List<Chunk> chunks = List.of(chunk(coll, "{x: {$minKey: 1}}", "{x: 100}", SHARD_NAME, 1, 0),
                chunk(coll, "{x: 100}", "{x: {$maxKey: 1}}", SHARD_NAME, 1, 1));
        ConfigServerStub.instance().putRoutingTable(coll, chunks);
        ChunkVersion v = version(coll, 1, 1);
        run(DB, "{create: 'c'}");
        LogicalSessionId a = LogicalSessionId.random();
        LogicalSessionId b = LogicalSessionId.random();
        LogicalSessionId t = LogicalSessionId.random();
        ok(run(DB, retryable(versioned("{insert: 'c', documents: [{_id: 1, x: 1}, {_id: 2, x: 2}]}", v), a, 1)));
        ok(run(DB, retryable(versioned("{insert: 'c', documents: [{_id: 3, x: 3}]}", v), a, 2))); // a's txnNumber 1 is past
        ok(run(DB, retryable(versioned("{insert: 'c', documents: [{_id: 10, x: 10}, {_id: 200, x: 200}, {_id: 20, x: 20}]}", v), b, 5)));
        ok(run(DB, retryable(ExtendedJson.parse("{insert: 'other', documents: [{_id: 30, x: 30}]}"), b, 5)
                .append("stmtIds", new BsonArray(List.of(new BsonInt32(3)))))); // b's chain passes through another collection
        ok(run(DB, retryable(versioned("{insert: 'c', documents: [{_id: 40, x: 40}]}", v), t, 1)
                .append("startTransaction", BsonBoolean.TRUE).append("autocommit", BsonBoolean.FALSE)));
        ok(run(DB, retryable(versioned("{insert: 'c', documents: [{_id: 50, x: 50}, {_id: 300, x: 300}]}", v), t, 1)
                .append("autocommit", BsonBoolean.FALSE)));
        ok(run("admin", retryable(ExtendedJson.parse("{commitTransaction: 1}"), t, 1).append("autocommit", BsonBoolean.FALSE)));

        UUID ui = catalog.find(new Namespace(DB, "c")).orElseThrow().uuid();
        KeyRange range = KeyRange.of(coll.key(), chunks.get(0).range());
        List<BsonDocument> all = history.read(ui, range, 0, 100);
        assertThat(all).extracting(MigratedSessionHistoryTest::idOf).containsExactly(3, 10, 20, 40, 50);
        assertThat(all).extracting(e -> e.getInt64("txnNumber").getValue()).containsExactly(2L, 5L, 5L, 1L, 1L);
        assertThat(all.subList(1, 3)).extracting(e -> e.getInt32("stmtId").getValue()).containsExactly(0, 2);
        assertThat(all).extracting(e -> e.getString("op").getValue()).containsOnly("i");

        List<BsonDocument> first = history.read(ui, range, 0, 2);
        assertThat(first).extracting(MigratedSessionHistoryTest::idOf).containsExactly(3, 10);
        long after = first.getLast().getTimestamp("ts").getValue();
        assertThat(history.read(ui, range, after, 100)).extracting(MigratedSessionHistoryTest::idOf).containsExactly(20, 40, 50);
        assertThat(history.read(ui, KeyRange.of(coll.key(), chunks.get(1).range()), 0, 100))
                .extracting(MigratedSessionHistoryTest::idOf).containsExactly(200, 300);
    }

    private static BsonDocument retryable(BsonDocument command, LogicalSessionId lsid, long txnNumber) {
        return command.append("lsid", lsid.toBson()).append("txnNumber", new BsonInt64(txnNumber));
    }

    private static BsonDocument ok(BsonDocument reply) {
        assertThat(reply.getNumber("ok").intValue()).as(reply.toJson()).isOne();
        assertThat(reply.containsKey("writeErrors")).as(reply.toJson()).isFalse();
        return reply;
    }

    private static int idOf(BsonDocument entry) {
        return entry.getDocument("o2").getNumber("_id").intValue();
    }
}
