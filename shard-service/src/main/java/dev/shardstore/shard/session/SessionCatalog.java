package dev.shardstore.shard.session;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.session.LogicalSessionId;
import dev.shardstore.shard.ShardProperties;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.springframework.stereotype.Component;

/**
 * The shard's logical session catalog (mongo/src/mongo/db/s/README.md "The logical session catalog"): the runtime state of every session
 * that ran a retryable write here, and the checkout that serializes them — a command with an {@code lsid} and a
 * {@code txnNumber} checks its session out before it runs and back in when it is done, so two commands of one session
 * never run at once on this shard; a second one waits (first come, first served) for at most the checkout timeout.
 *
 * <p>Runtime state per session: the highest {@code txnNumber} started here (which can be above the one in the
 * {@code transactions} table when a transaction number wrote nothing), the last checkout time and the number of
 * waiters. {@link #reap} removes the entries of sessions that are gone from the sessions collection and were not checked
 * out since a cutoff (mongo/src/mongo/db/s/README.md "Periodic cleanup of the session catalog and transactions table": the logical session cache's reap, steps 1 and 2). Thread-safe.
 */
@Component
public class SessionCatalog {
    private final ConcurrentHashMap<LogicalSessionId, RuntimeSession> sessions = new ConcurrentHashMap<>();
    private final Duration checkoutTimeout;

    public SessionCatalog(ShardProperties properties) {
        this.checkoutTimeout = properties.sessionCheckoutTimeout();
    }

    /**
     * Checks {@code lsid} out, waiting for at most the configured checkout timeout ({@code
     * shardstore.shard.session-checkout-timeout}).
     *
     * @throws CommandException MaxTimeMSExpired (50) when the session stays checked out by another command
     */
    public CheckedOutSession checkOut(LogicalSessionId lsid) {
        return checkOut(lsid, checkoutTimeout);
    }

    /**
     * Checks {@code lsid} out, waiting for at most {@code timeout}; close the result to check it back in.
     *
     * @throws CommandException MaxTimeMSExpired (50) when the session stays checked out by another command, or the
     *                          thread is interrupted while waiting
     */
    public CheckedOutSession checkOut(LogicalSessionId lsid, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            RuntimeSession session = sessions.computeIfAbsent(lsid, k -> new RuntimeSession());
            try {
                if (!session.lock.tryLock(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                    throw new CommandException(ErrorCode.MaxTimeMSExpired, "session " + lsid + " is checked out by another operation;"
                            + " it was not checked in within " + timeout.toMillis() + " ms");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CommandException(ErrorCode.MaxTimeMSExpired, "interrupted while waiting to check out session " + lsid, e);
            }
            if (sessions.get(lsid) != session) { // reaped while this command waited: check out the entry that replaced it
                session.lock.unlock();
                continue;
            }
            session.lastCheckOut = Instant.now();
            return new CheckedOutSession(lsid, session);
        }
    }

    /**
     * Removes the entries of sessions last checked out before {@code cutoff} that nobody holds or waits for and that
     * {@code stillStored} does not name (ended or expired); the number removed. An entry is removed while its lock is
     * held, and a command that was waiting for it checks out the new entry instead, so two commands of one session are
     * never let through at once.
     */
    public int reap(Instant cutoff, Function<Collection<LogicalSessionId>, Set<LogicalSessionId>> stillStored) {
        List<LogicalSessionId> idle = sessions.entrySet().stream()
                .filter(e -> e.getValue().lastCheckOut.isBefore(cutoff) && !e.getValue().lock.isLocked() && !e.getValue().lock.hasQueuedThreads())
                .map(Map.Entry::getKey).toList();
        if (idle.isEmpty()) {
            return 0;
        }
        Set<LogicalSessionId> alive = stillStored.apply(idle);
        int removed = 0;
        for (LogicalSessionId lsid : idle) {
            RuntimeSession session = sessions.get(lsid);
            if (alive.contains(lsid) || session == null || !session.lock.tryLock()) {
                continue;
            }
            try {
                if (session.lastCheckOut.isBefore(cutoff) && !session.lock.hasQueuedThreads() && sessions.remove(lsid, session)) {
                    removed++;
                }
            } finally {
                session.lock.unlock();
            }
        }
        return removed;
    }

    /** Sessions with an entry. */
    public int size() {
        return sessions.size();
    }

    /** How many commands wait to check out {@code lsid} (a diagnostic, and what a reap must not remove). */
    public int waiters(LogicalSessionId lsid) {
        RuntimeSession session = sessions.get(lsid);
        return session == null ? 0 : session.lock.getQueueLength();
    }

    /** A session's runtime state; its fields are read and written only by the thread holding its lock. */
    static final class RuntimeSession {
        final ReentrantLock lock = new ReentrantLock(true);
        long activeTxnNumber = -1;
        Instant lastCheckOut = Instant.EPOCH;
    }

    /** A session checked out by the current command; {@link #close} checks it back in. Used by one thread. */
    public static final class CheckedOutSession implements AutoCloseable {
        private final LogicalSessionId lsid;
        private final RuntimeSession session;
        private boolean closed;

        CheckedOutSession(LogicalSessionId lsid, RuntimeSession session) {
            this.lsid = lsid;
            this.session = session;
        }

        public LogicalSessionId lsid() {
            return lsid;
        }

        /** The highest transaction number started on this shard since it started, -1 for none. */
        public long activeTxnNumber() {
            return session.activeTxnNumber;
        }

        /** Makes {@code txnNumber} the session's active transaction number. */
        public void begin(long txnNumber) {
            session.activeTxnNumber = txnNumber;
        }

        @Override
        public void close() {
            if (!closed) {
                closed = true;
                session.lock.unlock();
            }
        }
    }
}
