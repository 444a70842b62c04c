package dev.shardstore.contracts.clock;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.util.Set;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;

/**
 * The read concerns an aggregate that writes ({@code $out}, {@code $merge}) may run under, as MongoDB's stages declare
 * them (its {@code DocumentSourceOut} and {@code DocumentSourceMerge} refuse {@code linearizable} and
 * {@code snapshot}): a pipeline that writes cannot read linearizably or at a snapshot (its writes would land after the
 * time it read at). {@code local}, {@code available} and {@code majority} are accepted as for any aggregate.
 *
 * <p>Checked first when {@link ReadConcern#of} reads a command's read concern (the cluster time gossip of the router's
 * front end and of a shard, an operation's context) and before a command's options are checked (service-support's
 * {@code CommandRegistry}), so that this, MongoDB's answer, is what such an aggregate gets rather than the general
 * refusal of {@code linearizable}.
 */
public final class WriteStageReadConcern {
    private static final Set<String> WRITE_STAGES = Set.of("$out", "$merge");
    private static final Set<String> REFUSED_LEVELS = Set.of("linearizable", "snapshot");

    private WriteStageReadConcern() {}

    /**
     * Refuses an {@code aggregate} with a top-level {@code $out} or {@code $merge} stage under
     * {@code readConcern: {level: "linearizable"}} or {@code "snapshot"}; any other command (an empty one included)
     * passes.
     *
     * @throws CommandException InvalidOptions (72) "$out cannot be used with a 'linearizable' read concern level"
     *                          (or {@code $merge}, or {@code 'snapshot'}), MongoDB's code and message
     */
    public static void check(BsonDocument command) {
        if (command.isEmpty() || !command.getFirstKey().equals("aggregate")
                || !(command.get("readConcern") instanceof BsonDocument readConcern)
                || !(readConcern.get("level") instanceof BsonString level && REFUSED_LEVELS.contains(level.getValue()))
                || !(command.get("pipeline") instanceof BsonArray pipeline)) {
            return;
        }
        for (BsonValue stage : pipeline) {
            if (stage instanceof BsonDocument spec && !spec.isEmpty() && WRITE_STAGES.contains(spec.getFirstKey())) {
                throw new CommandException(ErrorCode.InvalidOptions, spec.getFirstKey() + " cannot be used with a '" + level.getValue()
                        + "' read concern level");
            }
        }
    }
}
