package dev.shardstore.engine.aggregate;

import dev.shardstore.engine.query.Filter;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * {@code {$match: <filter>}}: the documents the query filter matches ({@link Filter}, with find's
 * semantics and errors).
 *
 * @param filter the parsed filter
 */
record MatchStage(Filter filter) implements Stage {
    static Stage parse(BsonValue argument, PipelineParser pipelines) {
        return new MatchStage(Filter.parse(PipelineParser.document("$match", argument), pipelines.variables()));
    }

    @Override
    public List<BsonDocument> apply(List<BsonDocument> input) {
        return input.stream().filter(filter::matches).toList();
    }
}
