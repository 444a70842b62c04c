package dev.shardstore.engine.aggregate;

import java.util.stream.Stream;
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
    public Stream<BsonDocument> apply(Stream<BsonDocument> input) {
        return input.filter(filter::matches);
    }
}
