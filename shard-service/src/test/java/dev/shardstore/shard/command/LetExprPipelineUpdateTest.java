package dev.shardstore.shard.command;

import dev.shardstore.shard.write.Documents;
import dev.shardstore.shard.write.FirstMatchInOrder;
import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.shard.ShardIntegrationTest;
import dev.shardstore.support.failpoint.FailPointAction;
import dev.shardstore.support.failpoint.FailPoints;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * {@code $expr} and {@code let} on every command that takes them, pipeline-style updates (with upsert), the
 * {@code _id} refusals and {@code sort} on single-document updates, over the shard's real HTTP command endpoint
 * and PostgreSQL. Documents are the MongoDB manual's {@code $expr} monthly budget example.
 */
class LetExprPipelineUpdateTest extends ShardIntegrationTest {
    private static final String DB = "letexpr";
    private static final String[] BUDGET = {
            "{_id: 1, category: 'food', budget: 400, spent: 450}",
            "{_id: 2, category: 'drinks', budget: 100, spent: 150}",
            "{_id: 3, category: 'clothes', budget: 100, spent: 50}",
            "{_id: 4, category: 'misc', budget: 500, spent: 300}",
            "{_id: 5, category: 'travel', budget: 200, spent: 650}"};

    @Autowired
    FailPoints failPoints;

    @Test
    void findCountDistinctAndAggregateEvaluateExprWithLet() {
        insertInto(DB, "reads", BUDGET);

        assertThat(ids(run(DB, "{find: 'reads', filter: {$expr: {$gt: ['$spent', '$budget']}}}"))).containsExactly(1, 2, 5);
        assertThat(ids(run(DB, "{find: 'reads', filter: {$expr: {$gt: ['$spent', '$$limit']}}, let: {limit: 400}}")))
                .containsExactly(1, 5);
        assertThat(run(DB, "{count: 'reads', query: {$expr: {$lt: ['$spent', '$budget']}}}").getNumber("n").intValue()).isEqualTo(2);
        assertThat(run(DB, "{distinct: 'reads', key: 'budget', query: {$expr: {$gte: ['$spent', '$budget']}}}").getArray("values"))
                .containsExactly(ExtendedJson.parse("{v: 100}").get("v"), ExtendedJson.parse("{v: 200}").get("v"),
                        ExtendedJson.parse("{v: 400}").get("v"));
        BsonDocument aggregate = run(DB, """
                {aggregate: 'reads', cursor: {}, let: {base: 100, label: 'over'},
                 pipeline: [{$match: {$expr: {$gt: ['$spent', '$budget']}}}, {$sort: {_id: 1}},
                            {$project: {_id: 1, excess: {$subtract: ['$spent', '$$base']}, tag: '$$label', now: {$lt: ['$$NOW', 0]}}}]}""");
        assertThat(aggregate.getDocument("cursor").getArray("firstBatch")).containsExactly(
                ExtendedJson.parse("{_id: 1, excess: 350, tag: 'over', now: false}"),
                ExtendedJson.parse("{_id: 2, excess: 50, tag: 'over', now: false}"),
                ExtendedJson.parse("{_id: 5, excess: 550, tag: 'over', now: false}"));
    }

    @Test
    void updateDeleteAndFindAndModifyEvaluateExprAndPipelinesWithLet() {
        insertInto(DB, "writes", BUDGET);

        BsonDocument update = run(DB, """
                {update: 'writes', let: {status: 'over', cap: 300},
                 updates: [{q: {$expr: {$gt: ['$spent', '$$cap']}}, multi: true,
                            u: [{$set: {status: '$$status', excess: {$subtract: ['$spent', '$budget']}}}, {$unset: 'category'}]}]}""");
        assertThat(update).isEqualTo(ExtendedJson.parse("{n: 2, nModified: 2, ok: 1.0}"));
        assertThat(documentsOf(DB, "writes")).contains(
                ExtendedJson.parse("{_id: 1, budget: 400, spent: 450, status: 'over', excess: 50}"),
                ExtendedJson.parse("{_id: 5, budget: 200, spent: 650, status: 'over', excess: 450}"));

        BsonDocument modified = run(DB, """
                {findAndModify: 'writes', query: {$expr: {$eq: ['$_id', '$$id']}}, new: true, let: {id: 3, more: 5},
                 update: [{$set: {spent: {$add: ['$spent', '$$more']}}}]}""");
        assertThat(modified.get("value")).isEqualTo(ExtendedJson.parse("{_id: 3, category: 'clothes', budget: 100, spent: 55}"));

        BsonDocument deleted = run(DB, "{delete: 'writes', let: {c: 'misc'}, deletes: [{q: {$expr: {$eq: ['$category', '$$c']}}, limit: 0}]}");
        assertThat(deleted.getNumber("n").intValue()).isEqualTo(1);
        assertThat(ids(run(DB, "{find: 'writes'}"))).containsExactly(1, 2, 3, 5);
    }

    @Test
    void pipelineUpsertRunsOnTheQueryEqualitiesAndPipelineRulesAreWriteErrors() {
        BsonDocument upsert = run(DB, """
                {update: 'pipes', updates: [{q: {_id: 9, k: 'v'}, upsert: true, c: {suffix: '!'},
                                             u: [{$set: {n: {$concat: ['$k', '$$suffix']}}}]}]}""");
        assertThat(upsert.getArray("upserted")).containsExactly(ExtendedJson.parse("{index: 0, _id: 9}"));
        assertThat(documentsOf(DB, "pipes")).containsExactly(ExtendedJson.parse("{_id: 9, k: 'v', n: 'v!'}"));

        BsonDocument refused = run(DB, """
                {update: 'pipes', ordered: false, updates: [
                   {q: {_id: 9}, u: [{$group: {_id: '$k'}}]},
                   {q: {_id: 9}, u: [{$set: {_id: 10}}]},
                   {q: {_id: 9}, u: [{$set: {a: 1}}], arrayFilters: [{x: 1}]},
                   {q: {_id: 9}, u: {$set: {a: 1}}, c: {x: 1}},
                   {q: {_id: 9}, u: [{$replaceWith: {x: 1}}]}]}""");
        assertThat(codes(refused)).containsExactly(72, 66, 9, 9);
        assertThat(refused.getArray("writeErrors").get(0).asDocument().getString("errmsg").getValue())
                .contains("$group is not allowed to be used within an update");
        assertThat(documentsOf(DB, "pipes")).containsExactly(ExtendedJson.parse("{_id: 9, x: 1}"));
    }

    @Test
    void badLetAndMisplacedExprAreRefusedNamingTheField() {
        insertInto(DB, "bad", BUDGET);

        assertError(run(DB, "{find: 'bad', let: {Bad: 1}}"), 2, "'let.Bad'");
        assertError(run(DB, "{find: 'bad', let: 5}"), 14, "'let' must be a document");
        assertError(run(DB, "{aggregate: 'bad', cursor: {}, pipeline: [], let: {x: '$budget'}}"), 2, "'let.x': Command let Expression tried to access a field");
        assertError(run(DB, "{update: 'bad', let: {'a-b': 1}, updates: [{q: {}, u: {$set: {a: 1}}}]}"), 2, "'let.a-b'");
        assertError(run(DB, "{delete: 'bad', let: [], deletes: [{q: {}, limit: 0}]}"), 14, "'let' must be a document");
        assertError(run(DB, "{findAndModify: 'bad', let: {'': 1}, remove: true}"), 2, "empty variable names");
        assertError(run(DB, "{find: 'bad', filter: {a: {$elemMatch: {$expr: true}}}}"), 2, "$expr can only be applied to the top-level document");
        assertError(run(DB, "{find: 'bad', filter: {$expr: '$$CLUSTER_TIME'}}"), 238, "$$CLUSTER_TIME");
        assertThat(documentsOf(DB, "bad")).hasSize(5);
    }

    @Test
    void invalidIdsAreRefusedOnInsertReplacementAndUpsert() {
        BsonDocument insert = run(DB, """
                {insert: 'ids', ordered: false, documents: [
                   {_id: {$a: 1}}, {_id: {a: {$b: 1}}}, {_id: {$regularExpression: {pattern: 'x', options: ''}}},
                   {_id: {$undefined: true}}, {_id: [1]}, {_id: {a: 1}}]}""");
        assertThat(codes(insert)).containsExactly(52, 52, 53, 53, 53);
        assertThat(insert.getArray("writeErrors").get(0).asDocument().getString("errmsg").getValue())
                .contains("_id fields may not contain '$'-prefixed fields: $a");
        assertThat(documentsOf(DB, "ids")).containsExactly(ExtendedJson.parse("{_id: {a: 1}}"));

        BsonDocument updates = run(DB, """
                {update: 'ids', ordered: false, updates: [
                   {q: {x: 1}, u: {_id: {$c: 1}, x: 1}, upsert: true},
                   {q: {x: 1}, u: {$set: {_id: {$d: 1}}}, upsert: true},
                   {q: {x: 1}, u: [{$set: {_id: {$literal: {$e: 1}}}}], upsert: true},
                   {q: {_id: {$f: 1}}, u: {$set: {x: 1}}, upsert: true}]}""");
        assertThat(codes(updates)).containsExactly(52, 52, 52, 2);
        assertThat(documentsOf(DB, "ids")).containsExactly(ExtendedJson.parse("{_id: {a: 1}}"));
    }

    @Test
    void sortPicksTheDocumentASingleUpdateChanges() {
        insertInto(DB, "sorted", "{_id: 1, g: 1, rank: 5}", "{_id: 2, g: 1, rank: 1}", "{_id: 3, g: 1, rank: 3}", "{_id: 4, g: 2, rank: 0}");

        assertThat(run(DB, "{update: 'sorted', updates: [{q: {g: 1}, u: {$set: {first: true}}, sort: {rank: 1}}]}"))
                .isEqualTo(ExtendedJson.parse("{n: 1, nModified: 1, ok: 1.0}"));
        assertThat(run(DB, "{update: 'sorted', updates: [{q: {g: 1}, u: {g: 1, rank: 5, replaced: true}, sort: {rank: -1, _id: 1}}]}"))
                .isEqualTo(ExtendedJson.parse("{n: 1, nModified: 1, ok: 1.0}"));
        assertThat(documentsOf(DB, "sorted")).containsExactly(
                ExtendedJson.parse("{_id: 1, g: 1, rank: 5, replaced: true}"),
                ExtendedJson.parse("{_id: 2, g: 1, rank: 1, first: true}"),
                ExtendedJson.parse("{_id: 3, g: 1, rank: 3}"),
                ExtendedJson.parse("{_id: 4, g: 2, rank: 0}"));

        BsonDocument upsert = run(DB, "{update: 'sorted', updates: [{q: {_id: 5, g: 3}, u: {$set: {n: 1}}, sort: {rank: 1}, upsert: true}]}");
        assertThat(upsert.getArray("upserted")).containsExactly(ExtendedJson.parse("{index: 0, _id: 5}"));

        BsonDocument multi = run(DB, "{update: 'sorted', updates: [{q: {g: 1}, u: {$set: {m: 1}}, sort: {rank: 1}, multi: true}]}");
        assertThat(codes(multi)).containsExactly(72);
        assertThat(multi.getArray("writeErrors").get(0).asDocument().getString("errmsg").getValue()).contains("updates.0.sort");
    }

    /**
     * The first document in sort order stops matching between the sorted read and the row lock (another writer
     * changes it while the update waits at the fail point): the update looks again and changes the next one, never
     * the document that no longer matches.
     */
    @Test
    void aSortedUpdateLooksAgainWhenItsFirstMatchStopsMatching() throws Exception {
        insertInto(DB, "race", "{_id: 1, g: 1, rank: 2}", "{_id: 2, g: 1, rank: 1}");
        long entered = failPoints.configure(FirstMatchInOrder.BEFORE_LOCK, FailPointAction.pause(), 1);
        try {
            CompletableFuture<BsonDocument> update = CompletableFuture.supplyAsync(() ->
                    run(DB, "{update: 'race', updates: [{q: {g: 1}, u: {$set: {hit: true}}, sort: {rank: 1}}]}"));
            assertThat(failPoints.awaitEntered(FirstMatchInOrder.BEFORE_LOCK, entered + 1, Duration.ofSeconds(30))).isTrue();
            assertThat(run(DB, "{update: 'race', updates: [{q: {_id: 2}, u: {$set: {g: 0}}}]}").getNumber("nModified").intValue())
                    .isEqualTo(1);
            failPoints.configure(FirstMatchInOrder.BEFORE_LOCK, null, 0);
            assertThat(update.get(30, TimeUnit.SECONDS)).isEqualTo(ExtendedJson.parse("{n: 1, nModified: 1, ok: 1.0}"));
        } finally {
            failPoints.configure(FirstMatchInOrder.BEFORE_LOCK, null, 0);
        }
        assertThat(documentsOf(DB, "race")).containsExactly(
                ExtendedJson.parse("{_id: 1, g: 1, rank: 2, hit: true}"),
                ExtendedJson.parse("{_id: 2, g: 0, rank: 1}"));
    }

    private static List<Integer> ids(BsonDocument findReply) {
        return findReply.getDocument("cursor").getArray("firstBatch").stream()
                .map(d -> d.asDocument().getNumber("_id").intValue()).toList();
    }

    private static List<Integer> codes(BsonDocument writeReply) {
        return writeReply.getArray("writeErrors", new BsonArray()).stream()
                .map(e -> e.asDocument().getNumber("code").intValue()).toList();
    }

    private static void assertError(BsonDocument reply, int code, String messagePart) {
        assertThat(reply.getNumber("code", new org.bson.BsonInt32(0)).intValue()).as(reply.toJson()).isEqualTo(code);
        assertThat(reply.getString("errmsg", new BsonString("")).getValue()).as(reply.toJson()).contains(messagePart);
    }
}
