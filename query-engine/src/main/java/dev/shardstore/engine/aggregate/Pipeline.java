package dev.shardstore.engine.aggregate;

import dev.shardstore.engine.aggregate.expression.CommandVariables;
import dev.shardstore.engine.spill.MemoryLimits;
import dev.shardstore.engine.query.Filter;
import java.util.List;
import java.util.stream.Stream;
import org.bson.BsonArray;
import org.bson.BsonDocument;

/**
 * A parsed aggregation pipeline (MongoDB manual, "Aggregation Pipeline"): {@code [{$stage: <argument>}, ...]}
 * with the stages of {@link PipelineParser}. A leading {@code $match} becomes the {@link #scanFilter()} the
 * caller reads the collection with (so an index planner can use it); the remaining stages run over what the scan
 * returns, streaming, their blocking stages within the command's {@link MemoryLimits}. Immutable and thread-safe.
 */
public final class Pipeline {
    private final Filter scanFilter;
    private final List<Stage> stages;
    private final boolean readsOtherCollections;

    private Pipeline(Filter scanFilter, List<Stage> stages, boolean readsOtherCollections) {
        this.scanFilter = scanFilter;
        this.stages = stages;
        this.readsOtherCollections = readsOtherCollections;
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
        return parse(pipeline, source, variables, MemoryLimits.UNLIMITED);
    }

    /**
     * Parses a pipeline whose blocking stages ({@code $sort}, {@code $group}) keep to {@code limits}.
     *
     * @param source where {@code $lookup} reads
     * @throws dev.shardstore.contracts.error.CommandException as {@link PipelineParser} and the stages describe
     */
    public static Pipeline parse(BsonArray pipeline, CollectionSource source, CommandVariables variables, MemoryLimits limits) {
        PipelineParser parser = new PipelineParser(source, variables, limits);
        List<Stage> stages = parser.parse(pipeline);
        if (!stages.isEmpty() && stages.getFirst() instanceof MatchStage match) {
            return new Pipeline(match.filter(), List.copyOf(stages.subList(1, stages.size())), parser.readsCollections());
        }
        return new Pipeline(Filter.matchAll(), List.copyOf(stages), parser.readsCollections());
    }

    /**
     * Whether reading the output reads other collections through the {@link CollectionSource} ({@code $lookup}, also
     * inside {@code $facet}): then the output reads the database for as long as it is read, not only the scan.
     */
    public boolean readsOtherCollections() {
        return readsOtherCollections;
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
        return Stages.run(stages, scanned);
    }

    /**
     * Runs the whole pipeline, its leading {@code $match} included, over {@code input} as its documents: what is not a
     * collection's scan ({@code $documents}, {@code $currentOp}'s listing, the shards' results a router merges).
     */
    public List<BsonDocument> over(List<BsonDocument> input) {
        return run(scanFilter.isMatchAll() ? input : input.stream().filter(scanFilter::matches).toList());
    }

    /**
     * Runs the stages after the leading {@code $match} over a stream of the scanned documents. The caller closes the
     * output (which closes {@code scanned}), on every exit path: that deletes the spill files of its blocking stages.
     *
     * @param scanned the collection's documents that match {@link #scanFilter()}, in scan order
     * @throws dev.shardstore.contracts.error.CommandException QueryExceededMemoryLimitNoDiskUseAllowed (292) when a blocking
     *                                                         stage is over its budget without disk use, and the
     *                                                         stages' evaluation errors (now or while reading)
     */
    public Stream<BsonDocument> stream(Stream<BsonDocument> scanned) {
        return Stages.chain(stages, scanned);
    }
}
