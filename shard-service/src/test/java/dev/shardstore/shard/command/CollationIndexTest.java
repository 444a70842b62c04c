package dev.shardstore.shard.command;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.shard.ShardIntegrationTest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;

/**
 * Indexes with a collation and a collection's default collation (MongoDB manual, "Collation", "Collation and Index
 * Use"), against the shard's real PostgreSQL: index keys hold collation keys, so uniqueness, bounds and order follow
 * the collation, and only a query under the same collation takes string bounds from such an index.
 */
class CollationIndexTest extends ShardIntegrationTest {
    private static final String DB = "collationdb";
    private static final String CASELESS = "{locale: 'en', strength: 2}";
    private static final List<String> FULL_SPEC = List.of("locale", "caseLevel", "caseFirst", "strength", "numericOrdering",
            "alternate", "maxVariable", "normalization", "backwards", "version");

    @Test
    void aUniqueIndexRefusesValuesEqualUnderItsCollation() {
        assertOk(run(DB, "{createIndexes: 'uniq', indexes: [{key: {a: 1}, name: 'a_1', unique: true, collation: " + CASELESS + "}]}"));
        assertThat(insert("uniq", "{_id: 1, a: 'a'}").getInt32("n").getValue()).isEqualTo(1);

        BsonDocument refused = insert("uniq", "{_id: 2, a: 'A'}");
        assertThat(refused.getInt32("n").getValue()).isZero();
        BsonDocument error = refused.getArray("writeErrors").get(0).asDocument();
        assertThat(error.getInt32("code").getValue()).isEqualTo(11000);
        assertThat(error.getString("errmsg").getValue()).contains("index: a_1");
        assertThat(insert("uniq", "{_id: 3, a: 'b'}").getInt32("n").getValue()).isEqualTo(1);

        // built over existing documents that are equal under the collation: refused, nothing left behind
        insert("uniqLater", "{_id: 1, a: 'x'}", "{_id: 2, a: 'X'}");
        assertError(run(DB, "{createIndexes: 'uniqLater', indexes: [{key: {a: 1}, name: 'a_1', unique: true, collation: "
                + CASELESS + "}]}"), 11000);
        assertThat(run(DB, "{listIndexes: 'uniqLater'}").getDocument("cursor").getArray("firstBatch")).hasSize(1);
    }

    @Test
    void aCollatedIndexServesOnlyQueriesUnderItsCollationForStrings() {
        insert("words", "{_id: 1, w: 'apple', n: 5}", "{_id: 2, w: 'Apple', n: 6}", "{_id: 3, w: 'banana', n: 7}");
        assertOk(run(DB, "{createIndexes: 'words', indexes: [{key: {w: 1}, name: 'w_en', collation: " + CASELESS + "}]}"));

        assertThat(ids(run(DB, "{find: 'words', filter: {w: 'APPLE'}, collation: " + CASELESS + "}"))).containsExactlyInAnyOrder(1, 2);
        assertThat(plan("{find: 'words', filter: {w: 'APPLE'}, collation: " + CASELESS + "}")).contains("IXSCAN").contains("w_en");
        assertThat(plan("{find: 'words', filter: {w: {$gte: 'B'}}, collation: " + CASELESS + "}")).contains("w_en");
        assertThat(ids(run(DB, "{find: 'words', filter: {w: {$gte: 'B'}}, collation: " + CASELESS + "}"))).containsExactly(3);

        // simple and other collations: the index orders strings otherwise, so a collection scan
        assertThat(plan("{find: 'words', filter: {w: 'apple'}}")).contains("COLLSCAN").doesNotContain("w_en");
        assertThat(ids(run(DB, "{find: 'words', filter: {w: 'apple'}}"))).containsExactly(1);
        assertThat(plan("{find: 'words', filter: {w: 'apple'}, collation: {locale: 'fr', strength: 1}}")).contains("COLLSCAN");

        // a hashed index with the collation hashes the collation key: a point under the same collation
        assertOk(run(DB, "{createIndexes: 'words', indexes: [{key: {w: 'hashed'}, name: 'w_hashed_en', collation: " + CASELESS + "}]}"));
        String hinted = "{find: 'words', filter: {w: 'APPLE'}, hint: 'w_hashed_en', collation: " + CASELESS + "}";
        assertThat(ids(run(DB, hinted))).containsExactlyInAnyOrder(1, 2);
        assertThat(plan(hinted)).contains("w_hashed_en").doesNotContain("MinKey");

        // a predicate comparing no string may use it under any collation
        assertOk(run(DB, "{createIndexes: 'words', indexes: [{key: {n: 1}, name: 'n_en', collation: " + CASELESS + "}]}"));
        assertThat(plan("{find: 'words', filter: {n: 6}}")).contains("n_en");
        assertThat(ids(run(DB, "{find: 'words', filter: {n: {$gt: 5}}}"))).containsExactlyInAnyOrder(2, 3);
    }

    @Test
    void numericOrderingOrdersTheIndexRange() {
        insert("codes", "{_id: 1, c: '10'}", "{_id: 2, c: '9'}", "{_id: 3, c: '100'}", "{_id: 4, c: '2'}", "{_id: 5, c: '1'}");
        String numeric = "{locale: 'en', numericOrdering: true}";
        assertOk(run(DB, "{createIndexes: 'codes', indexes: [{key: {c: 1}, name: 'c_num', collation: " + numeric + "}]}"));

        String query = "{find: 'codes', filter: {c: {$gte: '2', $lt: '100'}}, collation: " + numeric + "}";
        assertThat(plan(query)).contains("c_num");
        // the scan reads the index in its (numeric) order: 2, 9, 10; in binary '10' would sort before '2'
        assertThat(strings(run(DB, query), "c")).containsExactly("2", "9", "10");
        assertThat(strings(run(DB, "{find: 'codes', filter: {c: {$gte: '2'}}}"), "c")).containsExactlyInAnyOrder("2", "9");
    }

    @Test
    void listIndexesAndListCollectionsShowTheFullSpec() {
        assertOk(run(DB, "{create: 'listed', collation: {locale: 'fr', strength: 1}}"));
        assertOk(run(DB, "{createIndexes: 'listed', indexes: [{key: {a: 1}, name: 'a_de', collation: {locale: 'de'}}]}"));

        BsonDocument options = collectionEntry("listed").getDocument("options");
        assertThat(options.getDocument("collation").keySet()).containsExactlyElementsOf(FULL_SPEC);
        assertThat(options.getDocument("collation").getString("locale").getValue()).isEqualTo("fr");
        assertThat(options.getDocument("collation").getInt32("strength").getValue()).isEqualTo(1);
        assertThat(collectionEntry("listed").getDocument("idIndex").getDocument("collation")).isEqualTo(options.getDocument("collation"));

        List<BsonDocument> indexes = indexes("listed");
        assertThat(indexes).extracting(i -> i.getString("name").getValue()).containsExactly("_id_", "a_de");
        assertThat(indexes.get(0).getDocument("collation")).isEqualTo(options.getDocument("collation"));
        assertThat(indexes.get(0).containsKey("unique")).isFalse();
        assertThat(indexes.get(1).getDocument("collation").keySet()).containsExactlyElementsOf(FULL_SPEC);
        assertThat(indexes.get(1).getDocument("collation").getString("locale").getValue()).isEqualTo("de");
        assertThat(indexes.get(1).getDocument("collation").getInt32("strength").getValue()).isEqualTo(3);

        // created again with the same default (given in short): the same collection; with another: NamespaceExists
        assertOk(run(DB, "{create: 'listed', collation: {locale: 'fr', strength: 1}}"));
        assertError(run(DB, "{create: 'listed', collation: {locale: 'fr'}}"), 48);
    }

    @Test
    void theDefaultCollationIsInheritedByReadsAndNewIndexes() {
        assertOk(run(DB, "{create: 'fruit', collation: " + CASELESS + "}"));
        insert("fruit", "{_id: 1, f: 'apple'}", "{_id: 2, f: 'APPLE'}", "{_id: 3, f: 'Banana'}", "{_id: 4, f: 'banana'}");

        assertThat(ids(run(DB, "{find: 'fruit', filter: {f: 'Apple'}}"))).containsExactlyInAnyOrder(1, 2);
        assertThat(run(DB, "{count: 'fruit', query: {f: 'BANANA'}}").getNumber("n").intValue()).isEqualTo(2);
        assertThat(run(DB, "{distinct: 'fruit', key: 'f'}").getArray("values")).hasSize(2);
        assertThat(run(DB, "{aggregate: 'fruit', pipeline: [{$group: {_id: '$f'}}], cursor: {}}").getDocument("cursor")
                .getArray("firstBatch")).as("aggregate groups under the default too").hasSize(2);
        assertThat(run(DB, "{update: 'fruit', updates: [{q: {f: 'BANANA'}, u: {$set: {seen: true}}, multi: true}]}").getNumber("n").intValue())
                .as("an update statement without a collation matches under the default").isEqualTo(2);
        assertThat(run(DB, "{findAndModify: 'fruit', query: {f: 'Apple', seen: {$exists: false}}, update: {$set: {seen: true}}}")
                .getDocument("lastErrorObject").getNumber("n").intValue()).as("so does findAndModify").isEqualTo(1);
        assertThat(run(DB, "{delete: 'fruit', deletes: [{q: {f: 'APPLE', seen: true}, limit: 0}]}").getNumber("n").intValue())
                .as("and a delete statement").isEqualTo(1);
        insert("fruit", "{_id: 1, f: 'apple'}");
        // the command's own collation wins, the simple one included
        assertThat(ids(run(DB, "{find: 'fruit', filter: {f: 'Apple'}, collation: {locale: 'simple'}}"))).isEmpty();
        assertThat(run(DB, "{distinct: 'fruit', key: 'f', collation: {locale: 'simple'}}").getArray("values")).hasSize(4);

        assertOk(run(DB, "{createIndexes: 'fruit', indexes: [{key: {f: 1}, name: 'f_default'}, {key: {f: 1}, name: 'f_simple',"
                + " collation: {locale: 'simple'}}]}"));
        List<BsonDocument> indexes = indexes("fruit");
        assertThat(indexes.get(1).getString("name").getValue()).isEqualTo("f_default");
        assertThat(indexes.get(1).getDocument("collation").getInt32("strength").getValue()).isEqualTo(2);
        assertThat(indexes.get(2).getString("name").getValue()).isEqualTo("f_simple");
        assertThat(indexes.get(2).containsKey("collation")).isFalse();
        assertThat(plan("{find: 'fruit', filter: {f: 'APPLE'}}")).contains("f_default");
        assertThat(plan("{find: 'fruit', filter: {f: 'APPLE'}, collation: {locale: 'simple'}}")).contains("f_simple");

        // one key pattern, two collations: dropping by key pattern is ambiguous, by name it is not
        assertError(run(DB, "{dropIndexes: 'fruit', index: {f: 1}}"), 296);
        assertOk(run(DB, "{dropIndexes: 'fruit', index: 'f_simple'}"));
        assertOk(run(DB, "{dropIndexes: 'fruit', index: {f: 1}}"));
        assertThat(indexes("fruit")).hasSize(1);
    }

    @Test
    void idsEqualUnderTheDefaultCollationConflict() {
        assertOk(run(DB, "{create: 'ids', collation: " + CASELESS + "}"));
        assertThat(insert("ids", "{_id: 'a', v: 1}").getInt32("n").getValue()).isEqualTo(1);

        BsonDocument refused = insert("ids", "{_id: 'A', v: 2}");
        BsonDocument error = refused.getArray("writeErrors").get(0).asDocument();
        assertThat(error.getInt32("code").getValue()).isEqualTo(11000);
        assertThat(error.getString("errmsg").getValue()).contains("index: _id_");

        // an _id lookup compares under the default collation, through the collated _id index
        assertThat(ids(run(DB, "{find: 'ids', filter: {_id: 'A'}}"))).containsExactly("a");
        assertThat(plan("{find: 'ids', filter: {_id: 'A'}}")).contains("IXSCAN").contains("_id_");
        assertThat(ids(run(DB, "{find: 'ids', filter: {_id: 'A'}, collation: {locale: 'simple'}}"))).isEmpty();

        // deleting frees the key for its case variant
        assertThat(run(DB, "{delete: 'ids', deletes: [{q: {_id: 'a'}, limit: 1}]}").getInt32("n").getValue()).isEqualTo(1);
        assertThat(insert("ids", "{_id: 'A', v: 3}").getInt32("n").getValue()).isEqualTo(1);
        assertError(run(DB, "{createIndexes: 'ids', indexes: [{key: {_id: 1}, name: '_id_', collation: {locale: 'simple'}}]}"), 2);
    }

    @Test
    void concurrentInsertsOfCaseVariantsIntoAUniqueCollatedIndexLetExactlyOneIn() throws Exception {
        assertOk(run(DB, "{createIndexes: 'race', indexes: [{key: {k: 1}, name: 'k_1', unique: true, collation: " + CASELESS + "}]}"));
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            for (int round = 0; round < 10; round++) {
                CountDownLatch start = new CountDownLatch(1);
                List<Future<BsonDocument>> replies = new ArrayList<>();
                for (String variant : List.of("key" + round, "KEY" + round)) {
                    replies.add(pool.submit(() -> {
                        start.await();
                        return insert("race", "{k: '" + variant + "'}");
                    }));
                }
                start.countDown();
                int inserted = 0;
                for (Future<BsonDocument> reply : replies) {
                    BsonDocument r = reply.get(60, TimeUnit.SECONDS);
                    inserted += r.getInt32("n").getValue();
                    if (r.getInt32("n").getValue() == 0) {
                        assertThat(r.getArray("writeErrors").get(0).asDocument().getInt32("code").getValue()).isEqualTo(11000);
                    }
                }
                assertThat(inserted).as("round " + round).isEqualTo(1);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(run(DB, "{count: 'race'}").getNumber("n").intValue()).isEqualTo(10);
    }

    @Test
    void viewsAndTimeseriesRefuseADefaultCollationByName() {
        BsonDocument view = run(DB, "{create: 'v', viewOn: 'words', pipeline: [], collation: {locale: 'en'}}");
        assertError(view, 238);
        assertThat(view.getString("errmsg").getValue()).contains("create.collation");
        assertError(run(DB, "{create: 'ts', timeseries: {timeField: 't'}, collation: {locale: 'en'}}"), 238);
        assertOk(run(DB, "{create: 'simpleView', viewOn: 'words', pipeline: [], collation: {locale: 'simple'}}"));
    }

    private BsonDocument insert(String collection, String... documents) {
        BsonArray array = new BsonArray();
        for (String document : documents) {
            array.add(ExtendedJson.parse(document));
        }
        return run(DB, new BsonDocument("insert", new BsonString(collection)).append("documents", array));
    }

    private String plan(String find) {
        BsonDocument reply = run(DB, new BsonDocument("explain", ExtendedJson.parse(find)));
        return reply.getDocument("queryPlanner").getDocument("winningPlan").toJson();
    }

    private List<BsonDocument> indexes(String collection) {
        return run(DB, "{listIndexes: '" + collection + "'}").getDocument("cursor").getArray("firstBatch").stream()
                .map(BsonValue::asDocument).toList();
    }

    private BsonDocument collectionEntry(String name) {
        return run(DB, "{listCollections: 1, filter: {name: '" + name + "'}}").getDocument("cursor").getArray("firstBatch")
                .get(0).asDocument();
    }

    /** The {@code _id}s of a find reply's first batch: Integers or Strings. */
    private static List<Object> ids(BsonDocument reply) {
        return reply.getDocument("cursor").getArray("firstBatch").stream().map(d -> d.asDocument().get("_id"))
                .map(id -> id.isString() ? (Object) id.asString().getValue() : id.asNumber().intValue()).toList();
    }

    private static List<String> strings(BsonDocument reply, String field) {
        return reply.getDocument("cursor").getArray("firstBatch").stream().map(d -> d.asDocument().getString(field).getValue()).toList();
    }

    private static void assertOk(BsonDocument reply) {
        assertThat(reply.getNumber("ok").intValue()).as(reply.toJson()).isEqualTo(1);
    }

    private static void assertError(BsonDocument reply, int code) {
        assertThat(reply.getNumber("code").intValue()).as(reply.toJson()).isEqualTo(code);
    }
}
