package dev.shardstore.router.query;

import dev.shardstore.engine.aggregate.CollectionSource;
import dev.shardstore.engine.aggregate.Pipeline;
import dev.shardstore.engine.aggregate.expression.CommandVariables;
import dev.shardstore.engine.query.Filter;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import dev.shardstore.engine.spill.MemoryLimits;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonNull;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * An aggregation pipeline split for a sharded collection (MongoDB's {@code sharded_agg_helpers::splitPipeline}):
 * every targeted shard runs {@link #shardPipeline}; the router merges the shards' streams (a merge sort by
 * {@link #mergeSort} when it is set, else one shard after the other) and runs {@link #mergePipeline} over the
 * result.
 *
 * <p>The split point is the first stage that must see all the data:
 * <ul>
 *   <li>{@code $match}, {@code $project}, {@code $addFields}/{@code $set}, {@code $unset}, {@code $unwind},
 *       {@code $replaceRoot}/{@code $replaceWith} work document by document: they run on the shards;</li>
 *   <li>{@code $sort} runs on the shards and is merged: the router merge-sorts the shards' sorted streams by the
 *       same spec; when {@code $limit}s (after any {@code $skip}s) follow, the shards also apply
 *       {@code $limit: skips + limit}, since no more of any shard's documents can reach the result;</li>
 *   <li>{@code $limit} runs on the shards as a copy and again on the merged stream;</li>
 *   <li>{@code $skip} runs on the merged stream only; when a {@code $limit} follows, the shards apply
 *       {@code $limit: skip + limit};</li>
 *   <li>{@code $group} whose accumulators are all decomposable runs in two phases: the shards run a partial
 *       {@code $group} with the same {@code _id}, the router a final {@code $group} on {@code "$_id"} combining
 *       the partial fields: {@code $sum}→{@code $sum}, {@code $count}→{@code $sum} of counts,
 *       {@code $min}/{@code $max}→themselves, {@code $first}/{@code $last}→themselves (the shards' partial groups
 *       reach the router shard after shard, so the first of the firsts is the first in the merged order), {@code $avg}→ the shards' {@code $sum} of the numeric values and
 *       their count, summed on the router and divided ({@code null} when the count is 0) by a following
 *       {@code $addFields}, the count field then {@code $unset}. A {@code $group} with an array-valued
 *       accumulator ({@code $push}, {@code $addToSet}: the engine has no {@code $concatArrays}/{@code $setUnion}
 *       to combine partial arrays) runs entirely on the router, over the concatenation of the shards' streams;</li>
 *   <li>{@code $count} and {@code $sortByCount} are rewritten first to the {@code $group} (+ {@code $project} /
 *       {@code $sort}) they stand for, so they split like those;</li>
 *   <li>any other stage ({@code $bucket}, {@code $facet}, {@code $sample}, {@code $lookup}, ...) runs on the
 *       router: the shard part ends before it.</li>
 * </ul>
 * Everything after the split point runs on the router.
 *
 * @param shardPipeline what each shard runs
 * @param mergeSort     the sort spec the shards' streams are in and the router merges by, or null to concatenate
 * @param mergePipeline what the router runs on the merged stream (empty: the merged stream is the result)
 */
public record PipelineSplit(BsonArray shardPipeline, @Nullable BsonDocument mergeSort, BsonArray mergePipeline) {
    private static final Set<String> STREAMING = Set.of("$match", "$project", "$addFields", "$set", "$unset", "$unwind",
            "$replaceRoot", "$replaceWith");
    private static final Set<String> SELF_MERGING = Set.of("$sum", "$min", "$max", "$first", "$last");
    /** Prefix of the partial count field of a split {@code $avg}; {@code $} or {@code .} cannot appear in it. */
    static final String AVG_COUNT_PREFIX = "__avgCount_";

    public PipelineSplit {
        shardPipeline = Objects.requireNonNull(shardPipeline, "shardPipeline").clone();
        mergeSort = mergeSort == null ? null : mergeSort.clone();
        mergePipeline = Objects.requireNonNull(mergePipeline, "mergePipeline").clone();
    }

    /** Whether the router has stages to run after merging. */
    public boolean hasMergeStages() {
        return !mergePipeline.isEmpty();
    }

    /**
     * Runs {@link #mergePipeline} on the merged stream with the engine, streaming: its blocking stages ({@code $group}
     * merging the shards' partial groups, a {@code $sort}) keep to {@code limits} and spill past them. The output is
     * whole; {@code merged} is closed.
     *
     * @param source where a {@code $lookup} of the merge part reads other collections
     * @throws dev.shardstore.contracts.error.CommandException as the engine's stages do, 292 as {@link MemoryLimits} says
     */
    public List<BsonDocument> runMerge(Stream<BsonDocument> merged, CollectionSource source, CommandVariables variables, MemoryLimits limits) {
        Pipeline pipeline = Pipeline.parse(mergePipeline, source, variables, limits);
        Filter first = pipeline.scanFilter(); // a leading $match is the engine's scan filter, not one of its stages
        try (Stream<BsonDocument> output = pipeline.stream(first.isMatchAll() ? merged : merged.filter(first::matches))) {
            return output.toList();
        }
    }

    /**
     * Runs {@code stages} over {@code input} with the engine, on the router, with the command's {@code variables}
     * ({@code let}, {@code $$NOW} and the collation its string comparisons use, {@link CommandVariables#ofCommand}).
     *
     * @throws dev.shardstore.contracts.error.CommandException the pipeline's parse and evaluation errors
     */
    public static List<BsonDocument> run(BsonArray stages, List<BsonDocument> input, CollectionSource source,
            CommandVariables variables) {
        return Pipeline.parse(stages, source, variables).over(input);
    }

    /** The filter of {@code pipeline}'s leading {@code $match} (what targets the shards), else match-all. */
    public static BsonDocument leadingMatch(BsonArray pipeline) {
        if (!pipeline.isEmpty() && pipeline.get(0).isDocument() && pipeline.get(0).asDocument().isDocument("$match")) {
            return pipeline.get(0).asDocument().getDocument("$match");
        }
        return new BsonDocument();
    }

    /**
     * Parses {@code pipeline} with {@code variables} only to refuse it as a shard would (stage names and shapes,
     * expressions), so that the client gets the pipeline's errors before any shard is asked and {@link #of} only sees
     * pipelines of one-field stage documents. {@code $lookup} sources are not resolved.
     *
     * @throws dev.shardstore.contracts.error.CommandException the pipeline's parse errors
     */
    public static void validate(BsonArray pipeline, CommandVariables variables) {
        Pipeline.parse(pipeline, (collection, filter) -> List.of(), variables);
    }

    /**
     * Splits {@code pipeline}, whose stages are one-field documents (already validated by parsing it).
     */
    public static PipelineSplit of(BsonArray pipeline) {
        List<BsonDocument> stages = desugar(pipeline);
        List<BsonValue> shard = new ArrayList<>();
        List<BsonValue> merge = new ArrayList<>();
        BsonDocument sort = null;
        int i = 0;
        while (i < stages.size() && STREAMING.contains(name(stages.get(i)))) {
            shard.add(stages.get(i++));
        }
        if (i < stages.size()) {
            BsonDocument stage = stages.get(i);
            switch (name(stage)) {
                case "$sort" -> {
                    shard.add(stage);
                    sort = stage.getDocument("$sort");
                    i++;
                    addLimitBound(stages, i, shard);
                }
                case "$limit" -> shard.add(stage);
                case "$skip" -> addLimitBound(stages, i, shard);
                case "$group" -> {
                    List<BsonDocument> finalPhase = new ArrayList<>();
                    BsonDocument partial = partialGroup(stage.getDocument("$group"), finalPhase);
                    if (partial != null) {
                        shard.add(new BsonDocument("$group", partial));
                        merge.addAll(finalPhase);
                        i++;
                    }
                }
                default -> { } // must see all the data: runs on the router
            }
        }
        merge.addAll(stages.subList(i, stages.size()));
        return new PipelineSplit(new BsonArray(shard), sort, new BsonArray(merge));
    }

    private static String name(BsonDocument stage) {
        return stage.getFirstKey();
    }

    /** The value of the first field of {@code stage}: the argument of {@code {name: argument}}. */
    private static BsonValue argument(BsonDocument stage) {
        return stage.entrySet().iterator().next().getValue();
    }

    /** {@code $count} and {@code $sortByCount} as the stages they stand for (MongoDB's desugaring). */
    private static List<BsonDocument> desugar(BsonArray pipeline) {
        List<BsonDocument> out = new ArrayList<>();
        for (BsonValue v : pipeline) {
            BsonDocument stage = v.asDocument();
            BsonValue arg = argument(stage);
            switch (name(stage)) {
                case "$count" -> {
                    out.add(new BsonDocument("$group", new BsonDocument("_id", BsonNull.VALUE)
                            .append(arg.asString().getValue(), new BsonDocument("$sum", new BsonInt32(1)))));
                    out.add(new BsonDocument("$project", new BsonDocument("_id", new BsonInt32(0))));
                }
                case "$sortByCount" -> {
                    out.add(new BsonDocument("$group", new BsonDocument("_id", arg)
                            .append("count", new BsonDocument("$sum", new BsonInt32(1)))));
                    out.add(new BsonDocument("$sort", new BsonDocument("count", new BsonInt32(-1))));
                }
                default -> out.add(stage);
            }
        }
        return out;
    }

    /**
     * Adds {@code $limit: skips + limit} to the shard part when the stages from {@code from} on are {@code $skip}s
     * followed by a {@code $limit}: the merged stream never needs more than that many documents of one shard.
     */
    private static void addLimitBound(List<BsonDocument> stages, int from, List<BsonValue> shard) {
        long skipped = 0;
        for (int j = from; j < stages.size(); j++) {
            BsonDocument stage = stages.get(j);
            switch (name(stage)) {
                case "$skip" -> skipped += stage.getNumber("$skip").longValue();
                case "$limit" -> {
                    shard.add(new BsonDocument("$limit", new BsonInt64(skipped + stage.getNumber("$limit").longValue())));
                    return;
                }
                default -> {
                    return;
                }
            }
        }
    }

    /**
     * The shards' partial {@code $group} of {@code spec}, adding the router's final stages to {@code finalPhase};
     * null when an accumulator cannot be split.
     */
    private static @Nullable BsonDocument partialGroup(BsonDocument spec, List<BsonDocument> finalPhase) {
        BsonDocument partial = new BsonDocument("_id", spec.get("_id"));
        BsonDocument merged = new BsonDocument("_id", new BsonString("$_id"));
        BsonDocument averages = new BsonDocument();
        BsonArray counts = new BsonArray();
        for (Map.Entry<String, BsonValue> field : spec.entrySet()) {
            String name = field.getKey();
            if (name.equals("_id")) {
                continue;
            }
            BsonDocument accumulator = field.getValue().asDocument();
            String op = accumulator.getFirstKey();
            BsonValue arg = argument(accumulator);
            BsonString partialValue = new BsonString("$" + name);
            if (SELF_MERGING.contains(op)) {
                partial.append(name, new BsonDocument(op, arg));
                merged.append(name, new BsonDocument(op, partialValue));
            } else if (op.equals("$count")) {
                partial.append(name, new BsonDocument("$sum", new BsonInt32(1)));
                merged.append(name, new BsonDocument("$sum", partialValue));
            } else if (op.equals("$avg")) {
                String count = AVG_COUNT_PREFIX + name;
                partial.append(name, new BsonDocument("$sum", arg));
                partial.append(count, new BsonDocument("$sum", new BsonDocument("$cond",
                        new BsonArray(List.of(isNumber(arg), new BsonInt32(1), new BsonInt32(0))))));
                merged.append(name, new BsonDocument("$sum", partialValue));
                merged.append(count, new BsonDocument("$sum", new BsonString("$" + count)));
                averages.append(name, new BsonDocument("$cond", new BsonArray(List.of(
                        new BsonDocument("$eq", new BsonArray(List.of(new BsonString("$" + count), new BsonInt32(0)))),
                        BsonNull.VALUE,
                        new BsonDocument("$divide", new BsonArray(List.of(partialValue, new BsonString("$" + count))))))));
                counts.add(new BsonString(count));
            } else {
                return null;
            }
        }
        finalPhase.add(new BsonDocument("$group", merged));
        if (!averages.isEmpty()) {
            finalPhase.add(new BsonDocument("$addFields", averages));
            finalPhase.add(new BsonDocument("$unset", counts));
        }
        return partial;
    }

    /**
     * Whether {@code arg} evaluates to a number, as {@code $avg} counts values: numbers sort after null (and
     * missing) and before every string in BSON order.
     */
    private static BsonDocument isNumber(BsonValue arg) {
        return new BsonDocument("$and", new BsonArray(List.of(
                new BsonDocument("$gt", new BsonArray(List.of(arg, BsonNull.VALUE))),
                new BsonDocument("$lt", new BsonArray(List.of(arg, new BsonString("")))))));
    }
}
