package dev.shardstore.engine.aggregate;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.engine.aggregate.expression.CommandVariables;
import dev.shardstore.engine.spill.MemoryLimits;
import java.util.List;
import java.util.Set;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * The pipeline of a pipeline-style update (MongoDB manual, "Updates with Aggregation Pipeline"): {@code u: [<stage>,
 * ...]} with only {@code $addFields}/{@code $set}, {@code $project}/{@code $unset} and
 * {@code $replaceRoot}/{@code $replaceWith}, run on one document at a time, their expressions seeing the command's
 * variables ({@code $$NOW}, {@code let}). The caller ({@link dev.shardstore.engine.query.Update}) applies the
 * replacement rules to the result ({@code _id} kept when the result has none, immutable otherwise). Immutable and
 * thread-safe.
 *
 * <p>Errors: InvalidOptions (72) "$group is not allowed to be used within an update" for any other known stage
 * (MongoDB's {@code PipelineExecutor}); the parse errors of {@link PipelineParser} (an unknown stage is
 * Location40324) and of the stages.
 */
public final class UpdatePipeline {
    private static final Set<String> ALLOWED = Set.of("$addFields", "$set", "$project", "$unset", "$replaceRoot", "$replaceWith");
    private static final CollectionSource NO_COLLECTIONS = (collection, filter) -> List.of();

    private final List<Stage> stages;

    private UpdatePipeline(List<Stage> stages) {
        this.stages = stages;
    }

    /**
     * Parses an update pipeline.
     *
     * @throws CommandException as listed on the class
     */
    public static UpdatePipeline parse(BsonArray pipeline, CommandVariables variables) {
        List<Stage> stages = new PipelineParser(NO_COLLECTIONS, variables, MemoryLimits.UNLIMITED).parse(pipeline);
        for (BsonValue stage : pipeline) {
            String name = stage.asDocument().getFirstKey();
            if (!ALLOWED.contains(name)) {
                throw new CommandException(ErrorCode.InvalidOptions, name + " is not allowed to be used within an update");
            }
        }
        return new UpdatePipeline(List.copyOf(stages));
    }

    /**
     * The document the stages make of {@code doc}, which is not modified.
     *
     * @throws CommandException the stages' evaluation errors (e.g. a {@code $replaceWith} that is not a document)
     */
    public BsonDocument apply(BsonDocument doc) {
        return Stages.run(stages, List.of(doc)).getFirst();
    }
}
