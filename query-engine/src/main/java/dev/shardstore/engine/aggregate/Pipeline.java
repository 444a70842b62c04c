package dev.shardstore.engine.aggregate;

import dev.shardstore.engine.aggregate.expression.CommandVariables;
import dev.shardstore.engine.aggregate.expression.CommandVariables;
import dev.shardstore.engine.query.Filter;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonDocument;

/**
 * A parsed aggregation pipeline (MongoDB manual, "Aggregation Pipeline"): {@code [{$stage: <argument>}, ...]}
 * with the stages of {@link PipelineParser}. A leading {@code $match} becomes the {@link #scanFilter()} the
 * caller reads the collection with (so an index planner can use it); the remaining stages run in memory over
 * what the scan returns. Immutable and thread-safe.
 */
public final class Pipeline {
    private final Filter scanFilter;
    private final List<Stage> stages;

    private Pipeline(Filter scanFilter, List<Stage> stages) {
        this.scanFilter = scanFilter;
        this.stages = stages;
    }

    /**
     * Parses the pipeline of a command without {@code let} ({@code $$NOW} is taken now).
     *
     * @param source where {@code $lookup} reads other collections
     * @throws dev.shardstore.contracts.error.CommandException as {@link PipelineParser} and the stages describe
     */
    public static Pipeline parse(BsonArray pipeline, CollectionSource source) {
        return parse(pipeline, source, CommandVariables.withoutLet());
    }

    /**
     * Parses a pipeline whose expressions (and the {@code $expr} of its {@code $match}es) see the command's
     * {@code variables}.
     *
     * @param source where {@code $lookup} reads other collections
     * @throws dev.shardstore.contracts.error.CommandException as {@link PipelineParser} and the stages describe
     */
    public static Pipeline parse(BsonArray pipeline, CollectionSource source, CommandVariables variables) {
        List<Stage> stages = new PipelineParser(source, variables).parse(pipeline);
        if (!stages.isEmpty() && stages.getFirst() instanceof MatchStage match) {
            return new Pipeline(match.filter(), List.copyOf(stages.subList(1, stages.size())));
        }
        return new Pipeline(Filter.matchAll(), List.copyOf(stages));
    }

    /** The filter of a leading {@code $match}, or match-all: the documents the pipeline reads. */
    public Filter scanFilter() {
        return scanFilter;
    }

    /**
     * Runs the stages after the leading {@code $match}.
     *
     * @param scanned the collection's documents that match {@link #scanFilter()}, in scan order
     */
    public List<BsonDocument> run(List<BsonDocument> scanned) {
        return Stages.chain(stages, scanned);
    }
}
