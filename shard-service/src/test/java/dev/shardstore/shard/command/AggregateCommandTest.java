package dev.shardstore.shard.command;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.shard.ShardIntegrationTest;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;

/** The aggregate command over real HTTP and shard storage: grouping, paging through getMore, $lookup, errors. */
class AggregateCommandTest extends ShardIntegrationTest {
    private static final String DB = "aggdb";

    @Test
    void groupsSortsAndLimitsWithALeadingMatch() {
        insert("sales", "{_id: 1, item: 'abc', price: 10, quantity: 2}", "{_id: 2, item: 'jkl', price: 20, quantity: 1}",
                "{_id: 3, item: 'xyz', price: 5, quantity: 10}", "{_id: 4, item: 'xyz', price: 5, quantity: 20}",
                "{_id: 5, item: 'abc', price: 10, quantity: 10}", "{_id: 6, item: 'def', price: 7.5, quantity: 0}");

        BsonDocument reply = run(DB, """
                {aggregate: 'sales', pipeline: [
                  {$match: {quantity: {$gt: 0}}},
                  {$group: {_id: '$item', revenue: {$sum: {$multiply: ['$price', '$quantity']}}, n: {$sum: 1}}},
                  {$sort: {revenue: -1}}, {$limit: 2}], cursor: {}}""");

        assertThat(reply).isEqualTo(ExtendedJson.parse("""
                {cursor: {firstBatch: [{_id: 'xyz', revenue: 150, n: 2}, {_id: 'abc', revenue: 120, n: 2}],
                 id: {$numberLong: '0'}, ns: 'aggdb.sales'}, ok: 1.0}"""));
    }

    @Test
    void pagesLargeResultsThroughGetMoreAndReadsMissingCollectionsAsEmpty() {
        BsonArray documents = new BsonArray();
        for (int i = 0; i < 30; i++) {
            documents.add(new BsonDocument("_id", new BsonInt32(i)).append("n", new BsonInt32(i % 3)));
        }
        run(DB, new BsonDocument("insert", new BsonString("paged")).append("documents", documents));

        BsonDocument first = run(DB, "{aggregate: 'paged', pipeline: [{$sort: {_id: -1}}, {$project: {n: 0}}], cursor: {batchSize: 20}}");
        long id = first.getDocument("cursor").getInt64("id").getValue();
        assertThat(id).isNotZero();
        assertThat(batch(first, "firstBatch")).hasSize(20).first().isEqualTo(ExtendedJson.parse("{_id: 29}"));
        BsonDocument next = run(DB, new BsonDocument("getMore", new BsonInt64(id)).append("collection", new BsonString("paged"))
                .append("batchSize", new BsonInt32(20)));
        assertThat(batch(next, "nextBatch")).hasSize(10).last().isEqualTo(ExtendedJson.parse("{_id: 0}"));
        assertThat(next.getDocument("cursor").getInt64("id").getValue()).isZero();

        assertThat(batch(run(DB, "{aggregate: 'absent', pipeline: [{$count: 'n'}], cursor: {}}"), "firstBatch")).isEmpty();
        assertThat(batch(run(DB, "{aggregate: 'absent', pipeline: [{$facet: {n: [{$count: 'n'}]}}], cursor: {}}"), "firstBatch"))
                .containsExactly(ExtendedJson.parse("{n: []}"));
    }

    /** {@code $rand} per document in a stage, once for the command in {@code let} (the driver CRUD spec's use). */
    @Test
    void randDrawsPerDocumentAndOnceInLet() {
        insert("dice", "{_id: 1}", "{_id: 2}", "{_id: 3}", "{_id: 4}", "{_id: 5}", "{_id: 6}");
        List<BsonDocument> drawn = batch(run(DB, """
                {aggregate: 'dice', pipeline: [{$project: {r: {$rand: {}}, fixed: '$$seed'}}], cursor: {},
                 let: {seed: {$rand: {}}}}"""), "firstBatch");
        assertThat(drawn).hasSize(6).allSatisfy(d -> {
            assertThat(d.getDouble("r").getValue()).isGreaterThanOrEqualTo(0.0).isLessThan(1.0);
            assertThat(d.getDouble("fixed").getValue()).isGreaterThanOrEqualTo(0.0).isLessThan(1.0);
        });
        assertThat(drawn.stream().map(d -> d.get("fixed")).distinct()).hasSize(1);
        assertThat(drawn.stream().map(d -> d.get("r")).distinct().count()).isGreaterThan(1);
        assertThat(run(DB, "{aggregate: 'dice', pipeline: [{$project: {r: {$rand: {n: 1}}}}], cursor: {}}").getNumber("code").intValue())
                .isEqualTo(3040501);
    }

    @Test
    void lookupJoinsAnotherCollectionOfTheDatabase() {
        insert("orders", "{_id: 1, item: 'almonds', qty: 2}", "{_id: 2, item: 'pecans', qty: 1}", "{_id: 3}");
        insert("inventory", "{_id: 1, sku: 'almonds', instock: 120}", "{_id: 2, sku: 'bread', instock: 80}",
                "{_id: 3, sku: 'pecans', instock: 70}", "{_id: 4}");

        BsonDocument reply = run(DB, """
                {aggregate: 'orders', pipeline: [
                  {$lookup: {from: 'inventory', localField: 'item', foreignField: 'sku', as: 'stock'}},
                  {$project: {stock: '$stock._id'}}, {$sort: {_id: 1}}], cursor: {batchSize: 10}}""");

        assertThat(batch(reply, "firstBatch")).containsExactly(ExtendedJson.parse("{_id: 1, stock: [1]}"),
                ExtendedJson.parse("{_id: 2, stock: [3]}"), ExtendedJson.parse("{_id: 3, stock: [4]}"));
    }

    /**
     * MongoDB manual, "Collation": an aggregate's collation applies to every string comparison of its pipeline — the
     * leading $match (which then gets no string index bounds, even when hinted), $group keys (the first value met in
     * the scan is the key), $sort, $lookup's match and $expr — and is refused on a time-series collection.
     */
    @Test
    void comparesStringsUnderTheAggregatesCollation() {
        insert("words", "{_id: 'a', w: 'apple', n: '10'}", "{_id: 'B', w: 'Apple', n: '9'}", "{_id: 'c', w: 'APPLE', n: '100'}",
                "{_id: 'D', w: 'äpple', n: '2'}", "{_id: 'e', w: 'banana', n: '1'}");
        run(DB, "{createIndexes: 'words', indexes: [{key: {w: 1}, name: 'w_1'}]}");
        String caseless = "{locale: 'en', strength: 2}";
        String grouped = "pipeline: [{$match: {w: 'aPPle'}}, {$group: {_id: '$w', n: {$sum: 1}}}, {$sort: {_id: 1}}], cursor: {}";

        assertThat(batch(run(DB, "{aggregate: 'words', " + grouped + "}"), "firstBatch")).isEmpty();
        // one group for apple/Apple/APPLE, keyed by the first met in the scan (_id order: 'B' sorts before 'a')
        assertThat(batch(run(DB, "{aggregate: 'words', " + grouped + ", collation: " + caseless + "}"), "firstBatch"))
                .containsExactly(ExtendedJson.parse("{_id: 'Apple', n: 3}"));
        // hinted, the whole w_1 index is scanned (no string bounds under the collation), in binary order: 'APPLE' first
        assertThat(batch(run(DB, "{aggregate: 'words', " + grouped + ", hint: 'w_1', collation: " + caseless + "}"), "firstBatch"))
                .containsExactly(ExtendedJson.parse("{_id: 'APPLE', n: 3}"));
        assertThat(batch(run(DB, "{aggregate: 'words', pipeline: [{$group: {_id: '$w'}}], cursor: {}, collation: {locale: 'en', strength: 1}}"),
                "firstBatch")).containsExactly(ExtendedJson.parse("{_id: 'Apple'}"), ExtendedJson.parse("{_id: 'banana'}"));
        assertThat(batch(run(DB, "{aggregate: 'words', pipeline: [{$sort: {n: 1}}, {$project: {_id: 0, n: 1}}], cursor: {},"
                + " collation: {locale: 'en', numericOrdering: true}}"), "firstBatch")).extracting(d -> d.getString("n").getValue())
                .containsExactly("1", "2", "9", "10", "100");
        assertThat(batch(run(DB, "{aggregate: 'words', pipeline: [{$match: {_id: 'a'}}, {$lookup: {from: 'words', localField: 'w',"
                + " foreignField: 'w', as: 'same'}}, {$project: {same: '$same._id'}}], cursor: {}, collation: " + caseless + "}"), "firstBatch"))
                .containsExactly(ExtendedJson.parse("{_id: 'a', same: ['B', 'a', 'c']}"));
        assertThat(batch(run(DB, "{aggregate: 'words', pipeline: [{$match: {$expr: {$eq: ['$w', 'APPLE']}}}, {$count: 'n'}], cursor: {},"
                + " collation: {locale: 'en', strength: 1}}"), "firstBatch")).containsExactly(ExtendedJson.parse("{n: 4}"));

        BsonDocument explained = run(DB, "{explain: {aggregate: 'words', " + grouped + ", collation: " + caseless + "}}");
        assertThat(explained.getDocument("queryPlanner").getDocument("winningPlan").toJson()).doesNotContain("w_1").contains("COLLSCAN");
        assertThat(run(DB, "{explain: {aggregate: 'words', " + grouped + "}}").getDocument("queryPlanner").getDocument("winningPlan").toJson())
                .contains("w_1");

        run(DB, "{create: 'weather', timeseries: {timeField: 't'}}");
        assertError(run(DB, "{aggregate: 'weather', pipeline: [], cursor: {}, collation: " + caseless + "}"), 238, "aggregate.collation");
        assertError(run(DB, "{explain: {aggregate: 'weather', pipeline: [], cursor: {}, collation: " + caseless + "}}"), 238,
                "aggregate.collation");
        assertThat(batch(run(DB, "{aggregate: 'weather', pipeline: [], cursor: {}, collation: {locale: 'simple'}}"), "firstBatch")).isEmpty();
    }

    @Test
    void rejectsBadPipelinesWithMongoDbCodes() {
        insert("bad", "{_id: 1, s: 'x'}");

        assertError(run(DB, "{aggregate: 'bad', pipeline: [{$frob: 1}], cursor: {}}"), 40324, "Unrecognized pipeline stage name: '$frob'");
        assertError(run(DB, "{aggregate: 'bad', pipeline: [{$project: {x: {$frob: 1}}}], cursor: {}}"), 168, "Unrecognized expression '$frob'");
        assertError(run(DB, "{aggregate: 'bad', pipeline: []}"), 9, "The 'cursor' option is required");
        assertError(run(DB, "{aggregate: 'bad', pipeline: {}, cursor: {}}"), 14, "pipeline");
        assertError(run(DB, "{aggregate: 'bad', pipeline: [{$project: {n: {$add: ['$s', 1]}}}], cursor: {}}"), 14,
                "$add only supports numeric or date types, not string");
    }

    private void insert(String collection, String... documents) {
        BsonArray array = new BsonArray();
        for (String document : documents) {
            array.add(ExtendedJson.parse(document));
        }
        BsonDocument reply = run(DB, new BsonDocument("insert", new BsonString(collection)).append("documents", array));
        assertThat(reply.getInt32("n").getValue()).isEqualTo(documents.length);
    }

    private static List<BsonDocument> batch(BsonDocument reply, String field) {
        return reply.getDocument("cursor").getArray(field).stream().map(BsonValue::asDocument).toList();
    }

    private static void assertError(BsonDocument reply, int code, String message) {
        assertThat(reply.getNumber("code").intValue()).as(reply.toJson()).isEqualTo(code);
        assertThat(reply.getString("errmsg").getValue()).contains(message);
    }
}
