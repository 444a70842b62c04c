package dev.shardstore.transport.wire;

import java.io.Closeable;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * Time limits on blocking socket operations (connect, waiting for a message or a reply) without the socket's own
 * timeouts. The JDK switches a socket that has a read timeout, or that connected with a timeout, to non-blocking mode
 * for good, and from then on every read that finds no data yet is a failed read, a {@code poll} and a second read: the
 * issue-10 profile of a routed point read had that at a quarter of the router's CPU and a tenth of each shard's. Sockets
 * watched here stay blocking, so a read is one system call; a daemon thread closes the socket (or channel) of each
 * armed deadline that has passed, which makes the blocked operation fail, and {@link Deadline#expired()} then tells its
 * caller that the limit, not the peer, ended it.
 *
 * <p>The thread sleeps until the earliest armed deadline, or for {@link #HORIZON} when none is armed, and is woken only
 * by a deadline armed earlier than that. Each call site arms the same limit every time (a reply's, a connection's idle
 * limit), so a new deadline nearly always falls after the one the thread sleeps for, and the horizon keeps the long
 * limits of a connection that is armed and disarmed per message from waking it each time. (A sweep every 20 ms cost
 * each service 0.4–0.8% of a core when idle, and 2–3% of a shard's CPU under load; docs/benchmarks.md, round 8.) A
 * deadline fires as late as the scheduler wakes the thread. Thread-safe; one instance for the process
 * ({@link #shared()}).
 */
public final class SocketDeadlines {
    /** The longest the thread sleeps: when no deadline is armed, it looks again this much later. */
    static final Duration HORIZON = Duration.ofSeconds(1);
    /** While the thread looks at the deadlines it stands this far ahead, so that any deadline armed meanwhile wakes it. */
    private static final long LOOKING = Long.MAX_VALUE / 4;
    private static final SocketDeadlines SHARED = new SocketDeadlines();

    private final Set<Deadline> watched = ConcurrentHashMap.newKeySet();
    private final Thread sweeper;
    /** The {@link System#nanoTime()} at which the thread will look next; a deadline armed before it wakes the thread. */
    private final AtomicLong nextLook = new AtomicLong(System.nanoTime() + LOOKING);
    /** How many times the thread has looked at the deadlines (for tests: it must not look without cause). */
    private final AtomicLong looks = new AtomicLong();

    /** A new instance and its thread; the process uses {@link #shared()}, tests their own. */
    SocketDeadlines() {
        sweeper = Thread.ofPlatform().daemon().name("socket-deadlines").start(this::sweep);
    }

    /** The process's instance and its one sweeping thread. */
    public static SocketDeadlines shared() {
        return SHARED;
    }

    /** Starts watching {@code socket}; the deadline starts disarmed. Stop with {@link Deadline#close()}. */
    public Deadline watch(Closeable socket) {
        Deadline deadline = new Deadline(Objects.requireNonNull(socket, "socket"));
        watched.add(deadline);
        return deadline;
    }

    /** A blocking socket operation. */
    @FunctionalInterface
    public interface IoOperation<T> {
        T run() throws IOException;
    }

    private static SocketTimeoutException timedOut(String what, @Nullable Exception cause) {
        SocketTimeoutException timeout = new SocketTimeoutException(what);
        timeout.initCause(cause);
        return timeout;
    }

    /** How many times the thread has looked at the deadlines since it started. */
    long looks() {
        return looks.get();
    }

    private void sweep() {
        while (!Thread.currentThread().isInterrupted()) {
            long now = System.nanoTime();
            nextLook.set(now + LOOKING);
            looks.incrementAndGet();
            long earliest = now + HORIZON.toNanos();
            for (Deadline d : watched) {
                long at = d.state.get();
                if (at == Deadline.DISARMED || at == Deadline.EXPIRED) {
                    continue;
                }
                if (now - at >= 0) {
                    d.expire(at);
                } else if (at - earliest < 0) {
                    earliest = at;
                }
            }
            // a deadline armed during the look saw LOOKING, lowered nextLook and unparked this thread: the park below
            // then returns at once and the next look finds it
            nextLook.accumulateAndGet(earliest, (current, planned) -> planned - current < 0 ? planned : current);
            long wait = earliest - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(this, wait);
            }
        }
    }

    /** Wakes the thread when a deadline at {@code at} comes before its next look. */
    private void armed(long at) {
        long next = nextLook.get();
        while (at - next < 0) {
            if (nextLook.compareAndSet(next, at)) {
                LockSupport.unpark(sweeper);
                return;
            }
            next = nextLook.get();
        }
    }

    /**
     * The deadline of one socket: armed around each operation that must not wait forever. Disarming and expiring race
     * on one atomic state, so exactly one wins: when the operation finished first its socket is never closed behind
     * its back, and when the deadline won {@link #disarm()} says so even if the operation then succeeded.
     */
    public final class Deadline implements AutoCloseable {
        private static final long DISARMED = 0;
        private static final long EXPIRED = 1;
        private final Closeable socket;
        /** {@link #DISARMED}, {@link #EXPIRED}, or the {@link System#nanoTime()} at which the socket is closed. */
        private final AtomicLong state = new AtomicLong(DISARMED);

        private Deadline(Closeable socket) {
            this.socket = socket;
        }

        /**
         * Closes the socket if it is still armed {@code limit} from now.
         *
         * @throws IllegalArgumentException for a limit that is not positive
         * @throws IllegalStateException    once the deadline has expired (the socket is closed)
         */
        public void arm(Duration limit) {
            if (limit.isNegative() || limit.isZero()) {
                throw new IllegalArgumentException("a deadline needs a positive limit, was " + limit);
            }
            long at = System.nanoTime() + limit.toNanos();
            long current = state.get();
            if (current == EXPIRED || !state.compareAndSet(current, at == DISARMED || at == EXPIRED ? EXPIRED + 1 : at)) {
                throw new IllegalStateException("the deadline expired and closed its socket");
            }
            armed(at);
        }

        /**
         * Ends the armed operation.
         *
         * @return true when it finished in time; false when the deadline passed first and closed the socket
         */
        public boolean disarm() {
            while (true) {
                long current = state.get();
                if (current == EXPIRED) {
                    return false;
                }
                if (current == DISARMED || state.compareAndSet(current, DISARMED)) {
                    return true;
                }
            }
        }

        /**
         * Runs {@code operation} with this deadline armed for {@code limit}.
         *
         * @param what says what did not finish in the timeout's message, e.g. "no reply within 500 ms"
         * @return what the operation returned
         * @throws SocketTimeoutException when the deadline passed first (whatever the operation then did: it failed
         *                                on the closed socket, or finished just too late), its cause the failure if any
         * @throws IOException            the operation's own failure, in time
         */
        public <T> T within(Duration limit, String what, IoOperation<T> operation) throws IOException {
            arm(limit);
            T result;
            try {
                result = operation.run();
            } catch (IOException | RuntimeException e) {
                if (disarm()) {
                    throw e;
                }
                throw timedOut(what, e);
            }
            if (!disarm()) {
                throw timedOut(what, null);
            }
            return result;
        }

        /** Whether this deadline passed and closed the socket. */
        public boolean expired() {
            return state.get() == EXPIRED;
        }

        /** Stops watching the socket (it is closing anyway); the socket itself is not closed here. */
        @Override
        public void close() {
            disarm();
            watched.remove(this);
        }

        /** Called by the sweeper for a deadline seen armed at {@code at}, which has passed. */
        private void expire(long at) {
            if (state.compareAndSet(at, EXPIRED)) {
                watched.remove(this);
                try {
                    socket.close();
                } catch (IOException ignored) {
                    // the socket failed while closing: the blocked operation fails either way
                }
            }
        }
    }
}
