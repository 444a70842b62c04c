package dev.shardstore.router.sharding;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;

/**
 * The database-level aggregate through the router: {@code aggregate: 1} with {@code $documents} first runs on the router
 * alone (no shard, no config service asked) with every engine stage after it, cursors and {@code let} included; other
 * first stages are refused with MongoDB's errors ({@code $currentOp} is answered on admin only: ClusterCurrentOpTest).
 */
class DatabaseAggregateTest extends RouterAgainstFakeCluster {
    private static List<BsonDocument> batch(Reply reply, String name) {
        return reply.body().getDocument("cursor").getArray(name).stream().map(BsonValue::asDocument).toList();
    }

    @Test
    void documentsFeedTheRestOfThePipelineThroughARouterCursor() throws Exception {
        CLUSTER.forgetRequests();
        Reply first = command("da1", "{aggregate: 1, pipeline: [{$documents: [{k: 'a', v: 1}, {k: 'b', v: 2}, {k: 'a', v: 3}, {k: 'c', v: 4}]},"
                + " {$match: {v: {$gt: 1}}}, {$group: {_id: '$k', total: {$sum: '$v'}}}, {$sort: {_id: 1}}], cursor: {batchSize: 1}}");

        first.assertOk();
        assertThat(first.body().getDocument("cursor").getString("ns").getValue()).isEqualTo("da1.$cmd.aggregate");
        assertThat(batch(first, "firstBatch")).extracting(d -> d.toJson()).containsExactly("{\"_id\": \"a\", \"total\": 3}");
        long id = first.body().getDocument("cursor").getNumber("id").longValue();
        Reply more = command("da1", "{getMore: " + id + ", collection: '$cmd.aggregate'}");
        more.assertOk();
        assertThat(batch(more, "nextBatch")).extracting(d -> d.getString("_id").getValue()).containsExactly("b", "c");
        assertThat(CLUSTER.config.received).as("no catalog lookup").noneMatch(r -> r.db().equals("da1") || r.command().toJson().contains("da1"));
        assertThat(sent(CLUSTER.sh1, "da1", "aggregate")).isEmpty();
        assertThat(sent(CLUSTER.sh2, "da1", "aggregate")).isEmpty();
    }

    @Test
    void theDocumentsArgumentIsAnExpressionSeeingLet() throws Exception {
        Reply reply = command("da2", "{aggregate: 1, let: {rows: [{n: 1}, {n: 2}]}, pipeline: [{$documents: '$$rows'},"
                + " {$project: {_id: 0, twice: {$multiply: ['$n', 2]}}}], cursor: {}}");

        reply.assertOk();
        assertThat(batch(reply, "firstBatch")).extracting(d -> d.getNumber("twice").intValue()).containsExactly(2, 4);
    }

    @Test
    void otherFirstStagesAndBadDocumentsAreRefusedWithMongoDbsErrors() throws Exception {
        command("da3", "{aggregate: 1, pipeline: [], cursor: {}}").assertError(400, 73, "{aggregate: 1} is not valid for an empty pipeline.");
        command("da3", "{aggregate: 1, pipeline: [{$match: {}}], cursor: {}}")
                .assertError(400, 73, "{aggregate: 1} is not valid for '$match'; a collection is required.");
        command("da3", "{aggregate: 1, pipeline: [{$changeStream: {}}], cursor: {}}").assertError(400, 238, "$changeStream");
        command("da3", "{aggregate: 1, pipeline: [{$currentOp: {}}], cursor: {}}")
                .assertError(400, 73, "$currentOp must be run against the 'admin' database with {aggregate: 1}");
        command("da3", "{aggregate: 1, pipeline: [{$documents: 5}], cursor: {}}").assertError(400, 14, "$documents requires an array of documents");
        command("da3", "{aggregate: 1, pipeline: [{$documents: [1]}], cursor: {}}").assertError(400, 14, "$documents requires an array of documents");
        command("da3", "{aggregate: 1, pipeline: [{$documents: []}]}").assertError(400, 9, "'cursor' option is required");
    }
}
