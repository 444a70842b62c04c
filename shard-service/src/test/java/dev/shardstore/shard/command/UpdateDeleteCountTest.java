package dev.shardstore.shard.command;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.shard.ShardIntegrationTest;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;

class UpdateDeleteCountTest extends ShardIntegrationTest {
    private static final String DB = "upd";

    @Test
    void replacementKeepsIdAndCountsMatchedAndModified() {
        insert("replace", "{_id: 1, a: 1, b: 2}");

        BsonDocument reply = run(DB, "{update: 'replace', updates: [{q: {_id: 1}, u: {c: 3}}]}");

        assertThat(reply).isEqualTo(ExtendedJson.parse("{n: 1, nModified: 1, ok: 1.0}"));
        assertThat(all("replace")).containsExactly(ExtendedJson.parse("{_id: 1, c: 3}"));
    }

    @Test
    void operatorsSetUnsetIncAndNoOpIsNotModified() {
        insert("ops", "{_id: 1, a: 1, b: 'x', n: 5}");

        assertThat(run(DB, "{update: 'ops', updates: [{q: {a: 1}, u: {$set: {c: {d: 1}}, $unset: {b: ''}, $inc: {n: 2}}}]}"))
                .isEqualTo(ExtendedJson.parse("{n: 1, nModified: 1, ok: 1.0}"));
        assertThat(all("ops")).containsExactly(ExtendedJson.parse("{_id: 1, a: 1, n: 7, c: {d: 1}}"));

        assertThat(run(DB, "{update: 'ops', updates: [{q: {_id: 1}, u: {$set: {a: 1}}}]}"))
                .isEqualTo(ExtendedJson.parse("{n: 1, nModified: 0, ok: 1.0}"));
        assertThat(oplog("upd.ops", "u")).hasSize(1);
        assertThat(oplog("upd.ops", "u").getFirst()).isEqualTo(ExtendedJson.parse("{_id: 1, a: 1, n: 7, c: {d: 1}}"));
    }

    @Test
    void multiUpdatesEveryMatchOtherwiseTheFirst() {
        insert("multi", "{_id: 1, g: 1}", "{_id: 2, g: 1}", "{_id: 3, g: 2}", "{_id: 4, g: 1}");

        assertThat(run(DB, "{update: 'multi', updates: [{q: {g: 1}, u: {$set: {hit: true}}}]}"))
                .isEqualTo(ExtendedJson.parse("{n: 1, nModified: 1, ok: 1.0}"));
        assertThat(run(DB, "{update: 'multi', updates: [{q: {g: 1}, u: {$inc: {k: 1}}, multi: true}]}"))
                .isEqualTo(ExtendedJson.parse("{n: 3, nModified: 3, ok: 1.0}"));
        assertThat(all("multi")).containsExactly(
                ExtendedJson.parse("{_id: 1, g: 1, hit: true, k: 1}"),
                ExtendedJson.parse("{_id: 2, g: 1, k: 1}"),
                ExtendedJson.parse("{_id: 3, g: 2}"),
                ExtendedJson.parse("{_id: 4, g: 1, k: 1}"));
    }

    @Test
    void upsertInsertsFromTheFilterEqualitiesAndReportsTheId() {
        BsonDocument reply = run(DB, """
                {update: 'upserts', updates: [
                   {q: {_id: 7, 'a.b': 1}, u: {$set: {c: 2}}, upsert: true},
                   {q: {name: 'x'}, u: {$inc: {n: 1}}, upsert: true},
                   {q: {_id: 7}, u: {$set: {c: 3}}, upsert: true}]}""");

        assertThat(reply.getInt32("n").getValue()).isEqualTo(3);
        assertThat(reply.getInt32("nModified").getValue()).isEqualTo(1);
        BsonArray upserted = reply.getArray("upserted");
        assertThat(upserted).hasSize(2);
        assertThat(upserted.get(0)).isEqualTo(ExtendedJson.parse("{index: 0, _id: 7}"));
        assertThat(upserted.get(1).asDocument().getInt32("index").getValue()).isEqualTo(1);
        assertThat(upserted.get(1).asDocument().get("_id").isObjectId()).isTrue();
        assertThat(all("upserts")).contains(ExtendedJson.parse("{_id: 7, a: {b: 1}, c: 3}"));
        assertThat(oplog("upd.upserts", "i")).hasSize(2);
    }

    @Test
    void concurrentUpsertsOfOneIdInsertOnceAndLoseNoIncrement() throws Exception {
        run(DB, "{create: 'racing'}");
        ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor();
        List<Future<BsonDocument>> replies;
        try {
            replies = pool.invokeAll(Collections.nCopies(12,
                    () -> run(DB, "{update: 'racing', updates: [{q: {_id: 'k'}, u: {$inc: {n: 1}}, upsert: true}]}")));
        } finally {
            pool.shutdown();
        }
        int upserts = 0;
        for (Future<BsonDocument> reply : replies) {
            assertThat(reply.get().getInt32("n").getValue()).as(reply.get().toJson()).isEqualTo(1);
            upserts += reply.get().containsKey("upserted") ? 1 : 0;
        }
        assertThat(upserts).isEqualTo(1);
        assertThat(all("racing")).containsExactly(ExtendedJson.parse("{_id: 'k', n: 12}"));
    }

    @Test
    void failingStatementIsAWriteErrorAndOrderedStops() {
        insert("errors", "{_id: 1, s: 'text'}", "{_id: 2}");

        BsonDocument ordered = run(DB, """
                {update: 'errors', updates: [
                   {q: {_id: 1}, u: {$inc: {s: 1}}},
                   {q: {_id: 2}, u: {$set: {x: 1}}}]}""");
        assertThat(ordered.getInt32("n").getValue()).isZero();
        assertThat(ordered.getArray("writeErrors")).hasSize(1);
        assertThat(ordered.getArray("writeErrors").get(0).asDocument().getInt32("code").getValue()).isEqualTo(14);

        BsonDocument unordered = run(DB, """
                {update: 'errors', ordered: false, updates: [
                   {q: {_id: 1}, u: {$set: {_id: 5}}},
                   {q: {_id: 2}, u: {$set: {x: 1}}},
                   {q: {}, u: {$bogus: {x: 1}}}]}""");
        assertThat(unordered.getInt32("n").getValue()).isEqualTo(1);
        BsonArray errors = unordered.getArray("writeErrors");
        assertThat(errors.get(0).asDocument().getInt32("index").getValue()).isZero();
        assertThat(errors.get(0).asDocument().getInt32("code").getValue()).isEqualTo(66);
        assertThat(errors.get(1).asDocument().getInt32("index").getValue()).isEqualTo(2);
        assertThat(errors.get(1).asDocument().getInt32("code").getValue()).isEqualTo(9);
        assertThat(all("errors")).contains(ExtendedJson.parse("{_id: 2, x: 1}"));
    }

    @Test
    void updateOnAMissingCollectionMatchesNothingAndCreatesNothing() {
        assertThat(run(DB, "{update: 'ghost', updates: [{q: {}, u: {$set: {a: 1}}, multi: true}]}"))
                .isEqualTo(ExtendedJson.parse("{n: 0, nModified: 0, ok: 1.0}"));
        assertThat(run(DB, "{listCollections: 1, filter: {name: 'ghost'}}").getDocument("cursor").getArray("firstBatch")).isEmpty();
    }

    @Test
    void malformedStatementsFailTheCommandNamingTheField() {
        assertError(run(DB, "{update: 'bad'}"), 9, "'updates' is required");
        assertError(run(DB, "{update: 'bad', updates: [{q: {}}]}"), 9, "'updates.0.u' is required");
        assertError(run(DB, "{update: 'bad', updates: [{u: {}, q: {}}, 3]}"), 14, "updates.1 is not a document");
        assertError(run(DB, "{delete: 'bad', deletes: [{q: {}}]}"), 9, "'deletes.0.limit' is required");
        assertError(run(DB, "{delete: 'bad', deletes: [{q: {}, limit: 2}]}"), 9, "must be 0 or 1");
    }

    @Test
    void deleteWithLimitOneRemovesTheFirstMatchAndLimitZeroAll() {
        insert("deletes", "{_id: 1, t: 'a'}", "{_id: 2, t: 'a'}", "{_id: 3, t: 'b'}", "{_id: 4, t: 'a'}");

        assertThat(run(DB, "{delete: 'deletes', deletes: [{q: {t: 'a'}, limit: 1}]}"))
                .isEqualTo(ExtendedJson.parse("{n: 1, ok: 1.0}"));
        assertThat(ids("deletes")).containsExactly(2, 3, 4);
        assertThat(run(DB, "{delete: 'deletes', deletes: [{q: {t: 'a'}, limit: 0}, {q: {_id: 3}, limit: 1}]}"))
                .isEqualTo(ExtendedJson.parse("{n: 3, ok: 1.0}"));
        assertThat(ids("deletes")).isEmpty();
        assertThat(oplog("upd.deletes", "d")).hasSize(4);
        assertThat(jdbc.sql("SELECT count(*) FROM oplog WHERE ns = 'upd.deletes' AND op = 'd' AND o IS NULL AND o2 IS NOT NULL")
                .query(Long.class).single()).isEqualTo(4);
    }

    @Test
    void multiDeleteCrossesPages() {
        BsonArray docs = new BsonArray();
        for (int i = 0; i < 2500; i++) {
            docs.add(new BsonDocument("_id", new BsonInt32(i)).append("odd", new BsonInt32(i % 2)));
        }
        run(DB, new BsonDocument("insert", new BsonString("bulk")).append("documents", docs));

        assertThat(run(DB, "{delete: 'bulk', deletes: [{q: {odd: 1}, limit: 0}]}").getInt32("n").getValue()).isEqualTo(1250);
        assertThat(run(DB, "{count: 'bulk'}").getNumber("n").longValue()).isEqualTo(1250);
    }

    @Test
    void countAppliesQuerySkipAndLimit() {
        insert("counting", "{_id: 1, c: 'r'}", "{_id: 2, c: 'g'}", "{_id: 3, c: 'r'}", "{_id: 4, c: 'r'}");

        assertThat(n(run(DB, "{count: 'counting'}"))).isEqualTo(4);
        assertThat(n(run(DB, "{count: 'counting', query: {c: 'r'}}"))).isEqualTo(3);
        assertThat(n(run(DB, "{count: 'counting', query: {c: 'r'}, skip: 1, limit: 1}"))).isEqualTo(1);
        assertThat(n(run(DB, "{count: 'counting', skip: 3, limit: 5}"))).isEqualTo(1);
        assertThat(n(run(DB, "{count: 'counting', skip: 10}"))).isZero();
        assertThat(n(run(DB, "{count: 'noSuchCollection'}"))).isZero();
    }

    @Test
    void arrayFiltersAndPositionalOperatorsThroughTheUpdateCommand() {
        insert("arrays", "{_id: 1, grades: [95, 92, 90]}", "{_id: 2, grades: [98, 100, 102]}",
                "{_id: 3, grades: [{grade: 80, std: 8}, {grade: 85, std: 5}]}");

        assertThat(run(DB, """
                {update: 'arrays', updates: [
                   {q: {grades: {$gte: 100}}, u: {$set: {'grades.$[element]': 100}}, arrayFilters: [{element: {$gte: 100}}], multi: true},
                   {q: {_id: 1, grades: 92}, u: {$inc: {'grades.$': 1}}},
                   {q: {_id: 3, 'grades.grade': 85}, u: {$set: {'grades.$.std': 6}, $inc: {'grades.$[].grade': 1}}}]}"""))
                .isEqualTo(ExtendedJson.parse("{n: 3, nModified: 3, ok: 1.0}"));
        assertThat(all("arrays")).containsExactly(
                ExtendedJson.parse("{_id: 1, grades: [95, 93, 90]}"),
                ExtendedJson.parse("{_id: 2, grades: [98, 100, 100]}"),
                ExtendedJson.parse("{_id: 3, grades: [{grade: 81, std: 8}, {grade: 86, std: 6}]}"));

        BsonDocument bad = run(DB, """
                {update: 'arrays', updates: [
                   {q: {_id: 1}, u: {$set: {'grades.$[x]': 0}}, arrayFilters: [{x: 1}, {y: 2}]},
                   {q: {_id: 1}, u: {$set: {'grades.$': 0}}}], ordered: false}""");
        BsonArray errors = bad.getArray("writeErrors");
        assertThat(errors).hasSize(2);
        assertThat(errors.get(0).asDocument().getInt32("code").getValue()).isEqualTo(9);
        assertThat(errors.get(1).asDocument().getInt32("code").getValue()).isEqualTo(2);
        assertThat(run(DB, "{update: 'arrays', updates: [{q: {}, u: {$set: {a: 1}}, arrayFilters: 5}]}")
                .getNumber("code").intValue()).isEqualTo(14);
        assertThat(all("arrays").getFirst()).isEqualTo(ExtendedJson.parse("{_id: 1, grades: [95, 93, 90]}"));
    }

    private void insert(String collection, String... documents) {
        BsonArray array = new BsonArray();
        for (String document : documents) {
            array.add(ExtendedJson.parse(document));
        }
        run(DB, new BsonDocument("insert", new BsonString(collection)).append("documents", array));
    }

    private List<BsonDocument> all(String collection) {
        return run(DB, new BsonDocument("find", new BsonString(collection))).getDocument("cursor").getArray("firstBatch")
                .stream().map(BsonValue::asDocument).toList();
    }

    private List<Integer> ids(String collection) {
        return all(collection).stream().map(d -> d.getInt32("_id").getValue()).toList();
    }

    /** The {@code o} (or, for deletes, {@code o2}) of the oplog entries of one op on {@code ns}, in order. */
    private List<BsonDocument> oplog(String ns, String op) {
        return jdbc.sql("SELECT coalesce(o, o2) FROM oplog WHERE ns = ? AND op = ? ORDER BY ts_key").param(ns).param(op)
                .query((rs, i) -> BsonBytes.decode(rs.getBytes(1))).list();
    }

    private static long n(BsonDocument reply) {
        return reply.getNumber("n").longValue();
    }

    private static void assertError(BsonDocument reply, int code, String messagePart) {
        assertThat(reply.getNumber("code").intValue()).as(reply.toJson()).isEqualTo(code);
        assertThat(reply.getString("errmsg").getValue()).contains(messagePart);
    }
}
