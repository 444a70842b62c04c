package dev.shardstore.engine.aggregate;

import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import java.util.Iterator;
import java.util.Spliterator;
import java.util.Spliterators;
import dev.shardstore.engine.spill.BsonSizes;
import dev.shardstore.engine.spill.MemoryLimits;
import dev.shardstore.engine.spill.SpillBuffer;
import dev.shardstore.engine.spill.SpillStats;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.bson.BsonArray;
import org.bson.BsonDocument;

/**
 * {@code {$facet: {<name>: [<stage>, ...], ...}}} (MongoDB manual, "$facet"): runs each sub-pipeline over the
 * same input and outputs one document whose fields are the sub-pipelines' results as arrays.
 *
 * <p>Errors: BadValue (2) for an empty {@code $facet} or a sub-pipeline containing {@code $facet}; the
 * sub-pipelines' own parse errors.
 */
final class FacetStage implements Stage {
    /** MongoDB's {@code internalQueryFacetMaxOutputDocSizeBytes}: the most a {@code $facet}'s one output document may be. */
    static final long MAX_OUTPUT_BYTES = 100L * 1024 * 1024;

    private final Map<String, List<Stage>> facets;
    private final MemoryLimits limits;

    private FacetStage(Map<String, List<Stage>> facets, MemoryLimits limits) {
        this.facets = facets;
        this.limits = limits;
    }

    static Stage parse(BsonDocument spec, PipelineParser pipelines) {
        if (spec.isEmpty()) {
            throw new CommandException(ErrorCode.BadValue, "the $facet specification must be a non-empty object");
        }
        Map<String, List<Stage>> facets = new LinkedHashMap<>();
        spec.forEach((name, pipeline) -> {
            if (pipeline.isArray() && pipeline.asArray().stream()
                    .anyMatch(s -> s.isDocument() && s.asDocument().containsKey("$facet"))) {
                throw new CommandException(ErrorCode.BadValue, "$facet is not allowed to be used within a $facet stage");
            }
            facets.put(name, pipelines.parse(pipeline));
        });
        return new FacetStage(facets, pipelines.limits());
    }

    /**
     * Every facet reads the whole input, so it is held once for all of them, within the sort budget
     * ({@link SpillBuffer}: past it in a spill file with disk use, else 292); the output document may be at most
     * {@value #MAX_OUTPUT_BYTES} bytes, as MongoDB's (4031700).
     */
    @Override
    public Stream<BsonDocument> apply(Stream<BsonDocument> input) {
        try (SpillBuffer all = new SpillBuffer("$facet", limits, new SpillStats())) {
            try (input) {
                input.forEachOrdered(all::add);
            }
            BsonDocument out = new BsonDocument();
            long bytes = 0;
            for (Map.Entry<String, List<Stage>> facet : facets.entrySet()) {
                BsonArray results = new BsonArray();
                try (Stream<BsonDocument> output = Stages.chain(facet.getValue(),
                        StreamSupport.stream(Spliterators.spliteratorUnknownSize(all.read(), Spliterator.ORDERED), false))) {
                    for (Iterator<BsonDocument> it = output.iterator(); it.hasNext(); ) {
                        BsonDocument result = it.next();
                        bytes += BsonSizes.ofDocument(result);
                        if (bytes > MAX_OUTPUT_BYTES) {
                            throw new CommandException(ErrorCode.Location4031700, "document constructed by $facet is over "
                                    + MAX_OUTPUT_BYTES + " bytes, which exceeds the limit of " + MAX_OUTPUT_BYTES + " bytes");
                        }
                        results.add(result);
                    }
                }
                out.put(facet.getKey(), results);
            }
            return Stream.of(out);
        }
    }
}
