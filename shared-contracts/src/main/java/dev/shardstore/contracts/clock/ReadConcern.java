package dev.shardstore.contracts.clock;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.util.Locale;
import java.util.Map;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * A command's {@code readConcern: {level?, afterClusterTime?}} (mongo/src/mongo/db/s/README.md "Causal consistency in sessions"), parsed and
 * validated in one place for the router and the shards.
 *
 * @param level            the level; {@link Level#LOCAL} when none is given
 * @param afterClusterTime the cluster time whose writes the read must see, or null
 * @param atClusterTime    for level snapshot, the cluster time whose state the read serves (every write at or before
 *                         it, none after); null otherwise, or when the server is to choose it
 */
public record ReadConcern(Level level, @Nullable BsonTimestamp afterClusterTime, @Nullable BsonTimestamp atClusterTime) {
    /** The field of a command. */
    public static final String FIELD = "readConcern";
    /** What no read concern means. */
    public static final ReadConcern DEFAULT = new ReadConcern(Level.LOCAL, null, null);
    /** The field of a snapshot read concern naming its time, also the field of a reply that says it. */
    public static final String AT_CLUSTER_TIME = "atClusterTime";

    /** MongoDB's read concern levels, by their spelling in commands. */
    public enum Level {
        LOCAL, AVAILABLE, MAJORITY, LINEARIZABLE, SNAPSHOT;

        /** The spelling in a command ({@code "local"}). */
        public String spelling() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public ReadConcern {
        if (level == null) {
            throw new IllegalArgumentException("level is required");
        }
        if (atClusterTime != null && level != Level.SNAPSHOT) {
            throw new IllegalArgumentException("atClusterTime goes with level snapshot only");
        }
    }

    /** Whether this is a snapshot read ({@code level: "snapshot"}). */
    public boolean isSnapshot() {
        return level == Level.SNAPSHOT;
    }

    /**
     * The read concern of {@code command} ({@link #DEFAULT} without one). The levels served are local, available and
     * majority, which on single-node shards all read the committed data, and snapshot (a transaction's, or a find,
     * aggregate or distinct's: the state at {@code atClusterTime}); {@code afterClusterTime} works with local,
     * majority and snapshot, as in MongoDB.
     *
     * @throws CommandException naming the field: TypeMismatch (14) for a value of the wrong type; BadValue (2) for an
     *                          unknown level; NotImplemented (238) for linearizable; InvalidOptions (72) for
     *                          {@code afterClusterTime} with level available, for {@code atClusterTime} without level
     *                          snapshot and for both times together; Location40415 for an unknown field;
     *                          InvalidOptions (72) for an aggregate with {@code $out} or {@code $merge} under
     *                          linearizable ({@link WriteStageReadConcern})
     */
    public static ReadConcern of(BsonDocument command) {
        WriteStageReadConcern.check(command);
        BsonValue value = command.get(FIELD);
        if (value == null) {
            return DEFAULT;
        }
        if (!value.isDocument()) {
            throw new CommandException(ErrorCode.TypeMismatch, "'readConcern' must be a document, not " + value);
        }
        Level level = Level.LOCAL;
        BsonTimestamp after = null;
        BsonTimestamp at = null;
        for (Map.Entry<String, BsonValue> field : value.asDocument().entrySet()) {
            BsonValue v = field.getValue();
            switch (field.getKey()) {
                case "level" -> level = level(v);
                case "afterClusterTime" -> {
                    if (!v.isTimestamp()) {
                        throw new CommandException(ErrorCode.TypeMismatch, "'readConcern.afterClusterTime' must be a Timestamp, not " + v);
                    }
                    after = v.asTimestamp();
                }
                case "provenance" -> { }
                case AT_CLUSTER_TIME -> {
                    if (!v.isTimestamp()) {
                        throw new CommandException(ErrorCode.TypeMismatch, "'readConcern.atClusterTime' must be a Timestamp, not " + v);
                    }
                    at = v.asTimestamp();
                }
                default -> throw new CommandException(ErrorCode.Location40415, "BSON field 'readConcern." + field.getKey() + "' is an unknown field.");
            }
        }
        if (after != null && level == Level.AVAILABLE) {
            throw new CommandException(ErrorCode.InvalidOptions, "'readConcern.afterClusterTime' is not allowed with level 'available'");
        }
        if (at != null && level != Level.SNAPSHOT) {
            throw new CommandException(ErrorCode.InvalidOptions, "'readConcern.atClusterTime' is only valid with level 'snapshot'");
        }
        if (at != null && after != null) {
            throw new CommandException(ErrorCode.InvalidOptions, "'readConcern' may not give both afterClusterTime and atClusterTime");
        }
        return new ReadConcern(level, after, at);
    }

    private static Level level(BsonValue v) {
        if (!(v instanceof BsonString s)) {
            throw new CommandException(ErrorCode.TypeMismatch, "'readConcern.level' must be a string, not " + v);
        }
        for (Level level : Level.values()) {
            if (level.spelling().equals(s.getValue())) {
                return switch (level) {
                    case LINEARIZABLE -> throw new CommandException(ErrorCode.NotImplemented,
                            "'readConcern.level' \"linearizable\" is not supported: use \"majority\"");
                    default -> level;
                };
            }
        }
        throw new CommandException(ErrorCode.BadValue, "'readConcern.level' \"" + s.getValue()
                + "\" is not a read concern level (local, available, majority, linearizable, snapshot)");
    }
}
