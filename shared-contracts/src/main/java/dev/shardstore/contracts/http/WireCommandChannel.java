package dev.shardstore.contracts.http;

import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.bson.BsonLimits;
import dev.shardstore.contracts.wire.Frame;
import dev.shardstore.contracts.wire.MalformedMessageException;
import dev.shardstore.contracts.wire.OpMsg;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Deque;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.BsonDocument;
import org.bson.BsonString;

/**
 * A pool of wire-protocol connections to one peer's command port ({@link InternalApi#COMMAND_PORT_HEADER}): each
 * exchange borrows an idle connection (or opens one), writes the command as one OP_MSG with {@code $db}, reads the
 * one OP_MSG that answers it, and returns the connection. No HTTP parsing, no per-request headers or URIs: the
 * router's profile of a routed point read (docs/benchmarks.md, issue 10) had the HTTP client at a fifth of the router's
 * CPU and Tomcat with its filters at a third of the shard's.
 *
 * <p>Failures never hang and never leave a connection behind: connecting is bounded by the connect timeout, each read
 * by the request timeout (the socket's read timeout: how long a reply may stay silent); a connection that failed in
 * any way (timeout, reset, a reply that ends early, is not one OP_MSG or answers another request) is closed, never
 * returned. A connection idle for more than {@link #CHECK_AFTER_IDLE_NANOS} is checked before reuse (the peer may have
 * closed it or died meanwhile), so a stale connection does not fail a command the peer never saw. Thread-safe.
 */
final class WireCommandChannel implements AutoCloseable {
    /** A connection idle longer than this (1 s) is checked before reuse. */
    static final long CHECK_AFTER_IDLE_NANOS = 1_000_000_000L;

    private final InetSocketAddress address;
    private final int connectTimeoutMillis;
    private final int requestTimeoutMillis;
    private final Deque<Connection> idle = new ConcurrentLinkedDeque<>();
    private final AtomicInteger requestIds = new AtomicInteger();
    private final AtomicInteger open = new AtomicInteger();
    private volatile boolean closed;

    /** One socket and its buffered streams. */
    private static final class Connection {
        final Socket socket;
        final InputStream in;
        final OutputStream out;
        long idleSince;

        Connection(Socket socket) throws IOException {
            this.socket = socket;
            this.in = new BufferedInputStream(socket.getInputStream(), 16 * 1024);
            this.out = new BufferedOutputStream(socket.getOutputStream(), 16 * 1024);
        }
    }

    WireCommandChannel(String host, int port, Duration connectTimeout, Duration requestTimeout) {
        this.address = InetSocketAddress.createUnresolved(host, port);
        this.connectTimeoutMillis = (int) Math.min(Integer.MAX_VALUE, connectTimeout.toMillis());
        this.requestTimeoutMillis = (int) Math.min(Integer.MAX_VALUE, requestTimeout.toMillis());
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
        Connection connection = borrow();
        try {
            int requestId = requestIds.incrementAndGet();
            BsonDocument body = new BsonDocument();
            body.putAll(command);
            body.put("$db", new BsonString(db));
            connection.out.write(OpMsg.request(body).encode(requestId, 0));
            connection.out.flush();
            Frame frame = Frame.read(connection.in, BsonLimits.MAX_MESSAGE_SIZE)
                    .orElseThrow(() -> new EOFException("the peer closed the connection before replying"));
            if (frame.responseTo() != requestId) {
                throw new MalformedMessageException("the reply answers request " + frame.responseTo() + ", not " + requestId);
            }
            BsonDocument reply = parse(frame, keepBatches);
            giveBack(connection);
            return reply;
        } catch (IOException | RuntimeException e) {
            discard(connection);
            throw e;
        }
    }

    private static BsonDocument parse(Frame frame, boolean keepBatches) {
        try {
            return keepBatches ? BsonBytes.decodeKeepingBatches(OpMsg.bodyOnly(frame)) : OpMsg.parse(frame).body();
        } catch (RuntimeException e) {
            throw new MalformedMessageException("the reply is not a readable OP_MSG: " + e.getMessage(), e);
        }
    }

    private Connection borrow() throws IOException {
        for (Connection c = idle.pollFirst(); c != null; c = idle.pollFirst()) {
            if (System.nanoTime() - c.idleSince < CHECK_AFTER_IDLE_NANOS || stillOpen(c)) {
                return c;
            }
            discard(c);
        }
        Socket socket = new Socket();
        try {
            socket.setTcpNoDelay(true);
            socket.connect(new InetSocketAddress(address.getHostString(), address.getPort()), connectTimeoutMillis);
            socket.setSoTimeout(requestTimeoutMillis);
            open.incrementAndGet();
            return new Connection(socket);
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
    }

    /**
     * Whether an idle connection can still carry a command: a read that times out at once means the peer has not
     * closed it; an end of stream or an error means it has, and unexpected bytes mean the stream is out of step.
     */
    private boolean stillOpen(Connection c) {
        try {
            c.socket.setSoTimeout(1);
            try {
                c.in.read(); // an end of stream (closed) or a byte nobody asked for (out of step): unusable either way
                return false;
            } catch (SocketTimeoutException silent) {
                return true;
            } finally {
                c.socket.setSoTimeout(requestTimeoutMillis);
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
        c.idleSince = System.nanoTime();
        idle.addFirst(c);
        if (closed) {
            close(); // closed while it was being put back: drain again so it is not left open
        }
    }

    private void discard(Connection c) {
        try {
            c.socket.close();
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
        for (Connection c = idle.pollFirst(); c != null; c = idle.pollFirst()) {
            discard(c);
        }
    }
}
