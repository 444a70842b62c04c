package dev.shardstore.engine.spill;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * The memory all blocking stages of a service hold together (docs/architecture.md "Memory limits"): each stage has its
 * own budget (MongoDB's per-stage parameters), and a spilling sorter also spills early once the stages together hold
 * more than this pool's capacity ({@code internalQueryMaxBlockingStagesMemoryBytes}, a quarter of the heap by default),
 * so that many concurrent sorts, each under its budget, cannot exhaust a small heap between them. MongoDB has no such
 * limit; its budgets count against the machine's memory, ours against a JVM heap a few times the budget.
 *
 * <p>Bytes are the stages' own estimates ({@link BsonSizes}, stored sizes). Thread-safe.
 */
public final class MemoryPool {
    /** A pool that is never full (a stage without spilling, tests). */
    public static final MemoryPool UNBOUNDED = new MemoryPool(() -> Long.MAX_VALUE);

    private final LongSupplier capacity;
    private final AtomicLong held = new AtomicLong();

    /** @param capacity the pool's capacity in bytes now (a server parameter, read at each take) */
    public MemoryPool(LongSupplier capacity) {
        this.capacity = capacity;
    }

    /**
     * Counts {@code bytes} more as held.
     *
     * @return whether the pool is still within its capacity
     */
    public boolean take(long bytes) {
        return held.addAndGet(bytes) <= capacity.getAsLong();
    }

    /** Counts {@code bytes} as released. */
    public void give(long bytes) {
        held.addAndGet(-bytes);
    }

    /** The bytes held now by every stage. */
    public long held() {
        return held.get();
    }
}
