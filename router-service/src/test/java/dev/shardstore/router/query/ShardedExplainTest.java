package dev.shardstore.router.query;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.bson.ExtendedJson;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;

/** mongos's explain shape over shard explain replies. */
class ShardedExplainTest {
    private static ShardedExplain.ShardExplain shard(String name, long returned, long keys, long docs, long millis) {
        return new ShardedExplain.ShardExplain(name, "http://" + name, ExtendedJson.parse("""
                {queryPlanner: {namespace: 'db.c', parsedQuery: {a: 1}, winningPlan: {stage: 'FETCH', inputStage: {stage: 'IXSCAN'}},
                                rejectedPlans: []},
                 executionStats: {executionSuccess: true, nReturned: %d, executionTimeMillis: %d, totalKeysExamined: %d,
                                  totalDocsExamined: %d},
                 ok: 1}""".formatted(returned, millis, keys, docs)));
    }

    @Test
    void mergeStages() {
        assertThat(ShardedExplain.mergeStage("find", 1, true)).isEqualTo("SINGLE_SHARD");
        assertThat(ShardedExplain.mergeStage("find", 2, true)).isEqualTo("SHARD_MERGE_SORT");
        assertThat(ShardedExplain.mergeStage("count", 3, false)).isEqualTo("SHARD_MERGE");
        assertThat(ShardedExplain.mergeStage("delete", 2, false)).isEqualTo("SHARD_WRITE");
    }

    @Test
    void queryExplainListsEachShardsPlanAndSumsTheStatistics() {
        BsonDocument reply = ShardedExplain.query("SHARD_MERGE", List.of(shard("s0", 3, 4, 5, 7), shard("s1", 10, 20, 30, 2)), 12);
        BsonDocument planner = reply.getDocument("queryPlanner");
        assertThat(planner.getInt32("mongosPlannerVersion").getValue()).isEqualTo(1);
        assertThat(planner.getDocument("winningPlan").getString("stage").getValue()).isEqualTo("SHARD_MERGE");
        BsonArray shards = planner.getDocument("winningPlan").getArray("shards");
        assertThat(shards).hasSize(2);
        BsonDocument first = shards.get(0).asDocument();
        assertThat(first.getString("shardName").getValue()).isEqualTo("s0");
        assertThat(first.getString("connectionString").getValue()).isEqualTo("http://s0");
        assertThat(first.getString("namespace").getValue()).isEqualTo("db.c");
        assertThat(first.getDocument("winningPlan").getString("stage").getValue()).isEqualTo("FETCH");

        BsonDocument stats = reply.getDocument("executionStats");
        assertThat(stats.getNumber("nReturned").longValue()).isEqualTo(13);
        assertThat(stats.getNumber("totalKeysExamined").longValue()).isEqualTo(24);
        assertThat(stats.getNumber("totalDocsExamined").longValue()).isEqualTo(35);
        assertThat(stats.getNumber("executionTimeMillis").longValue()).isEqualTo(12);
        BsonDocument stages = stats.getDocument("executionStages");
        assertThat(stages.getString("stage").getValue()).isEqualTo("SHARD_MERGE");
        assertThat(stages.getNumber("totalChildMillis").longValue()).isEqualTo(9);
        BsonDocument s1 = stages.getArray("shards").get(1).asDocument();
        assertThat(s1.getString("shardName").getValue()).isEqualTo("s1");
        assertThat(s1.getBoolean("executionSuccess").getValue()).isTrue();
        assertThat(s1.getNumber("nReturned").longValue()).isEqualTo(10);
        assertThat(reply.getNumber("ok").intValue()).isEqualTo(1);
    }

    @Test
    void queryPlannerVerbosityHasNoExecutionStats() {
        ShardedExplain.ShardExplain planOnly = new ShardedExplain.ShardExplain("s0", "http://s0",
                ExtendedJson.parse("{queryPlanner: {namespace: 'db.c', winningPlan: {stage: 'COLLSCAN'}}, ok: 1}"));
        assertThat(ShardedExplain.query("SINGLE_SHARD", List.of(planOnly), 1)).doesNotContainKey("executionStats");
    }

    @Test
    void aggregateExplainShowsTheSplit() {
        PipelineSplit split = PipelineSplit.of(ExtendedJson.parse("{p: [{$match: {a: 1}}, {$sort: {b: 1}}, {$skip: 1}]}").getArray("p"));
        BsonDocument reply = ShardedExplain.aggregate(split, List.of(shard("s0", 1, 1, 1, 1), shard("s1", 1, 1, 1, 1)));
        assertThat(reply.getString("mergeType").getValue()).isEqualTo("mongos");
        assertThat(reply.getDocument("splitPipeline").getArray("shardsPart")).isEqualTo(split.shardPipeline());
        assertThat(reply.getDocument("splitPipeline").getArray("mergerPart")).isEqualTo(
                ExtendedJson.parse("{p: [{$mergeCursors: {sort: {b: 1}}}, {$skip: 1}]}").getArray("p"));
        assertThat(reply.getDocument("shards").getDocument("s1").getString("host").getValue()).isEqualTo("http://s1");
        assertThat(reply.getDocument("shards").getDocument("s1")).containsKey("queryPlanner").doesNotContainKey("ok");
        assertThat(ShardedExplain.aggregate(null, List.of(shard("s0", 1, 1, 1, 1))).isNull("splitPipeline")).isTrue();
    }
}
