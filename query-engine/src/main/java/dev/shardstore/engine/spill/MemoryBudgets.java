package dev.shardstore.engine.spill;

import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
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
    private final Consumer<Interruption> beforeMerge;
    private final MemoryPool pool;

    /**
     * @param sortBytes             the sort budget now, bytes
     * @param groupBytes            the {@code $group} budget now, bytes
     * @param allowDiskUseByDefault whether a command without {@code allowDiskUse} may spill
     * @param spill                 where spill files go
     * @param beforeMerge           what a sorter of a command does once its runs are written, before it merges them, given
     *                              the command's interruption (the shard's fail point {@code spill.beforeMerge}; nothing
     *                              on the router)
     * @param pool                  the memory of the service's blocking stages together
     */
    public MemoryBudgets(LongSupplier sortBytes, LongSupplier groupBytes, BooleanSupplier allowDiskUseByDefault, SpillDirectory spill,
            Consumer<Interruption> beforeMerge, MemoryPool pool) {
        this.pool = pool;
        this.sortBytes = sortBytes;
        this.groupBytes = groupBytes;
        this.allowDiskUseByDefault = allowDiskUseByDefault;
        this.spill = spill;
        this.beforeMerge = beforeMerge;
    }

    /**
     * The limits of {@code command} ({@link MemoryLimits#forCommand}), whose stages check {@code interruption} (the
     * operation's {@code checkForInterrupt}), and pass this service's {@code beforeMerge} before a sorter merges.
     *
     * @throws dev.shardstore.contracts.error.CommandException TypeMismatch (14) for an {@code allowDiskUse} that is not a boolean
     */
    public MemoryLimits of(BsonDocument command, Interruption interruption) {
        Interruption withHold = new Interruption() {
            @Override
            public void check() {
                interruption.check();
            }

            @Override
            public void beforeMerge() {
                beforeMerge.accept(interruption);
                interruption.check();
            }
        };
        return MemoryLimits.forCommand(command, sortBytes.getAsLong(), groupBytes.getAsLong(), allowDiskUseByDefault.getAsBoolean(), spill,
                withHold, pool);
    }

    /** The limits of an operation that has no {@code allowDiskUse} of its own (an internal read, count, distinct). */
    public MemoryLimits defaults(Interruption interruption) {
        return of(new BsonDocument(), interruption);
    }

    /** The memory of the service's blocking stages together. */
    public MemoryPool pool() {
        return pool;
    }

    /** The directory spill files go to. */
    public SpillDirectory spillDirectory() {
        return spill;
    }
}
