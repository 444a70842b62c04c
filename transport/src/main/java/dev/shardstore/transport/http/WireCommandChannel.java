package dev.shardstore.transport.http;

import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.bson.BsonLimits;
import dev.shardstore.contracts.http.InternalApi;
import dev.shardstore.transport.membership.ClusterKey;
import dev.shardstore.transport.membership.MemberHandshake;
import dev.shardstore.transport.wire.Frame;
import dev.shardstore.transport.wire.MalformedMessageException;
import dev.shardstore.transport.wire.OpMsg;
import dev.shardstore.transport.wire.SocketDeadlines;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.jspecify.annotations.Nullable;

/**
 * A pool of wire-protocol connections to one peer's command port ({@link InternalApi#COMMAND_PORT_HEADER}): each
 * exchange borrows an idle connection (or opens one), writes the command as one OP_MSG with {@code $db}, reads the
 * one OP_MSG that answers it, and returns the connection. No HTTP parsing, no per-request headers or URIs: the
 * router's profile of a routed point read (docs/benchmarks.md, issue 10) had the HTTP client at a fifth of the router's
 * CPU and Tomcat with its filters at a third of the shard's.
 *
 * <p>Failures never hang and never leave a connection behind: connecting is bounded by the connect timeout, each
 * exchange (sending the command and reading its whole reply) by the request timeout; a connection that failed in any
 * way (timeout, reset, a reply that ends early, is not one OP_MSG or answers another request) is closed, never
 * returned. The sockets stay in blocking mode, one system call per read, and the time limits are
 * {@link SocketDeadlines} that close a socket whose operation overran (a socket read timeout would have made the JDK
 * poll before every read). A virtual thread's I/O switches a socket to non-blocking mode for good (the JDK parks
 * virtual threads on a poller instead of blocking their carrier), after which every read that has to wait costs a
 * read, a {@code poll} and a second read. So connections a virtual thread has used are kept in a pool of their own,
 * which only virtual threads borrow from: the router's scatter-gather runs on virtual threads, and its point reads on
 * the wire front end's platform threads keep one system call per read. A connection idle for more than
 * {@link #CHECK_AFTER_IDLE_NANOS} is checked before reuse (the peer may have closed it or died meanwhile), so a stale
 * connection does not fail a command the peer never saw. With a {@link ClusterKey}, each new connection proves
 * membership first ({@link MemberHandshake}); a connection the peer refuses is closed and the refusal (Unauthorized, 13)
 * thrown. Thread-safe.
 */
final class WireCommandChannel implements AutoCloseable {
    /** A connection idle longer than this (1 s) is checked before reuse. */
    static final long CHECK_AFTER_IDLE_NANOS = 1_000_000_000L;

    private final InetSocketAddress address;
    private final Duration connectTimeout;
    private final Duration requestTimeout;
    /** The timeout's message, built once: not a string per command on the hot path. */
    private final String noReply;
    /** Idle connections still in blocking mode: only virtual threads' I/O switches a socket out of it. */
    private final Deque<Connection> idle = new ConcurrentLinkedDeque<>();
    /** Idle connections a virtual thread has used, non-blocking for good: lent to virtual threads only. */
    private final Deque<Connection> idleNonBlocking = new ConcurrentLinkedDeque<>();
    private final AtomicInteger requestIds = new AtomicInteger();
    private final AtomicInteger open = new AtomicInteger();
    private volatile boolean closed;
    private final LongSupplier nanoTicker;
    private final @Nullable ClusterKey clusterKey;

    /** One blocking socket channel, its buffered streams and its deadline. */
    private static final class Connection {
        final SocketChannel channel;
        final SocketDeadlines.Deadline deadline;
        final InputStream in;
        final OutputStream out;
        long idleSince;
        /** Whether a virtual thread has used the socket, which the JDK then keeps in non-blocking mode. */
        boolean nonBlocking;

        Connection(SocketChannel channel, SocketDeadlines.Deadline deadline) {
            this.channel = channel;
            this.deadline = deadline;
            this.in = new BufferedInputStream(Channels.newInputStream(channel), 16 * 1024);
            this.out = new BufferedOutputStream(Channels.newOutputStream(channel), 16 * 1024);
        }
    }

    /**
     * @param clusterKey the key each new connection proves membership with; null in a cluster without one
     * @param nanoTicker what idle connections are timed on ({@link System#nanoTime} but in tests)
     */
    WireCommandChannel(String host, int port, Duration connectTimeout, Duration requestTimeout, @Nullable ClusterKey clusterKey,
            LongSupplier nanoTicker) {
        this.nanoTicker = nanoTicker;
        this.clusterKey = clusterKey;
        this.address = InetSocketAddress.createUnresolved(host, port);
        this.connectTimeout = connectTimeout;
        this.requestTimeout = requestTimeout;
        this.noReply = "no reply within " + requestTimeout.toMillis() + " ms";
    }

    /** The peer's host and command port, for messages. */
    String address() {
        return address.getHostString() + ":" + address.getPort();
    }

    /**
     * One command, one reply.
     *
     * @param db      the database, sent as {@code $db}
     * @param command the command document (not modified), without a {@code $db} field of its own
     * @param keepBatches whether the reply's cursor batches stay raw ({@link BsonBytes#decodeKeepingBatches}) instead of
     *                    being decoded with the rest
     * @return the reply's body document, which may be an error reply
     * @throws java.net.ConnectException when the peer refuses the connection
     * @throws SocketTimeoutException    when connecting or the reply took longer than allowed
     * @throws MalformedMessageException when the reply is not one OP_MSG answering this command
     * @throws IOException               for any other transport failure (reset, closed mid-reply)
     */
    BsonDocument exchange(String db, BsonDocument command, boolean keepBatches) throws IOException {
        if (closed) {
            throw new IOException("the channel to " + address() + " is closed");
        }
        boolean virtual = Thread.currentThread().isVirtual();
        Connection connection = borrow(virtual);
        connection.nonBlocking |= virtual;
        try {
            BsonDocument reply = roundTrip(connection, db, command, keepBatches);
            giveBack(connection);
            return reply;
        } catch (IOException | RuntimeException e) {
            discard(connection);
            throw e;
        }
    }

    /** Sends {@code command} on {@code db} over {@code connection} and reads its reply; the caller discards a failed connection. */
    private BsonDocument roundTrip(Connection connection, String db, BsonDocument command, boolean keepBatches) throws IOException {
        int requestId = requestIds.incrementAndGet();
        BsonDocument body = new BsonDocument();
        body.putAll(command);
        body.put("$db", new BsonString(db));
        Frame frame = connection.deadline.within(requestTimeout, noReply, () -> {
            connection.out.write(OpMsg.request(body).encode(requestId, 0));
            connection.out.flush();
            return Frame.read(connection.in, BsonLimits.MAX_MESSAGE_SIZE)
                    .orElseThrow(() -> new EOFException("the peer closed the connection before replying"));
        });
        if (frame.responseTo() != requestId) {
            throw new MalformedMessageException("the reply answers request " + frame.responseTo() + ", not " + requestId);
        }
        return parse(frame, keepBatches);
    }

    private static BsonDocument parse(Frame frame, boolean keepBatches) {
        try {
            return keepBatches ? BsonBytes.decodeKeepingBatches(OpMsg.bodyOnly(frame)) : OpMsg.parse(frame).body();
        } catch (RuntimeException e) {
            throw new MalformedMessageException("the reply is not a readable OP_MSG: " + e.getMessage(), e);
        }
    }

    /** An idle connection that still works, or a new one; a platform thread never gets a non-blocking one. */
    private Connection borrow(boolean virtual) throws IOException {
        Connection reused = virtual ? reuse(idleNonBlocking) : null;
        if (reused == null) {
            reused = reuse(idle);
        }
        return reused != null ? reused : connect();
    }

    private @Nullable Connection reuse(Deque<Connection> pool) {
        for (Connection c = pool.pollFirst(); c != null; c = pool.pollFirst()) {
            if (nanoTicker.getAsLong() - c.idleSince < CHECK_AFTER_IDLE_NANOS || stillOpen(c)) {
                return c;
            }
            discard(c);
        }
        return null;
    }

    private Connection connect() throws IOException {
        SocketChannel channel = SocketChannel.open();
        SocketDeadlines.Deadline deadline = SocketDeadlines.shared().watch(channel);
        try {
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            InetSocketAddress resolved = new InetSocketAddress(address.getHostString(), address.getPort());
            if (resolved.isUnresolved()) {
                throw new UnknownHostException(address.getHostString());
            }
            deadline.within(connectTimeout, "connecting to " + address() + " took more than " + connectTimeout.toMillis() + " ms",
                    () -> channel.connect(resolved));
            Connection connection = new Connection(channel, deadline);
            if (clusterKey != null) {
                MemberHandshake.authenticate(clusterKey, request -> roundTrip(connection, MemberHandshake.DB, request, false));
            }
            open.incrementAndGet();
            return connection;
        } catch (IOException | RuntimeException e) {
            deadline.close();
            channel.close();
            throw e;
        }
    }

    /**
     * Whether an idle connection can still carry a command: a read that finds nothing, without waiting, means the peer
     * has not closed it; an end of stream or an error means it has, and unexpected bytes mean the stream is out of step.
     */
    private static boolean stillOpen(Connection c) {
        try {
            if (c.in.available() > 0) {
                return false; // a byte nobody asked for, already buffered: out of step
            }
            c.channel.configureBlocking(false);
            try {
                return c.channel.read(ByteBuffer.allocate(1)) == 0;
            } finally {
                c.channel.configureBlocking(true);
            }
        } catch (IOException e) {
            return false;
        }
    }

    private void giveBack(Connection c) {
        if (closed) {
            discard(c);
            return;
        }
        c.idleSince = nanoTicker.getAsLong();
        (c.nonBlocking ? idleNonBlocking : idle).addFirst(c);
        if (closed) {
            close(); // closed while it was being put back: drain again so it is not left open
        }
    }

    private void discard(Connection c) {
        c.deadline.close();
        try {
            c.channel.close();
        } catch (IOException ignored) {
            // closing a socket that already failed: nothing more to do
        }
        open.decrementAndGet();
    }

    /** Connections open right now, lent out or idle (for leak tests). */
    int openConnections() {
        return open.get();
    }

    /** Closes the idle connections; connections lent out are closed when they come back. */
    @Override
    public void close() {
        closed = true;
        for (Deque<Connection> pool : List.of(idle, idleNonBlocking)) {
            for (Connection c = pool.pollFirst(); c != null; c = pool.pollFirst()) {
                discard(c);
            }
        }
    }
}
