package dev.shardstore.shard.command;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.shard.ShardIntegrationTest;
import dev.shardstore.shard.cursor.CursorManager;
import dev.shardstore.support.testing.MutableClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

class FindCommandTest extends ShardIntegrationTest {
    private static final String DB = "finddb";

    @Autowired
    MutableClock shardClock;
    @Autowired
    CursorManager cursors;

    @Test
    void filtersSortsProjectsSkipsAndLimits() {
        insert("people", "{_id: 1, name: 'ann', age: 31, city: 'Paris'}", "{_id: 2, name: 'bob', age: 25, city: 'Lyon'}",
                "{_id: 3, name: 'cid', age: 40, city: 'Paris'}", "{_id: 4, name: 'dee', age: 35, city: 'Paris'}");

        BsonDocument reply = run(DB, """
                {find: 'people', filter: {city: 'Paris'}, sort: {age: -1}, projection: {name: 1, _id: 0}, skip: 1, limit: 2}""");

        assertThat(reply).isEqualTo(ExtendedJson.parse("""
                {cursor: {firstBatch: [{name: 'dee'}, {name: 'ann'}], id: {$numberLong: '0'}, ns: 'finddb.people'}, ok: 1.0}"""));
    }

    @Test
    void unsortedScanAppliesFilterProjectionAndIdLookup() {
        insert("scan", "{_id: 1, k: 'a', v: 1}", "{_id: 2, k: 'b', v: 2}", "{_id: 3, k: 'a', v: 3}");

        assertThat(batch(run(DB, "{find: 'scan', filter: {k: 'a'}, projection: {v: 1}}")))
                .containsExactly(ExtendedJson.parse("{_id: 1, v: 1}"), ExtendedJson.parse("{_id: 3, v: 3}"));
        assertThat(batch(run(DB, "{find: 'scan', filter: {_id: 2.0}}")))
                .containsExactly(ExtendedJson.parse("{_id: 2, k: 'b', v: 2}"));
        assertThat(batch(run(DB, "{find: 'scan', filter: {_id: 2, k: 'a'}}"))).isEmpty();
        assertThat(run(DB, "{find: 'nothingHere'}")).isEqualTo(ExtendedJson.parse(
                "{cursor: {firstBatch: [], id: {$numberLong: '0'}, ns: 'finddb.nothingHere'}, ok: 1.0}"));
    }

    @Test
    void newOperatorsAndProjectionsThroughFind() {
        insert("students", "{_id: 1, semester: 1, grades: [70, 87, 90]}", "{_id: 2, semester: 1, grades: [90, 88, 92]}",
                "{_id: 3, semester: 2, grades: [85, 100, 90], tags: 'x'}");

        assertThat(batch(run(DB, "{find: 'students', filter: {semester: 1, grades: {$gte: 85}}, projection: {'grades.$': 1}}")))
                .containsExactly(ExtendedJson.parse("{_id: 1, grades: [87]}"), ExtendedJson.parse("{_id: 2, grades: [90]}"));
        assertThat(ids(batch(run(DB, "{find: 'students', filter: {grades: {$elemMatch: {$gt: 95}}, tags: {$type: 'string'}}}"))))
                .containsExactly(3);
        assertThat(ids(batch(run(DB, "{find: 'students', filter: {grades: {$size: 3, $all: [90]}, _id: {$mod: [2, 1]}}}"))))
                .containsExactly(1, 3);
        assertThat(batch(run(DB, "{find: 'students', filter: {_id: 2}, projection: {grades: {$slice: -1}, semester: 0}}")))
                .containsExactly(ExtendedJson.parse("{_id: 2, grades: [92]}"));
        assertError(run(DB, "{find: 'students', projection: {'grades.$': 1}}"), 2);
        assertError(run(DB, "{find: 'students', filter: {a: {$type: 'nope'}}}"), 2);
    }

    @Test
    void getMorePagesThroughTheRestAndThenTheCursorIsGone() {
        insertNumbered("paged", 250);

        BsonDocument first = run(DB, "{find: 'paged', batchSize: 100}");
        long id = cursorId(first);
        assertThat(id).isNotZero();
        assertThat(batch(first)).hasSize(100);
        assertThat(first.getDocument("cursor").getString("ns").getValue()).isEqualTo("finddb.paged");

        BsonDocument second = getMore("paged", id, 100);
        assertThat(second.getDocument("cursor").getArray("nextBatch")).hasSize(100);
        assertThat(cursorId(second)).isEqualTo(id);

        BsonDocument third = getMore("paged", id, 100);
        List<BsonDocument> rest = third.getDocument("cursor").getArray("nextBatch").stream().map(BsonValue::asDocument).toList();
        assertThat(rest).hasSize(50);
        assertThat(rest.getLast().getInt32("_id").getValue()).isEqualTo(249);
        assertThat(cursorId(third)).isZero();

        assertError(getMore("paged", id, 100), 43);
    }

    @Test
    void defaultFirstBatchIs101AndLimitSpansBatches() {
        insertNumbered("limits", 150);

        assertThat(batch(run(DB, "{find: 'limits'}"))).hasSize(101);

        BsonDocument first = run(DB, "{find: 'limits', limit: 25, batchSize: 10, filter: {n: {$gte: 0}}}");
        long id = cursorId(first);
        assertThat(getMore("limits", id, 10).getDocument("cursor").getArray("nextBatch")).hasSize(10);
        BsonDocument last = getMore("limits", id, 10);
        assertThat(last.getDocument("cursor").getArray("nextBatch")).hasSize(5);
        assertThat(cursorId(last)).isZero();
    }

    @Test
    void sortedCursorKeepsTheSortedRemainderAcrossGetMores() {
        insertNumbered("sorted", 30);

        BsonDocument first = run(DB, "{find: 'sorted', sort: {n: -1}, batchSize: 12, projection: {_id: 1}}");
        long id = cursorId(first);
        List<Integer> seen = new ArrayList<>(ids(batch(first)));
        BsonDocument next = getMore("sorted", id, 12);
        seen.addAll(ids(next.getDocument("cursor").getArray("nextBatch").stream().map(BsonValue::asDocument).toList()));
        BsonDocument last = getMore("sorted", id, 12);
        seen.addAll(ids(last.getDocument("cursor").getArray("nextBatch").stream().map(BsonValue::asDocument).toList()));

        assertThat(seen).containsExactlyElementsOf(IntStream.iterate(29, i -> i >= 0, i -> i - 1).boxed().toList());
        assertThat(cursorId(last)).isZero();
    }

    @Test
    void singleBatchClosesTheCursor() {
        insertNumbered("single", 20);

        BsonDocument reply = run(DB, "{find: 'single', batchSize: 5, singleBatch: true}");

        assertThat(batch(reply)).hasSize(5);
        assertThat(cursorId(reply)).isZero();
    }

    @Test
    void killCursorsReportsKilledAndNotFound() {
        insertNumbered("killed", 20);
        long id = cursorId(run(DB, "{find: 'killed', batchSize: 2}"));
        long second = cursorId(run(DB, "{find: 'killed', batchSize: 2}"));

        BsonDocument reply = run(DB, new BsonDocument("killCursors", new BsonString("killed"))
                .append("cursors", new BsonArray(List.of(new BsonInt64(id), new BsonInt64(12345)))));

        assertThat(reply).isEqualTo(new BsonDocument("cursorsKilled", new BsonArray(List.of(new BsonInt64(id))))
                .append("cursorsNotFound", new BsonArray(List.of(new BsonInt64(12345))))
                .append("cursorsAlive", new BsonArray())
                .append("cursorsUnknown", new BsonArray())
                .append("ok", new BsonDouble(1)));
        assertError(getMore("killed", id, 2), 43);
        assertError(getMore("otherCollection", second, 2), 43);
        assertThat(getMore("killed", second, 2).getDocument("cursor").getArray("nextBatch")).hasSize(2);
    }

    @Test
    void idleCursorsTimeOut() {
        insertNumbered("idle", 10);
        long id = cursorId(run(DB, "{find: 'idle', batchSize: 2}"));

        shardClock.advance(Duration.ofSeconds(5)); // cursor-timeout is 4 s in the tests
        cursors.reapIdle(); // what the reaper's next pass (every 200 ms) does

        assertError(getMore("idle", id, 2), 43);
    }

    @Test
    void batchesStayWithin16MiBOfDocuments() {
        String sevenMiB = "y".repeat(7 * 1024 * 1024);
        for (int i = 0; i < 3; i++) {
            run(DB, new BsonDocument("insert", new BsonString("large")).append("documents", new BsonArray(List.of(
                    new BsonDocument("_id", new BsonInt32(i)).append("pad", new BsonString(sevenMiB))))));
        }

        BsonDocument first = run(DB, "{find: 'large', projection: {pad: 0}, batchSize: 10}");
        assertThat(batch(first)).hasSize(3); // projected documents are small

        first = run(DB, "{find: 'large', batchSize: 10}");
        assertThat(batch(first)).hasSize(2);
        BsonDocument rest = getMore("large", cursorId(first), 10);
        assertThat(rest.getDocument("cursor").getArray("nextBatch")).hasSize(1);
    }

    @Test
    void blockingSortOverTheMemoryLimitFailsButTopKFits() {
        String halfMiB = "z".repeat(512 * 1024);
        for (int i = 0; i < 6; i++) { // 3 MiB in all; the tests' sort memory limit is 2 MB
            run(DB, new BsonDocument("insert", new BsonString("bigsort")).append("documents", new BsonArray(List.of(
                    new BsonDocument("_id", new BsonInt32(i)).append("pad", new BsonString(halfMiB))))));
        }

        // spilling is the default (allowDiskUseByDefault); a find that refuses disk use fails over the limit
        assertError(run(DB, "{find: 'bigsort', sort: {_id: -1}, allowDiskUse: false}"), 292);
        BsonDocument top = run(DB, "{find: 'bigsort', sort: {_id: -1}, limit: 2, projection: {pad: 0}}");
        assertThat(batch(top)).containsExactly(ExtendedJson.parse("{_id: 5}"), ExtendedJson.parse("{_id: 4}"));
    }

    @Test
    void badArgumentsNameTheField() {
        assertError(run(DB, "{find: 'x', limit: -1}"), 2);
        assertError(run(DB, "{find: 'x', batchSize: 'ten'}"), 14);
        assertError(run(DB, "{find: 'x', filter: {a: {$bogus: 1}}}"), 2);
        assertError(run(DB, "{getMore: 'notALong', collection: 'x'}"), 14);
        assertError(run(DB, "{getMore: {$numberLong: '77'}}"), 9);
    }

    /**
     * MongoDB manual, "Collation": filter, sort, count and distinct compare strings under the command's collation; a
     * string {@code _id} lookup and string index bounds are binary, so such a query scans the collection (explain).
     */
    @Test
    void findCountAndDistinctCompareStringsUnderTheCollation() {
        insert("words", "{_id: 'a', w: 'apple', n: '10'}", "{_id: 'B', w: 'Apple', n: '9'}", "{_id: 'c', w: 'APPLE', n: '100'}",
                "{_id: 'D', w: 'äpple', n: '2'}", "{_id: 'e', w: 'banana', n: '1'}");
        run(DB, "{createIndexes: 'words', indexes: [{key: {w: 1}, name: 'w_1'}]}");
        String caseless = "{locale: 'en', strength: 2}";

        assertThat(batch(run(DB, "{find: 'words', filter: {w: 'aPPle'}}"))).isEmpty();
        List<BsonDocument> found = batch(run(DB, "{find: 'words', filter: {w: 'aPPle'}, sort: {_id: 1}, collation: " + caseless + "}"));
        assertThat(found).extracting(d -> d.getString("_id").getValue()).containsExactly("a", "B", "c");
        assertThat(batch(run(DB, "{find: 'words', filter: {_id: 'b'}, collation: " + caseless + "}")))
                .extracting(d -> d.getString("_id").getValue()).containsExactly("B");
        assertThat(batch(run(DB, "{find: 'words', filter: {w: {$regex: '^apple$'}}, collation: {locale: 'en', strength: 1}}")))
                .extracting(d -> d.getString("_id").getValue()).containsExactly("a");
        assertThat(batch(run(DB, "{find: 'words', sort: {n: 1}, collation: {locale: 'en', numericOrdering: true}}")))
                .extracting(d -> d.getString("n").getValue()).containsExactly("1", "2", "9", "10", "100");
        assertThat(run(DB, "{count: 'words', query: {w: 'APPLE'}, collation: {locale: 'en', strength: 1}}").getNumber("n").intValue())
                .isEqualTo(4);
        // one value per group equal under the collation: the first met in the scan (_id order: 'B' sorts before 'a')
        assertThat(run(DB, "{distinct: 'words', key: 'w', collation: " + caseless + "}").getArray("values"))
                .extracting(v -> v.asString().getValue()).containsExactly("Apple", "äpple", "banana");
        assertThat(run(DB, "{distinct: 'words', key: 'w'}").getArray("values")).hasSize(5);

        BsonDocument binary = run(DB, "{explain: {find: 'words', filter: {w: 'apple'}}}");
        assertThat(binary.getDocument("queryPlanner").getDocument("winningPlan").toJson()).contains("w_1");
        BsonDocument collated = run(DB, "{explain: {find: 'words', filter: {w: 'apple'}, collation: " + caseless + "}}");
        assertThat(collated.getDocument("queryPlanner").getDocument("winningPlan").toJson()).doesNotContain("w_1").contains("COLLSCAN");
        assertError(run(DB, "{find: 'words', collation: {locale: 'xx_YY'}}"), 2);

        // a hashed index holds the hash of the binary string: no point lookup on it under the collation either
        run(DB, "{createIndexes: 'words', indexes: [{key: {w: 'hashed'}, name: 'w_hashed'}]}");
        assertThat(batch(run(DB, "{find: 'words', filter: {w: 'aPPle'}, hint: 'w_hashed', collation: " + caseless + "}"))).hasSize(3);
    }

    private void insert(String collection, String... documents) {
        BsonArray array = new BsonArray();
        for (String document : documents) {
            array.add(ExtendedJson.parse(document));
        }
        BsonDocument reply = run(DB, new BsonDocument("insert", new BsonString(collection)).append("documents", array));
        assertThat(reply.getInt32("n").getValue()).isEqualTo(documents.length);
    }

    private void insertNumbered(String collection, int count) {
        BsonArray array = new BsonArray();
        for (int i = 0; i < count; i++) {
            array.add(new BsonDocument("_id", new BsonInt32(i)).append("n", new BsonInt32(i)));
        }
        run(DB, new BsonDocument("insert", new BsonString(collection)).append("documents", array));
    }

    private BsonDocument getMore(String collection, long id, int batchSize) {
        return run(DB, new BsonDocument("getMore", new BsonInt64(id)).append("collection", new BsonString(collection))
                .append("batchSize", new BsonInt32(batchSize)));
    }

    private static List<BsonDocument> batch(BsonDocument reply) {
        return reply.getDocument("cursor").getArray("firstBatch").stream().map(BsonValue::asDocument).toList();
    }

    private static List<Integer> ids(List<BsonDocument> documents) {
        return documents.stream().map(d -> d.getInt32("_id").getValue()).toList();
    }

    private static long cursorId(BsonDocument reply) {
        return reply.getDocument("cursor").getInt64("id").getValue();
    }

    private static void assertError(BsonDocument reply, int code) {
        assertThat(reply.getNumber("code").intValue()).as(reply.toJson()).isEqualTo(code);
    }
}
