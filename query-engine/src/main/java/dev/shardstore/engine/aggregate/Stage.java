package dev.shardstore.engine.aggregate;

import java.util.List;
import org.bson.BsonDocument;

/**
 * One parsed aggregation pipeline stage (MongoDB manual, "Aggregation Stages"): turns the documents coming
 * out of the previous stage into its own output. Stages work on in-memory lists; they do not modify their
 * input documents. Implementations are immutable and thread-safe.
 */
@FunctionalInterface
public interface Stage {
    /**
     * Runs the stage.
     *
     * @throws dev.shardstore.contracts.error.CommandException when an expression fails on a document
     */
    List<BsonDocument> apply(List<BsonDocument> input);
}
