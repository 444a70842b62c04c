package dev.shardstore.engine.aggregate;

import java.util.stream.Stream;
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
    private final Map<String, List<Stage>> facets;

    private FacetStage(Map<String, List<Stage>> facets) {
        this.facets = facets;
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
        return new FacetStage(facets);
    }

    @Override
    public Stream<BsonDocument> apply(Stream<BsonDocument> input) {
        // every facet reads the whole input, so it is held once for all of them
        List<BsonDocument> all;
        try (input) {
            all = input.toList();
        }
        BsonDocument out = new BsonDocument();
        facets.forEach((name, stages) -> out.put(name, new BsonArray(Stages.run(stages, all))));
        return Stream.of(out);
    }
}
