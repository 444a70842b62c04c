package dev.shardstore.engine.aggregate;

import java.util.List;
import org.bson.BsonDocument;

/** Running a sequence of stages, for the top-level pipeline, {@code $facet} and desugared stages. */
final class Stages {
    private Stages() {}

    /** The output of {@code stages} applied in order to {@code input}. */
    static List<BsonDocument> chain(List<Stage> stages, List<BsonDocument> input) {
        List<BsonDocument> documents = input;
        for (Stage stage : stages) {
            documents = stage.apply(documents);
        }
        return documents;
    }
}
