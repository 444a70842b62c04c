package dev.shardstore.shard.index;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.shard.ShardIntegrationTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;

/** createIndexes, listIndexes, dropIndexes and index maintenance by writes, over real HTTP. */
class IndexCommandsTest extends ShardIntegrationTest {

    @Test
    void createListAndDrop() {
        BsonDocument created = run("ix1", "{createIndexes: 'c', indexes: [{key: {a: 1}, name: 'a_1'}, {key: {b: 1, c: -1}, name: 'bc', unique: true}]}");
        assertThat(created).isEqualTo(ExtendedJson.parse(
                "{numIndexesBefore: 1, numIndexesAfter: 3, createdCollectionAutomatically: true, ok: 1.0}"));
        assertThat(run("ix1", "{createIndexes: 'c', indexes: [{key: {a: 1}, name: 'a_1'}]}")).isEqualTo(ExtendedJson.parse(
                "{numIndexesBefore: 3, numIndexesAfter: 3, createdCollectionAutomatically: false, note: 'all indexes already exist', ok: 1.0}"));
        assertError(run("ix1", "{createIndexes: 'c', indexes: [{key: {a: 1}, name: 'a_1', unique: true}]}"), 85);
        assertError(run("ix1", "{createIndexes: 'c', indexes: [{key: {a: 1}, name: 'other'}]}"), 85);
        assertError(run("ix1", "{createIndexes: 'c', indexes: [{key: {z: 1}, name: 'a_1'}]}"), 86);
        assertError(run("ix1", "{createIndexes: 'c', indexes: [{key: {z: 1}, name: 'z', bogus: 1}]}"), 197);
        assertError(run("ix1", "{createIndexes: 'c', indexes: [{key: {z: 'text'}, name: 'z'}]}"), 238);
        run("ix1", "{createIndexes: 'c', indexes: [{key: {p: 1}, name: 'p_1', sparse: true, partialFilterExpression: {p: {$gt: 5}}}]}");

        assertThat(list("ix1", "c")).containsExactly(
                ExtendedJson.parse("{v: 2, key: {_id: 1}, name: '_id_'}"),
                ExtendedJson.parse("{v: 2, key: {a: 1}, name: 'a_1'}"),
                ExtendedJson.parse("{v: 2, key: {b: 1, c: -1}, name: 'bc', unique: true}"),
                ExtendedJson.parse("{v: 2, key: {p: 1}, name: 'p_1', sparse: true, partialFilterExpression: {p: {$gt: 5}}}"));

        assertError(run("ix1", "{dropIndexes: 'c', index: '_id_'}"), 72);
        assertError(run("ix1", "{dropIndexes: 'c', index: 'nope'}"), 27);
        assertThat(run("ix1", "{dropIndexes: 'c', index: {b: 1, c: -1}}")).isEqualTo(ExtendedJson.parse("{nIndexesWas: 4, ok: 1.0}"));
        assertThat(run("ix1", "{dropIndexes: 'c', index: ['a_1']}")).isEqualTo(ExtendedJson.parse("{nIndexesWas: 3, ok: 1.0}"));
        assertThat(run("ix1", "{dropIndexes: 'c', index: '*'}")).isEqualTo(ExtendedJson.parse("{nIndexesWas: 2, ok: 1.0}"));
        assertThat(list("ix1", "c")).hasSize(1);
        assertError(run("ix1", "{listIndexes: 'nothere'}"), 26);
        assertThat(jdbc.sql("SELECT count(*) FROM information_schema.tables WHERE table_name LIKE 'i\\_%'").query(Long.class).single())
                .isEqualTo(countIndexRows());
    }

    @Test
    void buildOnExistingDataAndUniqueViolationLeavesNoIndex() {
        run("ix2", "{insert: 'c', documents: [{_id: 1, a: 1}, {_id: 2, a: 2}, {_id: 3, a: 2}, {_id: 4}]}");
        long tablesBefore = indexTables();
        BsonDocument failed = run("ix2", "{createIndexes: 'c', indexes: [{key: {a: 1}, name: 'a_1', unique: true}]}");
        assertError(failed, 11000);
        assertThat(failed.getString("errmsg").getValue()).isEqualTo("E11000 duplicate key error collection: ix2.c index: a_1 dup key: { a: 2 }");
        assertThat(list("ix2", "c")).hasSize(1);
        assertThat(indexTables()).isEqualTo(tablesBefore);
        // several indexes in one command: all or none
        assertError(run("ix2", "{createIndexes: 'c', indexes: [{key: {b: 1}, name: 'b_1'}, {key: {a: 1}, name: 'a_1', unique: true}]}"), 11000);
        assertThat(list("ix2", "c")).hasSize(1);
        assertThat(indexTables()).isEqualTo(tablesBefore);

        run("ix2", "{createIndexes: 'c', indexes: [{key: {a: 1}, name: 'a_1'}]}");
        assertThat(ids(run("ix2", "{find: 'c', filter: {a: 2}, hint: 'a_1'}"))).containsExactly(2, 3);
        assertThat(ids(run("ix2", "{find: 'c', filter: {a: null}, hint: 'a_1'}"))).containsExactly(4);
    }

    @Test
    void uniqueEnforcedOnInsertAndUpdate() {
        run("ix3", "{createIndexes: 'c', indexes: [{key: {a: 1}, name: 'a_1', unique: true}]}");
        BsonDocument ordered = run("ix3", "{insert: 'c', documents: [{_id: 1, a: 1}, {_id: 2, a: 1}, {_id: 3, a: 3}]}");
        assertThat(ordered.getNumber("n").intValue()).isEqualTo(1);
        assertThat(ordered.getArray("writeErrors")).containsExactly(ExtendedJson.parse("""
                {index: 1, code: 11000, keyPattern: {a: 1}, keyValue: {a: 1},
                 errmsg: 'E11000 duplicate key error collection: ix3.c index: a_1 dup key: { a: 1 }'}"""));
        BsonDocument unordered = run("ix3", "{insert: 'c', documents: [{_id: 4, a: 1}, {_id: 5, a: 5}, {_id: 1, a: 9}], ordered: false}");
        assertThat(unordered.getNumber("n").intValue()).isEqualTo(1);
        assertThat(unordered.getArray("writeErrors")).extracting(e -> e.asDocument().getInt32("index").getValue()).containsExactly(0, 2);
        assertThat(unordered.getArray("writeErrors").get(1).asDocument().getString("errmsg").getValue()).contains("index: _id_");

        // missing fields index as null: a second document without 'a' collides
        assertThat(run("ix3", "{insert: 'c', documents: [{_id: 6}]}").getNumber("n").intValue()).isEqualTo(1);
        assertThat(run("ix3", "{insert: 'c', documents: [{_id: 7}]}").getArray("writeErrors").get(0).asDocument()
                .getString("errmsg").getValue()).endsWith("index: a_1 dup key: { a: null }");

        BsonDocument update = run("ix3", "{update: 'c', updates: [{q: {_id: 5}, u: {$set: {a: 1}}}]}");
        assertThat(update.getArray("writeErrors").get(0).asDocument().getString("errmsg").getValue())
                .isEqualTo("E11000 duplicate key error collection: ix3.c index: a_1 dup key: { a: 1 }");
        assertThat(ids(run("ix3", "{find: 'c', filter: {a: 5}, hint: 'a_1'}"))).containsExactly(5);
        // the change and the index move together
        run("ix3", "{update: 'c', updates: [{q: {_id: 5}, u: {$set: {a: 50}}}]}");
        assertThat(ids(run("ix3", "{find: 'c', filter: {a: 5}, hint: 'a_1'}"))).isEmpty();
        assertThat(ids(run("ix3", "{find: 'c', filter: {a: 50}, hint: 'a_1'}"))).containsExactly(5);
        run("ix3", "{delete: 'c', deletes: [{q: {_id: 5}, limit: 1}]}");
        assertThat(ids(run("ix3", "{find: 'c', filter: {a: 50}, hint: 'a_1'}"))).isEmpty();
        assertThat(run("ix3", "{insert: 'c', documents: [{_id: 8, a: 50}]}").getNumber("n").intValue()).isEqualTo(1);
        assertThat(ids(run("ix3", "{find: 'c', filter: {a: {$gte: 0}}, hint: 'a_1'}"))).containsExactly(1, 8);
    }

    @Test
    void multikeySparseAndPartial() {
        run("ix4", "{insert: 'c', documents: [{_id: 1, t: ['x', 'y'], s: 1, p: 10}, {_id: 2, t: 'y', p: 1}, {_id: 3, t: [], s: null}]}");
        run("ix4", "{createIndexes: 'c', indexes: [{key: {t: 1}, name: 't_1'}, {key: {s: 1}, name: 's_1', sparse: true},"
                + " {key: {p: 1}, name: 'p_1', partialFilterExpression: {p: {$gt: 5}}}]}");
        assertThat(ids(run("ix4", "{find: 'c', filter: {t: 'y'}, hint: 't_1'}"))).containsExactly(1, 2);
        assertThat(entries("ix4", "c", "t_1")).isEqualTo(4); // x, y, y, undefined
        assertThat(entries("ix4", "c", "s_1")).isEqualTo(2); // 1, null (present); _id 2 left out
        assertThat(entries("ix4", "c", "p_1")).isEqualTo(1); // only p > 5
        run("ix4", "{update: 'c', updates: [{q: {_id: 2}, u: {$set: {p: 7, t: ['y', 'y', 'z']}}}]}");
        assertThat(entries("ix4", "c", "p_1")).isEqualTo(2);
        assertThat(entries("ix4", "c", "t_1")).isEqualTo(5);
        run("ix4", "{delete: 'c', deletes: [{q: {}, limit: 0}]}");
        assertThat(entries("ix4", "c", "t_1")).isZero();
        BsonDocument parallel = run("ix4", "{createIndexes: 'c', indexes: [{key: {u: 1, v: 1}, name: 'uv'}]}");
        assertThat(parallel.getNumber("ok").intValue()).isEqualTo(1);
        assertThat(run("ix4", "{insert: 'c', documents: [{_id: 9, u: [1], v: [2]}]}").getArray("writeErrors").get(0)
                .asDocument().getInt32("code").getValue()).isEqualTo(171);
    }

    @Test
    void compoundDescendingOrder() {
        BsonArray docs = new BsonArray();
        for (int i = 0; i < 6; i++) {
            docs.add(new BsonDocument("_id", new BsonInt32(i)).append("a", new BsonInt32(i % 2)).append("b", new BsonInt32(i)));
        }
        run("ix5", new BsonDocument("insert", new BsonString("c")).append("documents", docs));
        run("ix5", "{createIndexes: 'c', indexes: [{key: {a: 1, b: -1}, name: 'ab'}]}");
        // index order: a ascending, then b descending
        assertThat(ids(run("ix5", "{find: 'c', hint: 'ab'}"))).containsExactly(4, 2, 0, 5, 3, 1);
        assertThat(ids(run("ix5", "{find: 'c', filter: {a: 1, b: {$lt: 5}}, hint: {a: 1, b: -1}}"))).containsExactly(3, 1);
        assertThat(run("ix5", "{count: 'c', query: {a: 0, b: {$gte: 2}}, hint: 'ab'}").getNumber("n").intValue()).isEqualTo(2);
        assertError(run("ix5", "{find: 'c', hint: 'nope'}"), 2);
        assertError(run("ix5", "{find: 'c', hint: 5}"), 2);
        assertError(run("ix5", "{count: 'c', hint: {zz: 1}}"), 2);
    }

    @Test
    void batchesIntoIndexedCollections() {
        run("ix7", "{createIndexes: 'c', indexes: [{key: {a: 1}, name: 'a_1', unique: true}, {key: {b: 1}, name: 'b_1'}]}");
        BsonArray docs = new BsonArray();
        for (int i = 0; i < 50; i++) {
            docs.add(new BsonDocument("_id", new BsonInt32(i)).append("a", new BsonInt32(i)).append("b", new BsonInt32(i % 2)));
        }
        assertThat(run("ix7", new BsonDocument("insert", new BsonString("c")).append("documents", docs)).getNumber("n").intValue()).isEqualTo(50);
        assertThat(entries("ix7", "c", "a_1")).isEqualTo(50);
        assertThat(entries("ix7", "c", "b_1")).isEqualTo(50);
        // unordered with a taken _id only: one transaction, the duplicate reported
        BsonDocument reply = run("ix7", "{insert: 'c', documents: [{_id: 100, a: 100}, {_id: 1, a: 101}, {_id: 102, a: 102}], ordered: false}");
        assertThat(reply.getNumber("n").intValue()).isEqualTo(2);
        assertThat(reply.getArray("writeErrors")).extracting(e -> e.asDocument().getInt32("index").getValue()).containsExactly(1);
        assertThat(entries("ix7", "c", "a_1")).isEqualTo(52);
        // ordered, a duplicate in the middle of the batch: the prefix stays, nothing after it
        BsonDocument ordered = run("ix7", "{insert: 'c', documents: [{_id: 200, a: 200}, {_id: 201, a: 5}, {_id: 202, a: 202}]}");
        assertThat(ordered.getNumber("n").intValue()).isEqualTo(1);
        assertThat(ordered.getArray("writeErrors").get(0).asDocument().getInt32("index").getValue()).isEqualTo(1);
        assertThat(ids(run("ix7", "{find: 'c', filter: {_id: {$gte: 200}}}"))).containsExactly(200);
        assertThat(entries("ix7", "c", "a_1")).isEqualTo(53);
    }

    @Test
    void anUpdateRewritesOnlyTheEntriesWhoseKeysChanged() {
        run("ix8", "{createIndexes: 'c', indexes: [{key: {t: 1}, name: 't_1'}, {key: {_id: 'hashed'}, name: 'h'}]}");
        run("ix8", "{insert: 'c', documents: [{_id: 1, t: ['x', 'y'], n: 1}, {_id: 2, t: 'y', n: 1}]}");
        Map<String, String> before = rows("ix8", "c", "t_1");
        Map<String, String> hashedBefore = rows("ix8", "c", "h");

        // no indexed field changes: not one index row is rewritten (a row's ctid changes with any update of it)
        BsonDocument untouched = run("ix8", "{update: 'c', updates: [{q: {}, u: {$inc: {n: 1}}, multi: true}]}");
        assertThat(untouched.getNumber("nModified").intValue()).isEqualTo(2);
        assertThat(rows("ix8", "c", "t_1")).isEqualTo(before);
        assertThat(rows("ix8", "c", "h")).isEqualTo(hashedBefore);

        // one element of a multikey field replaced: its entry goes, the new one comes, the shared one stays as it was
        run("ix8", "{update: 'c', updates: [{q: {_id: 1}, u: {$set: {t: ['y', 'z']}}}]}");
        Map<String, String> after = rows("ix8", "c", "t_1");
        Map<String, String> kept = new TreeMap<>(before);
        kept.keySet().retainAll(after.keySet());
        assertThat(after).hasSize(3);
        assertThat(kept).hasSize(2); // 'y' of _id 1 and of _id 2, where they were
        kept.forEach((entry, ctid) -> assertThat(after).containsEntry(entry, ctid));
        assertThat(ids(run("ix8", "{find: 'c', filter: {t: 'x'}, hint: 't_1'}"))).isEmpty();
        assertThat(ids(run("ix8", "{find: 'c', filter: {t: 'z'}, hint: 't_1'}"))).containsExactly(1);
        assertThat(ids(run("ix8", "{find: 'c', filter: {t: 'y'}, hint: 't_1'}"))).containsExactly(1, 2);
        assertThat(rows("ix8", "c", "h")).isEqualTo(hashedBefore);
    }

    @Test
    void aMultiUpdateThatAnIndexRefusesStopsAtTheRefusedDocument() {
        run("ix9", "{createIndexes: 'c', indexes: [{key: {u: 1, v: 1}, name: 'uv'}]}");
        run("ix9", "{insert: 'c', documents: [{_id: 1, u: 1}, {_id: 2, u: [1, 2]}, {_id: 3, u: 3}]}");
        BsonDocument reply = run("ix9", "{update: 'c', updates: [{q: {}, u: {$set: {v: [7, 8]}}, multi: true}]}");
        assertThat(reply.getArray("writeErrors").get(0).asDocument().getInt32("code").getValue()).isEqualTo(171);
        assertThat(reply.getNumber("nModified").intValue()).isEqualTo(1);
        assertThat(ids(run("ix9", "{find: 'c', filter: {u: 1, v: 7}, hint: 'uv'}"))).containsExactly(1);
        assertThat(run("ix9", "{find: 'c', filter: {_id: 2}}").getDocument("cursor").getArray("firstBatch").get(0).asDocument()
                .containsKey("v")).isFalse();
        assertThat(entries("ix9", "c", "uv")).isEqualTo(5); // {1, 7}, {1, 8}; {1, null}, {2, null}; {3, null}
    }

    @Test
    void anIndexBuiltWhileWritersRunHasExactlyOneEntryPerDocument() throws Exception {
        StringBuilder initial = new StringBuilder();
        for (int i = 0; i < 500; i++) {
            initial.append(i == 0 ? "" : ", ").append("{_id: ").append(i).append(", a: ").append(i).append('}');
        }
        BsonDocument loaded = run("ix10", "{insert: 'c', documents: [" + initial + "]}");
        assertThat(loaded.getNumber("n").intValue()).as(loaded.toJson()).isEqualTo(500);
        AtomicInteger nextId = new AtomicInteger(500);
        ExecutorService writers = Executors.newFixedThreadPool(4);
        try {
            for (int round = 0; round < 5; round++) {
                AtomicBoolean stop = new AtomicBoolean();
                List<Future<Integer>> running = new ArrayList<>();
                for (int w = 0; w < 4; w++) {
                    int writer = w;
                    running.add(writers.submit(() -> {
                        int writes = 0;
                        for (int n = 0; !stop.get(); n++, writes++) {
                            if (n % 2 == 0) {
                                int id = nextId.getAndIncrement();
                                assertThat(run("ix10", "{insert: 'c', documents: [{_id: " + id + ", a: " + id + "}]}").getNumber("n").intValue()).isEqualTo(1);
                            } else { // moves a document's key: its old entry must go and its new one come
                                int id = (writer * 131 + n * 7) % 500;
                                run("ix10", "{update: 'c', updates: [{q: {_id: " + id + "}, u: {$inc: {a: 1000}}}]}");
                            }
                        }
                        return writes;
                    }));
                }
                // the writers are going when the build starts and keep going through it
                int beforeBuild = nextId.get();
                await().atMost(Duration.ofSeconds(30)).until(() -> nextId.get() >= beforeBuild + 5);
                run("ix10", "{createIndexes: 'c', indexes: [{key: {a: 1}, name: 'a_1'}]}");
                int afterBuild = nextId.get();
                await().atMost(Duration.ofSeconds(30)).until(() -> nextId.get() >= afterBuild + 5);
                stop.set(true);
                for (Future<Integer> writer : running) {
                    assertThat(writer.get(60, TimeUnit.SECONDS)).isPositive();
                }
                long documents = run("ix10", "{count: 'c'}").getNumber("n").longValue();
                assertThat(entries("ix10", "c", "a_1")).as("round %d: entries of a_1", round).isEqualTo(documents);
                List<Integer> viaIndex = ids(run("ix10", "{find: 'c', filter: {a: {$gte: 0}}, hint: 'a_1', batchSize: 100000}"));
                assertThat(viaIndex).as("round %d: documents found through a_1", round).hasSize((int) documents).doesNotHaveDuplicates();
                run("ix10", "{dropIndexes: 'c', index: 'a_1'}");
            }
        } finally {
            writers.shutdownNow();
        }
    }

    @Test
    void droppingTheCollectionDropsItsIndexTables() {
        run("ix6", "{createIndexes: 'c', indexes: [{key: {a: 1}, name: 'a_1'}]}");
        assertThat(run("ix6", "{drop: 'c'}")).isEqualTo(ExtendedJson.parse("{nIndexesWas: 2, ns: 'ix6.c', ok: 1.0}"));
        assertThat(indexTables()).isEqualTo(countIndexRows());
    }

    private long entries(String db, String coll, String index) {
        return jdbc.sql("SELECT count(*) FROM " + tableOf(db, coll, index)).query(Long.class).single();
    }

    private String tableOf(String db, String coll, String index) {
        return jdbc.sql("SELECT i.table_name FROM indexes i JOIN collections c ON c.uuid = i.collection_uuid "
                + "WHERE c.namespace = ? AND i.name = ?").param(db + "." + coll).param(index).query(String.class).single();
    }

    /** Each entry of an index table (key and id, hex) with the row's physical position, which any update of it moves. */
    private Map<String, String> rows(String db, String coll, String index) {
        Map<String, String> rows = new TreeMap<>();
        jdbc.sql("SELECT encode(key, 'hex') || '/' || encode(id, 'hex'), ctid::text FROM " + tableOf(db, coll, index))
                .query((rs, n) -> rows.put(rs.getString(1), rs.getString(2))).list();
        return rows;
    }

    private long indexTables() {
        return jdbc.sql("SELECT count(*) FROM information_schema.tables WHERE table_name LIKE 'i\\_%'").query(Long.class).single();
    }

    private long countIndexRows() {
        return jdbc.sql("SELECT count(*) FROM indexes").query(Long.class).single();
    }

    private List<BsonDocument> list(String db, String coll) {
        return run(db, "{listIndexes: '" + coll + "'}").getDocument("cursor").getArray("firstBatch").stream()
                .map(BsonValue::asDocument).toList();
    }

    static List<Integer> ids(BsonDocument reply) {
        assertThat(reply.containsKey("cursor")).as(reply.toJson()).isTrue();
        return reply.getDocument("cursor").getArray("firstBatch").stream()
                .map(d -> d.asDocument().get("_id").asNumber().intValue()).toList();
    }

    static void assertError(BsonDocument reply, int code) {
        assertThat(reply.getNumber("code").intValue()).as(reply.toJson()).isEqualTo(code);
    }
}
