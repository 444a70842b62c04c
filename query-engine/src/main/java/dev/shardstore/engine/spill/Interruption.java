package dev.shardstore.engine.spill;

/**
 * How a blocking stage learns that its operation was killed ({@code killOp}) or ran out of time ({@code maxTimeMS}):
 * {@link #check()} throws then, MongoDB's {@code checkForInterrupt}. {@link MemoryLimits} carries it to the stages; an
 * {@link ExternalSorter} checks it every {@value ExternalSorter#CHECK_INTERVAL} documents it adds or merges, and
 * {@code $group} every as many documents it reads. The shard passes its operation context's
 * {@code checkForInterrupt}; the engine itself knows no operations.
 */
@FunctionalInterface
public interface Interruption {
    /** Never interrupted: the pipelines that run on what is already in memory. */
    Interruption NONE = () -> { };

    /**
     * Throws once the operation is to stop.
     *
     * @throws dev.shardstore.contracts.error.CommandException Interrupted (11601), MaxTimeMSExpired (50), as the service
     *                                                         decides
     */
    void check();

    /**
     * Called by a sorter once its runs are written and before it merges them (a spill file of it exists): by default
     * {@link #check()}; a service may hold the operation here first (the shard's fail point {@code spill.beforeMerge},
     * so that a test can kill an operation while its files exist).
     */
    default void beforeMerge() {
        check();
    }
}
