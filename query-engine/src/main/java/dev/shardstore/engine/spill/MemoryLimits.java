package dev.shardstore.engine.spill;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.util.Locale;
import java.util.Objects;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * The memory budgets of one command's blocking stages and whether they may spill (docs/architecture.md "Memory limits";
 * MongoDB manual, "allowDiskUse"). Over its budget a stage writes what it holds to {@code spill} when
 * {@code allowDiskUse}, and otherwise fails with QueryExceededMemoryLimitNoDiskUseAllowed (292).
 *
 * @param sortBytes    most bytes of documents a blocking sort holds ({@code internalQueryMaxBlockingSortMemoryUsageBytes}), &gt; 0
 * @param groupBytes   most bytes of groups {@code $group} holds ({@code internalDocumentSourceGroupMaxMemoryBytes}), &gt; 0
 * @param allowDiskUse whether a stage over its budget spills instead of failing
 * @param spill        where spill files go; required when {@code allowDiskUse}
 * @param interruption what the stages check as they go, to stop when the operation is killed or out of time
 * @param pool         the service's memory of all blocking stages together ({@link MemoryPool})
 */
public record MemoryLimits(long sortBytes, long groupBytes, boolean allowDiskUse, @Nullable SpillDirectory spill, Interruption interruption,
        MemoryPool pool) {
    /**
     * No budget: everything in memory, as the pipelines that merge already-small results run (the router's merge of
     * shard results that are themselves under budget, pipeline updates, view resolution).
     */
    public static final MemoryLimits UNLIMITED = new MemoryLimits(Long.MAX_VALUE, Long.MAX_VALUE, false, null, Interruption.NONE,
            MemoryPool.UNBOUNDED);

    /**
     * The limits of {@code command}: its {@code allowDiskUse} (a boolean), else {@code allowDiskUseByDefault}, its stages
     * checking {@code interruption}.
     *
     * @throws CommandException TypeMismatch (14) for an {@code allowDiskUse} that is not a boolean
     */
    public static MemoryLimits forCommand(BsonDocument command, long sortBytes, long groupBytes, boolean allowDiskUseByDefault,
            SpillDirectory spill, Interruption interruption, MemoryPool pool) {
        BsonValue allowDiskUse = command.get("allowDiskUse");
        if (allowDiskUse != null && !allowDiskUse.isBoolean()) {
            throw new CommandException(ErrorCode.TypeMismatch, "BSON field 'allowDiskUse' is the wrong type '"
                    + allowDiskUse.getBsonType().name().toLowerCase(Locale.ROOT) + "', expected type 'bool'");
        }
        return new MemoryLimits(sortBytes, groupBytes, allowDiskUse == null ? allowDiskUseByDefault : allowDiskUse.asBoolean().getValue(), spill,
                interruption, pool);
    }

    /** Limits whose stages share no pool (tests, and stages that hold what another stage already bounded). */
    public MemoryLimits(long sortBytes, long groupBytes, boolean allowDiskUse, @Nullable SpillDirectory spill, Interruption interruption) {
        this(sortBytes, groupBytes, allowDiskUse, spill, interruption, MemoryPool.UNBOUNDED);
    }

    public MemoryLimits {
        if (sortBytes <= 0 || groupBytes <= 0) {
            throw new IllegalArgumentException("memory budgets must be positive, were " + sortBytes + " and " + groupBytes);
        }
        Objects.requireNonNull(interruption, "interruption");
        Objects.requireNonNull(pool, "pool");
        if (allowDiskUse && spill == null) {
            throw new IllegalArgumentException("allowDiskUse needs a spill directory");
        }
    }
}
