package dev.shardstore.router.query;

import java.util.List;
import java.util.Objects;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * The explain reply mongos builds from its shards' explain replies (MongoDB manual, "Explain Results", sharded
 * collections):
 * <pre>
 * {queryPlanner: {mongosPlannerVersion: 1,
 *                 winningPlan: {stage: SINGLE_SHARD | SHARD_MERGE | SHARD_MERGE_SORT | SHARD_WRITE,
 *                               shards: [{shardName, connectionString, namespace, parsedQuery, winningPlan,
 *                                         rejectedPlans, ...the shard's other queryPlanner fields, serverInfo?,
 *                                         stages? (a time-series read: the pipeline over the buckets)}]}},
 *  executionStats: {nReturned, executionTimeMillis, totalKeysExamined, totalDocsExamined,     (verbosity above
 *                   executionStages: {stage, nReturned, executionTimeMillis, totalKeysExamined, queryPlanner)
 *                                     totalDocsExamined, totalChildMillis,
 *                                     shards: [{shardName, executionSuccess, nReturned, executionTimeMillis,
 *                                               totalKeysExamined, totalDocsExamined, executionStages?}]}},
 *  ok: 1}
 * </pre>
 * Counts are the sums over the shards; {@code executionTimeMillis} is the router's own elapsed time and
 * {@code totalChildMillis} the sum of the shards' times. An aggregate explains in MongoDB's sharded-aggregate
 * shape instead: {@code {mergeType: "mongos", splitPipeline: {shardsPart, mergerPart} | null, shards: {<name>:
 * {host, ...the shard's explain}}, ok: 1}} where {@code mergerPart} starts with {@code {$mergeCursors: {sort?}}}, the
 * router's merge of the shard cursors; a pipeline sent whole to one shard has {@code splitPipeline: null} and
 * {@code mergeType: "specificShard"}.
 */
public final class ShardedExplain {
    /**
     * One shard's explain reply.
     *
     * @param shardName        the shard's id
     * @param connectionString where the shard is reached (its base URL)
     * @param reply            its successful explain reply
     */
    public record ShardExplain(String shardName, String connectionString, BsonDocument reply) {
        public ShardExplain {
            Objects.requireNonNull(shardName, "shardName");
            Objects.requireNonNull(connectionString, "connectionString");
            Objects.requireNonNull(reply, "reply");
        }
    }

    private static final List<String> COUNTERS = List.of("nReturned", "totalKeysExamined", "totalDocsExamined");

    private ShardedExplain() {}

    /**
     * The mongos stage merging the shards' results of the explained {@code kind} of command.
     *
     * @param sorted whether the results are merged by a sort (a find with {@code sort})
     */
    public static String mergeStage(String kind, int shards, boolean sorted) {
        if (shards == 1) {
            return "SINGLE_SHARD";
        }
        if (kind.equals("update") || kind.equals("delete") || kind.equals("findAndModify")) {
            return "SHARD_WRITE";
        }
        return sorted ? "SHARD_MERGE_SORT" : "SHARD_MERGE";
    }

    /**
     * The reply for a find, count, distinct, update or delete explain.
     *
     * @param stage         see {@link #mergeStage}
     * @param elapsedMillis how long the router took, for {@code executionTimeMillis}
     */
    public static BsonDocument query(String stage, List<ShardExplain> shards, long elapsedMillis) {
        BsonArray planners = new BsonArray();
        BsonArray executions = new BsonArray();
        long[] totals = new long[COUNTERS.size()];
        long childMillis = 0;
        boolean withStats = false;
        for (ShardExplain shard : shards) {
            BsonDocument planner = new BsonDocument("shardName", new BsonString(shard.shardName()))
                    .append("connectionString", new BsonString(shard.connectionString()));
            BsonDocument shardPlanner = shard.reply().getDocument("queryPlanner", new BsonDocument());
            shardPlanner.forEach(planner::append);
            for (String field : List.of("serverInfo", "stages")) { // stages: a time-series read's pipeline, with its unpack
                if (shard.reply().containsKey(field)) {
                    planner.append(field, shard.reply().get(field));
                }
            }
            planners.add(planner);
            BsonDocument stats = shard.reply().getDocument("executionStats", null);
            if (stats != null) {
                withStats = true;
                BsonDocument execution = new BsonDocument("shardName", new BsonString(shard.shardName()));
                stats.forEach(execution::append);
                execution.putIfAbsent("executionSuccess", org.bson.BsonBoolean.TRUE);
                executions.add(execution);
                for (int i = 0; i < COUNTERS.size(); i++) {
                    totals[i] += number(stats.get(COUNTERS.get(i)));
                }
                childMillis += number(stats.get("executionTimeMillis"));
            }
        }
        BsonDocument reply = new BsonDocument("queryPlanner", new BsonDocument("mongosPlannerVersion", new BsonInt32(1))
                .append("winningPlan", new BsonDocument("stage", new BsonString(stage)).append("shards", planners)));
        if (withStats) {
            BsonDocument executionStages = new BsonDocument("stage", new BsonString(stage));
            BsonDocument executionStats = new BsonDocument();
            for (int i = 0; i < COUNTERS.size(); i++) {
                executionStages.append(COUNTERS.get(i), new BsonInt64(totals[i]));
                executionStats.append(COUNTERS.get(i), new BsonInt64(totals[i]));
                if (i == 0) {
                    executionStages.append("executionTimeMillis", new BsonInt64(elapsedMillis));
                    executionStats.append("executionTimeMillis", new BsonInt64(elapsedMillis));
                }
            }
            executionStages.append("totalChildMillis", new BsonInt64(childMillis)).append("shards", executions);
            reply.append("executionStats", executionStats.append("executionStages", executionStages));
        }
        return reply.append("ok", new BsonInt32(1));
    }

    /**
     * The reply for an aggregate explain.
     *
     * @param split how the pipeline was split, or null when it ran whole on one shard
     */
    public static BsonDocument aggregate(@Nullable PipelineSplit split, List<ShardExplain> shards) {
        BsonDocument perShard = new BsonDocument();
        for (ShardExplain shard : shards) {
            BsonDocument entry = new BsonDocument("host", new BsonString(shard.connectionString()));
            shard.reply().forEach((k, v) -> {
                if (!k.equals("ok")) {
                    entry.append(k, v);
                }
            });
            perShard.append(shard.shardName(), entry);
        }
        BsonValue splitPipeline = org.bson.BsonNull.VALUE;
        if (split != null) {
            BsonDocument parts = new BsonDocument("shardsPart", split.shardPipeline());
            BsonArray merger = new BsonArray();
            BsonDocument mergeCursors = new BsonDocument();
            if (split.mergeSort() != null) {
                mergeCursors.append("sort", split.mergeSort());
            }
            merger.add(new BsonDocument("$mergeCursors", mergeCursors));
            split.mergePipeline().forEach(merger::add);
            splitPipeline = parts.append("mergerPart", merger);
        }
        return new BsonDocument("mergeType", new BsonString(split == null ? "specificShard" : "mongos"))
                .append("splitPipeline", splitPipeline)
                .append("shards", perShard)
                .append("ok", new BsonInt32(1));
    }

    private static long number(@Nullable BsonValue v) {
        return v != null && v.isNumber() ? v.asNumber().longValue() : 0;
    }
}
