package dev.shardstore.engine.aggregate;

import java.util.List;
import java.util.stream.Stream;
import org.bson.BsonDocument;

/** Running a sequence of stages, for the top-level pipeline, {@code $facet} and desugared stages. */
final class Stages {
    private Stages() {}

    /** The output of {@code stages} applied in order to {@code input}; closing it closes every stage's resources. */
    static Stream<BsonDocument> chain(List<Stage> stages, Stream<BsonDocument> input) {
        Stream<BsonDocument> documents = input;
        for (Stage stage : stages) {
            documents = stage.apply(documents);
        }
        return documents;
    }

    /** The whole output of {@code stages} over {@code input}, every stage's resources released. */
    static List<BsonDocument> run(List<Stage> stages, List<BsonDocument> input) {
        try (Stream<BsonDocument> output = chain(stages, input.stream())) {
            return output.toList();
        }
    }
}
