package dev.shardstore.shard.cursor;

import dev.shardstore.support.operation.Deadline;
import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.shard.ShardProperties;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.support.parameter.ServerParameters;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
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
 * ({@link #anyMayReturn}; mongo/src/mongo/db/s/README.md "Orphan filtering"). A cursor leaving the manager is closed
 * ({@link ShardCursor#close()}: its spill files are deleted). Open cursors are capped per client and per service
 * ({@link #register}).
 */
@Component
public class CursorManager {
    private static final Logger log = LoggerFactory.getLogger(CursorManager.class);

    private final ConcurrentMap<Long, OpenCursor> open = new ConcurrentHashMap<>();
    /** Open cursors per client ({@link #clientOf}). */
    private final ConcurrentMap<String, Integer> perClient = new ConcurrentHashMap<>();
    /** Open cursors and those being registered, against the service's cap. */
    private final AtomicInteger reserved = new AtomicInteger();
    private final ServerParameters parameters;
    private final CollectionShardingRuntime runtime;
    private final long timeoutMillis;
    private final Clock clock;

    /**
     * @param clock what a cursor's idleness is measured on (the shard's {@code Clock} bean, the system clock; tests move
     *              theirs past the timeout instead of waiting it out)
     */
    public CursorManager(CollectionShardingRuntime runtime, ShardProperties properties, Clock clock, ServerParameters parameters) {
        this.runtime = runtime;
        this.parameters = parameters;
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
     * @throws CommandException OperationFailed (96) when the service or the client already holds as many open cursors as
     *                          {@code internalQueryMaxOpenCursors} / {@code internalQueryMaxOpenCursorsPerClient} allow; the
     *                          cursor is closed then
     */
    public long register(OperationContext opCtx, String ns, @Nullable Namespace collection, ShardCursor cursor) {
        OwnershipFilter filter = collection == null ? null : OperationShardingState.filterFor(opCtx, collection.full()).orElse(null);
        String client = clientOf(opCtx);
        reserve(client, cursor);
        OpenCursor entry = new OpenCursor(ns, collection, cursor, filter, opCtx.deadline().remainingNanos(), clock.millis(), client);
        while (true) {
            long id = ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE);
            if (open.putIfAbsent(id, entry) == null) {
                return id;
            }
        }
    }

    /**
     * The client a cursor counts against: its session ({@code lsid}), which drivers send with every command (implicit
     * sessions) and routers pass on; null for a command without one, whose cursors count only against the service's cap
     * (on a shard, such commands come from routers, which would otherwise all be one client).
     */
    private static @Nullable String clientOf(OperationContext opCtx) {
        return opCtx.session().map(s -> s.lsid().id().toString()).orElse(null);
    }

    /**
     * Counts one more cursor against the caps or refuses it. MongoDB caps neither (its cursors hold no memory but their
     * current batch); these cursors may hold a sorted result, so they are capped. MongoDB's error codes have no "too many
     * cursors" one; OperationFailed (96) is its code for an operation refused for a reason of its own, which the message
     * names, and no driver retries it.
     */
    private void reserve(@Nullable String client, ShardCursor cursor) {
        long serviceCap = parameters.longValue(ServerParameters.MAX_CURSORS);
        int before = reserved.getAndUpdate(count -> count < serviceCap ? count + 1 : count);
        if (before >= serviceCap) {
            cursor.close();
            throw new CommandException(ErrorCode.OperationFailed, "too many open cursors on this shard: " + before
                    + " are open and internalQueryMaxOpenCursors is " + serviceCap + "; exhaust or kill some (killCursors) first");
        }
        if (client != null) {
            long clientCap = parameters.longValue(ServerParameters.MAX_CURSORS_PER_CLIENT);
            boolean[] refused = {false};
            perClient.compute(client, (key, count) -> {
                int current = count == null ? 0 : count;
                if (current >= clientCap) {
                    refused[0] = true;
                    return count;
                }
                return current + 1;
            });
            if (refused[0]) {
                reserved.decrementAndGet();
                cursor.close();
                throw new CommandException(ErrorCode.OperationFailed, "too many open cursors for session " + client + " on this shard:"
                        + " internalQueryMaxOpenCursorsPerClient is " + clientCap + "; exhaust or kill some (killCursors) first");
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
                remove(id, entry);
            }
            return new CursorBatch(batch.documents(), batch.exhausted() ? 0 : id);
        } catch (RuntimeException e) {
            remove(id, entry);
            throw e;
        } finally {
            entry.lock.unlock();
            if (entry.closeWhenReleased) {
                closeIfFree(entry); // killed while this getMore read it
            }
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
            return entry != null && entry.ns.equals(ns) && remove(id, entry);
        }).toList();
        List<Long> notFound = ids.stream().filter(id -> !killed.contains(id)).toList();
        return new KillResult(killed, notFound);
    }

    /** Kills every cursor over {@code collection} (it is being dropped). */
    public void killCollection(Namespace collection) {
        open.forEach((id, entry) -> {
            if (collection.equals(entry.collection)) {
                remove(id, entry);
            }
        });
    }

    /** Kills every cursor of database {@code db}. */
    public void killDatabase(String db) {
        open.forEach((id, entry) -> {
            if (entry.ns.startsWith(db + ".")) {
                remove(id, entry);
            }
        });
    }

    /** Closes cursors idle for longer than the cursor timeout; a cursor serving a getMore is never idle. */
    @Scheduled(fixedDelayString = "${shardstore.shard.cursor-reap-interval:1m}")
    public void reapIdle() {
        long now = clock.millis();
        open.forEach((id, entry) -> {
            if (now - entry.lastUsedMillis > timeoutMillis && entry.lock.tryLock()) {
                try {
                    if (remove(id, entry)) {
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

    /**
     * Forgets cursor {@code id} if it is still {@code entry} and closes it (its spill files); a cursor being read by a
     * getMore is closed by that getMore's end instead, which finds it removed.
     *
     * @return whether this call removed it
     */
    private boolean remove(long id, OpenCursor entry) {
        if (!open.remove(id, entry)) {
            return false;
        }
        reserved.decrementAndGet();
        if (entry.client != null) {
            perClient.computeIfPresent(entry.client, (client, count) -> count == 1 ? null : count - 1);
        }
        entry.closeWhenReleased = true;
        closeIfFree(entry);
        return true;
    }

    /** Closes a removed cursor unless a getMore reads it (that getMore closes it when it ends); closing twice is harmless. */
    private static void closeIfFree(OpenCursor entry) {
        if (entry.lock.tryLock()) {
            try {
                entry.cursor.close();
            } finally {
                entry.lock.unlock();
            }
        }
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
        /** The client it counts against ({@link #clientOf}), null when none. */
        final @Nullable String client;
        /** Set when it is removed: whoever holds {@link #lock} last closes it. */
        volatile boolean closeWhenReleased;

        OpenCursor(String ns, @Nullable Namespace collection, ShardCursor cursor, @Nullable OwnershipFilter filter, long budgetNanos,
                long openedMillis, @Nullable String client) {
            this.client = client;
            this.budgetNanos = budgetNanos;
            this.ns = ns;
            this.lastUsedMillis = openedMillis;
            this.collection = collection;
            this.cursor = cursor;
            this.filter = filter;
        }
    }
}
