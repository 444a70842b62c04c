package dev.shardstore.shard.cursor;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.engine.spill.MemoryLimits;
import dev.shardstore.engine.spill.SpillDirectory;
import dev.shardstore.support.parameter.ServerParameters;
import java.nio.file.Path;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/**
 * The memory budgets of this shard's blocking sorts and groups (docs/architecture.md "Memory limits"): the server
 * parameters {@code internalQueryMaxBlockingSortMemoryUsageBytes} and {@code internalDocumentSourceGroupMaxMemoryBytes}
 * as they are when a command starts, its {@code allowDiskUse} (a boolean; absent: {@code allowDiskUseByDefault}), and
 * the shard's spill directory: {@code shardstore.spill.directory} when set (the local cluster gives each service one under
 * its home), else {@code <java.io.tmpdir>/shardstore-spill/<pid>} ({@link SpillDirectory#forProcess}). Either is emptied
 * of a previous process's files when the shard starts.
 */
@Component
public class MemoryBudgets {
    private final ServerParameters parameters;
    private final SpillDirectory spill;

    public MemoryBudgets(ServerParameters parameters, @Value("${shardstore.spill.directory:}") String directory) {
        this.parameters = parameters;
        this.spill = directory.isBlank() ? SpillDirectory.forProcess(Path.of(System.getProperty("java.io.tmpdir"), "shardstore-spill"))
                : SpillDirectory.open(Path.of(directory));
    }

    /**
     * The limits of {@code command}.
     *
     * @throws CommandException TypeMismatch (14) for an {@code allowDiskUse} that is not a boolean
     */
    public MemoryLimits of(BsonDocument command) {
        BsonValue allowDiskUse = command.get("allowDiskUse");
        if (allowDiskUse != null && !allowDiskUse.isBoolean()) {
            throw new CommandException(ErrorCode.TypeMismatch, "BSON field 'allowDiskUse' is the wrong type '"
                    + allowDiskUse.getBsonType().name().toLowerCase() + "', expected type 'bool'");
        }
        return limits(allowDiskUse == null ? null : allowDiskUse.asBoolean().getValue());
    }

    /** The limits of an operation that has no {@code allowDiskUse} of its own (an internal read, count, distinct). */
    public MemoryLimits defaults() {
        return limits(null);
    }

    /** The directory spill files go to. */
    public SpillDirectory spillDirectory() {
        return spill;
    }

    private MemoryLimits limits(@Nullable Boolean allowDiskUse) {
        boolean disk = allowDiskUse != null ? allowDiskUse : parameters.booleanValue(ServerParameters.ALLOW_DISK_USE_BY_DEFAULT);
        return new MemoryLimits(parameters.longValue(ServerParameters.SORT_MEMORY), parameters.longValue(ServerParameters.GROUP_MEMORY),
                disk, spill);
    }
}
