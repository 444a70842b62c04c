package dev.shardstore.contracts.wire;

import java.io.Closeable;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Time limits on blocking socket operations (connect, waiting for a message or a reply) without the socket's own
 * timeouts. The JDK switches a socket that has a read timeout, or that connected with a timeout, to non-blocking mode
 * for good, and from then on every read that finds no data yet is a failed read, a {@code poll} and a second read: the
 * issue-10 profile of a routed point read had that at a quarter of the router's CPU and a tenth of each shard's. Sockets
 * watched here stay blocking, so a read is one system call; a daemon thread sweeps the armed deadlines every
 * {@link #TICK} and closes the socket (or channel) of each one that has passed, which makes the blocked operation
 * fail, and {@link Deadline#expired()} then tells its caller that the limit, not the peer, ended it. A deadline
 * therefore fires up to one tick late. Thread-safe; one instance for the process ({@link #shared()}).
 */
public final class SocketDeadlines {
    /** How often the deadlines are checked: the most a deadline can fire late. */
    public static final Duration TICK = Duration.ofMillis(20);
    private static final SocketDeadlines SHARED = new SocketDeadlines();

    private final Set<Deadline> watched = ConcurrentHashMap.newKeySet();

    private SocketDeadlines() {
        Thread.ofPlatform().daemon().name("socket-deadlines").start(this::sweep);
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

    private static SocketTimeoutException timedOut(String what, Exception cause) {
        SocketTimeoutException timeout = new SocketTimeoutException(what);
        timeout.initCause(cause);
        return timeout;
    }

    private void sweep() {
        while (true) {
            try {
                Thread.sleep(TICK);
            } catch (InterruptedException e) {
                return;
            }
            long now = System.nanoTime();
            for (Deadline d : watched) {
                long at = d.state.get();
                if (at != Deadline.DISARMED && at != Deadline.EXPIRED && now - at >= 0) {
                    d.expire(at);
                }
            }
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
