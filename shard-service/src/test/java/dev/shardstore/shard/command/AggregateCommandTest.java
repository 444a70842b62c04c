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
