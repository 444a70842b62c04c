package dev.shardstore.support.catalog;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * A cache of catalog information per name (a database or a {@code db.coll} namespace) loaded from the config service on
 * demand, the shape of MongoDB's {@code ReadThroughCache} behind its {@code CatalogCache}: the router's database and
 * routing table caches and the shard's database and collection sharding state are each one of these. Thread-safe; its
 * lock is held for bookkeeping only, never while a load runs.
 *
 * <ul>
 *   <li>One load per name at a time: a {@link #refresh} while one runs joins it and gets its result or its error
 *       (the error is not cached: the next refresh loads again); one that comes after a stale mark made the running
 *       load outdated waits for it and loads again (MongoDB's cache re-runs a lookup invalidated while it runs).</li>
 *   <li>A load gets the last value (possibly stale, null when none) as the base of an incremental refresh.</li>
 *   <li>{@link #invalidate} forgets the name: a load already running does not store its (possibly older) result,
 *       and the next refresh starts a new load.</li>
 *   <li>{@link #markStale} keeps the value (as the next load's base) but no longer {@link #fresh}: a load that began
 *       before the mark stores its result, still stale, so the next use loads again.</li>
 *   <li>{@link #markStale(String, Function)} is stale until a value meeting a condition is stored: a mark the value
 *       already meets costs nothing, and a load running when the mark came makes the entry fresh if its result meets
 *       it (a catalog event announcing a version the running refresh brings).</li>
 *   <li>A load returning null stores nothing and forgets the value (a database that does not exist is not cached).</li>
 * </ul>
 *
 * @param <V> the cached value, immutable
 */
public final class CoalescingCache<V> {
    /** One name's slot; guarded by the cache's monitor. Removed (and so orphaned for a running load) by invalidate. */
    private static final class Slot<V> {
        @Nullable V value;
        /** Bumped by every unconditional stale mark; the value is fresh only if no mark came since its load began. */
        long marks;
        long freshAsOf = -1;
        /** What a value must meet to be fresh again, when a conditional mark is pending. */
        @Nullable Predicate<? super V> wanted;
        @Nullable CompletableFuture<@Nullable V> loading;
        /** {@link #marks} when the running load began. */
        long loadingSince;
    }

    private final Map<String, Slot<V>> slots = new HashMap<>();

    /** The value of {@code name} unless it is absent or stale. */
    public synchronized Optional<V> fresh(String name) {
        Slot<V> slot = slots.get(name);
        return slot != null && isFresh(slot) ? Optional.ofNullable(slot.value) : Optional.empty();
    }

    /** The value of {@code name} even when stale; empty when absent. */
    public synchronized Optional<V> last(String name) {
        Slot<V> slot = slots.get(name);
        return slot == null ? Optional.empty() : Optional.ofNullable(slot.value);
    }

    /** Whether {@code name} has a value that is stale. */
    public synchronized boolean isStale(String name) {
        Slot<V> slot = slots.get(name);
        return slot != null && slot.value != null && !isFresh(slot);
    }

    /** The fresh value of {@code name}, or the result of {@link #refresh} when there is none. */
    public @Nullable V get(String name, Function<@Nullable V, @Nullable V> load) {
        Optional<V> fresh = fresh(name);
        return fresh.isPresent() ? fresh.get() : refresh(name, load);
    }

    /**
     * Runs {@code load} (on the calling thread, given the last value of {@code name} or null) and stores its result, or
     * joins the load of {@code name} already running.
     *
     * @return the load's result; null when it found nothing to cache
     * @throws RuntimeException what {@code load} threw, to every caller that joined it
     */
    public @Nullable V refresh(String name, Function<@Nullable V, @Nullable V> load) {
        while (true) {
            Slot<V> slot;
            CompletableFuture<@Nullable V> mine = new CompletableFuture<>();
            CompletableFuture<@Nullable V> running;
            boolean current;
            long marks;
            @Nullable V base;
            synchronized (this) {
                slot = slots.computeIfAbsent(name, k -> new Slot<>());
                running = slot.loading;
                current = running != null && slot.loadingSince == slot.marks;
                if (running == null) {
                    slot.loading = mine;
                    slot.loadingSince = slot.marks;
                }
                marks = slot.marks;
                base = slot.value;
            }
            if (running != null && current) {
                return join(running); // outside the lock: the load needs it to store its result
            }
            if (running != null) {
                // it began before a stale mark: its result may be what the mark said is outdated; load again after it
                running.handle((value, error) -> null).join();
                continue;
            }
            return run(name, slot, mine, marks, base, load);
        }
    }

    private @Nullable V run(String name, Slot<V> slot, CompletableFuture<@Nullable V> mine, long marks, @Nullable V base,
            Function<@Nullable V, @Nullable V> load) {
        @Nullable V value;
        try {
            value = load.apply(base);
        } catch (RuntimeException e) {
            synchronized (this) {
                slot.loading = null;
                forgetIfEmpty(name, slot);
            }
            mine.completeExceptionally(e);
            throw e;
        }
        synchronized (this) {
            slot.loading = null;
            if (slots.get(name) == slot) { // not invalidated (nor replaced by put) while it ran
                slot.value = value;
                slot.freshAsOf = marks;
                forgetIfEmpty(name, slot);
            }
        }
        mine.complete(value);
        return value;
    }

    /** Forgets {@code name}: the next {@link #refresh} loads anew, and a load running now does not store its result. */
    public synchronized void invalidate(String name) {
        slots.remove(name);
    }

    /** {@link #invalidate}s every name {@code names} accepts (a dropped database's collections). */
    public synchronized void invalidateIf(Predicate<String> names) {
        slots.keySet().removeIf(names);
    }

    /** Marks {@code name} stale: its value stays the base of the next load, but is no longer {@link #fresh}. */
    public synchronized void markStale(String name) {
        Slot<V> slot = slots.get(name);
        if (slot != null) {
            slot.marks++;
        }
    }

    /**
     * Marks {@code name} stale until a value meeting a condition is stored. {@code until} is given the current value
     * (null when none) and answers the condition a value must meet to be fresh again, or null for an unconditional
     * {@link #markStale}; a condition the current value meets is no mark at all. Evaluated under the cache's lock, so
     * the decision and the mark see the same value.
     */
    public synchronized void markStale(String name, Function<@Nullable V, @Nullable Predicate<? super V>> until) {
        Slot<V> slot = slots.get(name);
        if (slot == null) {
            return;
        }
        Predicate<? super V> condition = until.apply(slot.value);
        if (condition == null) {
            slot.marks++;
        } else if (slot.value == null || !condition.test(slot.value)) {
            Predicate<? super V> before = slot.wanted;
            slot.wanted = before == null ? condition : v -> before.test(v) && condition.test(v);
        }
    }

    /** Stores {@code value} as {@code name}'s fresh value; a load already running does not overwrite it. */
    public synchronized void put(String name, V value) {
        Slot<V> slot = new Slot<>();
        slot.value = value;
        slot.freshAsOf = 0;
        slots.put(name, slot);
    }

    /** A sorted copy of the values, stale ones included. */
    public synchronized Map<String, V> snapshot() {
        Map<String, V> out = new TreeMap<>();
        slots.forEach((name, slot) -> {
            if (slot.value != null) {
                out.put(name, slot.value);
            }
        });
        return out;
    }

    /** Loaded, no unconditional mark since its load began, and meeting every pending conditional mark. */
    private boolean isFresh(Slot<V> slot) {
        if (slot.value == null) {
            return false;
        }
        if (slot.wanted != null && slot.wanted.test(slot.value)) {
            slot.wanted = null;
        }
        return slot.freshAsOf == slot.marks && slot.wanted == null;
    }

    private void forgetIfEmpty(String name, Slot<V> slot) {
        if (slot.value == null && slot.loading == null && slots.get(name) == slot) {
            slots.remove(name);
        }
    }

    private static <V> @Nullable V join(CompletableFuture<@Nullable V> running) {
        try {
            return running.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException cause) {
                throw cause;
            }
            throw e;
        }
    }
}
