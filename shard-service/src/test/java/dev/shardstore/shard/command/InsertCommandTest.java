package dev.shardstore.shard.command;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.shard.ShardIntegrationTest;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;

class InsertCommandTest extends ShardIntegrationTest {
    private static final String DB = "ins";

    @Test
    void insertsDocumentsAndGivesMissingIdsAnObjectIdFirst() {
        BsonDocument reply = run(DB, "{insert: 'basic', documents: [{_id: 1, a: 1}, {b: 2}, {c: 3, _id: 'x'}]}");

        assertThat(reply).isEqualTo(ExtendedJson.parse("{n: 3, ok: 1.0}"));
        List<BsonDocument> docs = findAll("basic");
        assertThat(docs).hasSize(3);
        assertThat(docs).allSatisfy(d -> assertThat(d.getFirstKey()).isEqualTo("_id"));
        assertThat(docs).anySatisfy(d -> {
            assertThat(d.get("_id").isObjectId()).isTrue();
            assertThat(d.getInt32("b").getValue()).isEqualTo(2);
        });
        assertThat(docs).contains(ExtendedJson.parse("{_id: 'x', c: 3}"));
    }

    @Test
    void orderedInsertStopsAtTheFirstDuplicateAndWritesNothingAfterIt() {
        run(DB, "{insert: 'ordered', documents: [{_id: 2}]}");

        BsonDocument reply = run(DB, "{insert: 'ordered', documents: [{_id: 1}, {_id: 2, v: 'dup'}, {_id: 3}, {_id: 4}]}");

        assertThat(reply.getInt32("n").getValue()).isEqualTo(1);
        assertThat(reply.getArray("writeErrors")).containsExactly(ExtendedJson.parse("""
                {index: 1, code: 11000, keyPattern: {_id: 1}, keyValue: {_id: 2},
                 errmsg: "E11000 duplicate key error collection: ins.ordered index: _id_ dup key: { _id: 2 }"}"""));
        assertThat(ids("ordered")).containsExactly(new BsonInt32(1), new BsonInt32(2));
        assertThat(oplogInserts("ins.ordered")).isEqualTo(2);
    }

    @Test
    void unorderedInsertWritesEverythingButTheDuplicates() {
        run(DB, "{insert: 'unordered', documents: [{_id: 2}]}");

        BsonDocument reply = run(DB, """
                {insert: 'unordered', ordered: false,
                 documents: [{_id: 1}, {_id: 2}, {_id: 3}, {_id: 1.0}, {_id: 'x'}, {_id: 4}]}""");

        assertThat(reply.getInt32("n").getValue()).isEqualTo(4);
        BsonArray errors = reply.getArray("writeErrors");
        assertThat(errors).hasSize(2);
        assertThat(errors.get(0).asDocument().getInt32("index").getValue()).isEqualTo(1);
        assertThat(errors.get(0).asDocument().getString("errmsg").getValue())
                .isEqualTo("E11000 duplicate key error collection: ins.unordered index: _id_ dup key: { _id: 2 }");
        // 1.0 equals 1 in BSON order: the same _id, as in MongoDB.
        assertThat(errors.get(1).asDocument()).isEqualTo(ExtendedJson.parse("""
                {index: 3, code: 11000, keyPattern: {_id: 1}, keyValue: {_id: 1.0},
                 errmsg: "E11000 duplicate key error collection: ins.unordered index: _id_ dup key: { _id: 1.0 }"}"""));
        assertThat(ids("unordered")).containsExactly(new BsonInt32(1), new BsonInt32(2), new BsonInt32(3),
                new BsonInt32(4), new BsonString("x"));
        assertThat(oplogInserts("ins.unordered")).isEqualTo(5);
    }

    @Test
    void orderedDuplicateOfAnEarlierDocumentInTheSameBatchStopsThere() {
        BsonDocument reply = run(DB, "{insert: 'sameBatch', documents: [{_id: 1}, {_id: 2}, {_id: 1}, {_id: 5}]}");

        assertThat(reply.getInt32("n").getValue()).isEqualTo(2);
        assertThat(reply.getArray("writeErrors")).hasSize(1);
        assertThat(reply.getArray("writeErrors").get(0).asDocument().getInt32("index").getValue()).isEqualTo(2);
        assertThat(ids("sameBatch")).containsExactly(new BsonInt32(1), new BsonInt32(2));
    }

    @Test
    void failedOrderedBatchLeavesNoOplogEntriesForUnwrittenDocuments() {
        run(DB, "{insert: 'oplogTx', documents: [{_id: 50}]}");
        long before = oplogInserts("ins.oplogTx");

        // The first attempt inserts 1..49 and 51..100 in one statement, sees 50 taken, and rolls back.
        BsonArray docs = new BsonArray();
        for (int i = 1; i <= 100; i++) {
            docs.add(new BsonDocument("_id", new BsonInt32(i)));
        }
        BsonDocument reply = run(DB, new BsonDocument("insert", new BsonString("oplogTx")).append("documents", docs));

        assertThat(reply.getInt32("n").getValue()).isEqualTo(49);
        assertThat(countDocs("oplogTx")).isEqualTo(50);
        assertThat(oplogInserts("ins.oplogTx") - before).isEqualTo(49);
        List<BsonDocument> entries = jdbc.sql("SELECT o2 FROM oplog WHERE ns = 'ins.oplogTx' AND op = 'i' ORDER BY ts_key")
                .query((rs, i) -> BsonBytes.decode(rs.getBytes(1))).list();
        assertThat(entries.getLast()).isEqualTo(new BsonDocument("_id", new BsonInt32(49)));
    }

    @Test
    void oplogEntriesCarryTheDocumentAndIncreasingTimestamps() {
        run(DB, "{insert: 'oplogShape', documents: [{_id: 1, a: 'x'}, {_id: 2}]}");

        List<Object[]> rows = jdbc.sql("SELECT ts_key, op, o2, o FROM oplog WHERE ns = 'ins.oplogShape' ORDER BY ts_key")
                .query((rs, i) -> new Object[] {rs.getLong(1), rs.getString(2), BsonBytes.decode(rs.getBytes(3)),
                        BsonBytes.decode(rs.getBytes(4))})
                .list();
        assertThat(rows).hasSize(2);
        assertThat(rows.get(0)[1]).isEqualTo("i");
        assertThat(rows.get(0)[2]).isEqualTo(ExtendedJson.parse("{_id: 1}"));
        assertThat(rows.get(0)[3]).isEqualTo(ExtendedJson.parse("{_id: 1, a: 'x'}"));
        assertThat((long) rows.get(1)[0]).isGreaterThan((long) rows.get(0)[0]);
    }

    @Test
    void arrayIdAndOversizedDocumentsAreWriteErrors() {
        String big = "x".repeat(BsonBytes.MAX_DOCUMENT_SIZE);
        BsonDocument command = ExtendedJson.parse("{insert: 'invalid', ordered: false}")
                .append("documents", new BsonArray(List.of(
                        ExtendedJson.parse("{_id: [1, 2]}"),
                        new BsonDocument("_id", new BsonInt32(2)).append("big", new BsonString(big)),
                        ExtendedJson.parse("{_id: 3}"))));

        BsonDocument reply = run(DB, command);

        assertThat(reply.getInt32("n").getValue()).isEqualTo(1);
        BsonArray errors = reply.getArray("writeErrors");
        assertThat(errors.get(0).asDocument().getInt32("code").getValue()).isEqualTo(53);
        assertThat(errors.get(1).asDocument().getInt32("index").getValue()).isEqualTo(1);
        assertThat(errors.get(1).asDocument().getInt32("code").getValue()).isEqualTo(10334);
        assertThat(ids("invalid")).containsExactly(new BsonInt32(3));
    }

    @Test
    void malformedCommandsFailWholeNamingTheField() {
        assertError(run(DB, "{insert: 'bad', documents: [{}, {}, {}, 5]}"), 14, "documents.3 is not a document");
        assertError(run(DB, "{insert: 'bad'}"), 9, "'documents' is required");
        assertError(run(DB, "{insert: 'bad', documents: []}"), 16, "Write batch sizes must be between 1 and 100000");
        assertError(run(DB, "{insert: 'a$b', documents: [{}]}"), 73, "may not contain '$'");
        assertError(run("bad.db", "{insert: 'c', documents: [{}]}"), 73, "invalid database name");
        assertError(run(DB, "{insert: 7, documents: [{}]}"), 14, "'insert'");
    }

    private static void assertError(BsonDocument reply, int code, String messagePart) {
        assertThat(reply.getDouble("ok").getValue()).as(reply.toJson()).isEqualTo(0.0);
        assertThat(reply.getInt32("code").getValue()).as(reply.toJson()).isEqualTo(code);
        assertThat(reply.getString("errmsg").getValue()).contains(messagePart);
    }

    private List<BsonDocument> findAll(String collection) {
        BsonDocument reply = run(DB, new BsonDocument("find", new BsonString(collection)));
        return reply.getDocument("cursor").getArray("firstBatch").stream().map(BsonValue::asDocument).toList();
    }

    private List<BsonValue> ids(String collection) {
        return findAll(collection).stream().map(d -> d.get("_id")).toList();
    }

    private long countDocs(String collection) {
        return run(DB, new BsonDocument("count", new BsonString(collection))).getNumber("n").longValue();
    }

    private long oplogInserts(String ns) {
        return jdbc.sql("SELECT count(*) FROM oplog WHERE ns = ? AND op = 'i'").param(ns).query(Long.class).single();
    }
}
