package dev.shardstore.shard.cursor;

import dev.shardstore.support.operation.Deadline;
import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.shard.ShardProperties;
import dev.shardstore.contracts.namespace.Namespace;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.ReentrantLock;
import org.bson.BsonDocument;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.annotation.Scheduled;
import dev.shardstore.shard.versioning.CollectionShardingRuntime;
import dev.shardstore.shard.versioning.OperationShardingState;
import dev.shardstore.shard.versioning.OwnershipFilter;
import org.springframework.stereotype.Component;

/**
 * The shard's open cursors (MongoDB's CursorManager): ids are random non-zero positive longs; a
 * cursor lives until it is exhausted, killed, fails, its collection is dropped, or it sees no getMore
 * for {@code shardstore.shard.cursor-timeout}. A getMore on a collection cursor holds the collection
 * in shared mode, so a concurrent drop waits for the batch; it is not versioned, so a critical section does not
 * block it (its cursor keeps the filtering metadata it was opened with). A cursor records that filtering metadata, so
 * that range deletion can wait for the cursors that may still return documents of a range this shard gave away
 * ({@link #anyMayReturn}; mongo/src/mongo/db/s/README.md "Orphan filtering").
 */
@Component
public class CursorManager {
    private static final Logger log = LoggerFactory.getLogger(CursorManager.class);

    private final ConcurrentMap<Long, OpenCursor> open = new ConcurrentHashMap<>();
    private final CollectionShardingRuntime runtime;
    private final long timeoutMillis;
    private final Clock clock;

    /**
     * @param clock what a cursor's idleness is measured on (the shard's {@code Clock} bean, the system clock; tests move
     *              theirs past the timeout instead of waiting it out)
     */
    public CursorManager(CollectionShardingRuntime runtime, ShardProperties properties, Clock clock) {
        this.runtime = runtime;
        this.timeoutMillis = properties.cursorTimeout().toMillis();
        this.clock = clock;
    }

    /**
     * Keeps {@code cursor} open for getMores.
     *
     * @param ns         the namespace of its results ({@code db.coll}, or {@code db.$cmd.listCollections})
     * @param opCtx      the operation that opened it: its getMores keep its filtering metadata and spend what is left
     *                   of its deadline
     * @param collection the collection it reads between batches, null when it reads nothing
     * @return the new cursor id
     */
    public long register(OperationContext opCtx, String ns, @Nullable Namespace collection, ShardCursor cursor) {
        OwnershipFilter filter = collection == null ? null : OperationShardingState.filterFor(opCtx, collection.full()).orElse(null);
        OpenCursor entry = new OpenCursor(ns, collection, cursor, filter, opCtx.deadline().remainingNanos(), clock.millis());
        while (true) {
            long id = ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE);
            if (open.putIfAbsent(id, entry) == null) {
                return id;
            }
        }
    }

    /**
     * The next batch of cursor {@code id}. An exhausted cursor is closed and reported with id 0; a
     * cursor whose batch fails is closed — also when it runs out of the {@code maxTimeMS} of the command that opened
     * it, which its getMores spend together (MaxTimeMSExpired, 50).
     *
     * @param ns the namespace the getMore names
     * @throws CommandException CursorNotFound (43) for an unknown, killed, timed-out or foreign cursor
     */
    public CursorBatch getMore(OperationContext opCtx, long id, String ns, long maxDocuments) {
        OpenCursor entry = open.get(id);
        if (entry == null || !entry.ns.equals(ns)) {
            throw new CommandException(ErrorCode.CursorNotFound, "cursor id " + id + " not found"
                    + (entry == null ? "" : ": it belongs to namespace " + entry.ns + ", not " + ns));
        }
        entry.lock.lock();
        try {
            if (open.get(id) != entry) {
                throw new CommandException(ErrorCode.CursorNotFound, "cursor id " + id + " was killed");
            }
            OperationContext batchCtx = opCtx.withDeadline(opCtx.deadline().within(entry.budgetNanos));
            Batch batch = entry.collection == null
                    ? entry.cursor.next(batchCtx, maxDocuments)
                    : runtime.shared(entry.collection, () -> entry.cursor.next(batchCtx, maxDocuments));
            entry.lastUsedMillis = clock.millis();
            if (entry.budgetNanos != Deadline.NONE) { // maxTimeMS is cumulative over a cursor's getMores
                entry.budgetNanos = batchCtx.deadline().remainingNanos();
            }
            if (batch.exhausted()) {
                open.remove(id, entry);
            }
            return new CursorBatch(batch.documents(), batch.exhausted() ? 0 : id);
        } catch (RuntimeException e) {
            open.remove(id, entry);
            throw e;
        } finally {
            entry.lock.unlock();
        }
    }

    /**
     * Kills cursors of namespace {@code ns} (MongoDB's killCursors).
     *
     * @return the ids killed and those not found (unknown, or of another namespace)
     */
    public KillResult kill(String ns, List<Long> ids) {
        List<Long> killed = ids.stream().filter(id -> {
            OpenCursor entry = open.get(id);
            return entry != null && entry.ns.equals(ns) && open.remove(id, entry);
        }).toList();
        List<Long> notFound = ids.stream().filter(id -> !killed.contains(id)).toList();
        return new KillResult(killed, notFound);
    }

    /** Kills every cursor over {@code collection} (it is being dropped). */
    public void killCollection(Namespace collection) {
        open.values().removeIf(entry -> collection.equals(entry.collection));
    }

    /** Kills every cursor of database {@code db}. */
    public void killDatabase(String db) {
        open.values().removeIf(entry -> entry.ns.startsWith(db + "."));
    }

    /** Closes cursors idle for longer than the cursor timeout; a cursor serving a getMore is never idle. */
    @Scheduled(fixedDelayString = "${shardstore.shard.cursor-reap-interval:1m}")
    public void reapIdle() {
        long now = clock.millis();
        open.forEach((id, entry) -> {
            if (now - entry.lastUsedMillis > timeoutMillis && entry.lock.tryLock()) {
                try {
                    if (open.remove(id, entry)) {
                        log.debug("cursor {} on {} timed out", id, entry.ns);
                    }
                } finally {
                    entry.lock.unlock();
                }
            }
        });
    }

    /**
     * Whether an open cursor over {@code collection} runs with filtering metadata under which this shard owns part of the
     * shard key range {@code [min, max)} (KeyStrings): it may still return documents of that range, so they must not be
     * deleted yet even though the shard no longer owns them. Cursors of unversioned commands (no filtering metadata)
     * do not count: they never filter orphans.
     */
    public boolean anyMayReturn(Namespace collection, byte[] min, byte[] max) {
        return open.values().stream().anyMatch(entry -> collection.equals(entry.collection) && entry.filter != null
                && entry.filter.table().overlapping(min, max).stream().anyMatch(chunk -> chunk.shard().equals(entry.filter.shard())));
    }

    /** Number of open cursors. */
    public int openCount() {
        return open.size();
    }

    /**
     * One batch handed out by a getMore.
     *
     * @param documents the batch
     * @param cursorId  the cursor's id, 0 when it is exhausted and closed
     */
    public record CursorBatch(List<BsonDocument> documents, long cursorId) {}

    /**
     * The outcome of a killCursors.
     *
     * @param killed   ids that were open and are now closed
     * @param notFound ids that were not open in the namespace
     */
    public record KillResult(List<Long> killed, List<Long> notFound) {}

    private static final class OpenCursor {
        final String ns;
        final @Nullable Namespace collection;
        final ShardCursor cursor;
        /** The filtering metadata the cursor's command ran with; null when it was not versioned. */
        final @Nullable OwnershipFilter filter;
        final ReentrantLock lock = new ReentrantLock();
        /** When the cursor was opened or its last getMore ended, in {@link Clock#millis()} of the manager's clock. */
        volatile long lastUsedMillis;
        /** What is left of the opening command's maxTimeMS for the getMores, or Deadline.NONE; under {@link #lock}. */
        long budgetNanos;

        OpenCursor(String ns, @Nullable Namespace collection, ShardCursor cursor, @Nullable OwnershipFilter filter, long budgetNanos,
                long openedMillis) {
            this.budgetNanos = budgetNanos;
            this.ns = ns;
            this.lastUsedMillis = openedMillis;
            this.collection = collection;
            this.cursor = cursor;
            this.filter = filter;
        }
    }
}
