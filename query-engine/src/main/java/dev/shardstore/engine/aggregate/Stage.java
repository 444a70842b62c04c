package dev.shardstore.engine.aggregate;

import java.util.stream.Stream;
import org.bson.BsonDocument;

/**
 * One parsed aggregation pipeline stage (MongoDB manual, "Aggregation Stages"): turns the documents coming
 * out of the previous stage into its own output. Documents stream through: a stage that needs its whole input (a
 * blocking one: {@code $sort}, {@code $group}) consumes it when applied, within its memory budget
 * ({@link dev.shardstore.engine.spill.MemoryLimits}), the others map the stream lazily. Stages do not modify their input
 * documents; a stage that holds resources (spill files) releases them when its output stream is closed, which closes
 * its input too. Implementations are immutable and thread-safe.
 */
@FunctionalInterface
public interface Stage {
    /**
     * Runs the stage.
     *
     * @throws dev.shardstore.contracts.error.CommandException when an expression fails on a document
     */
    Stream<BsonDocument> apply(Stream<BsonDocument> input);
}
