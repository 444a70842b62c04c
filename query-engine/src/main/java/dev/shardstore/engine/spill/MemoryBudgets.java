package dev.shardstore.engine.spill;

import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.bson.BsonDocument;

/**
 * A service's memory budgets for its blocking stages (docs/architecture.md "Memory limits"): the current values of
 * its server parameters {@code internalQueryMaxBlockingSortMemoryUsageBytes}, {@code internalDocumentSourceGroupMaxMemoryBytes}
 * and {@code allowDiskUseByDefault}, read when a command starts, and its spill directory. Thread-safe.
 */
public final class MemoryBudgets {
    private final LongSupplier sortBytes;
    private final LongSupplier groupBytes;
    private final BooleanSupplier allowDiskUseByDefault;
    private final SpillDirectory spill;

    /**
     * @param sortBytes             the sort budget now, bytes
     * @param groupBytes            the {@code $group} budget now, bytes
     * @param allowDiskUseByDefault whether a command without {@code allowDiskUse} may spill
     * @param spill                 where spill files go
     */
    public MemoryBudgets(LongSupplier sortBytes, LongSupplier groupBytes, BooleanSupplier allowDiskUseByDefault, SpillDirectory spill) {
        this.sortBytes = sortBytes;
        this.groupBytes = groupBytes;
        this.allowDiskUseByDefault = allowDiskUseByDefault;
        this.spill = spill;
    }

    /**
     * The limits of {@code command} ({@link MemoryLimits#forCommand}).
     *
     * @throws dev.shardstore.contracts.error.CommandException TypeMismatch (14) for an {@code allowDiskUse} that is not a boolean
     */
    public MemoryLimits of(BsonDocument command) {
        return MemoryLimits.forCommand(command, sortBytes.getAsLong(), groupBytes.getAsLong(), allowDiskUseByDefault.getAsBoolean(), spill);
    }

    /** The limits of an operation that has no {@code allowDiskUse} of its own (an internal read, count, distinct). */
    public MemoryLimits defaults() {
        return of(new BsonDocument());
    }

    /** The directory spill files go to. */
    public SpillDirectory spillDirectory() {
        return spill;
    }
}
