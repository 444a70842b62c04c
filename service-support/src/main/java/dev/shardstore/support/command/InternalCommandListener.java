package dev.shardstore.support.command;

import dev.shardstore.contracts.bson.BsonLimits;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.http.InternalApi;
import dev.shardstore.transport.membership.ClusterKey;
import dev.shardstore.transport.membership.MemberHandshake;
import dev.shardstore.transport.wire.ConnectionLoop;
import dev.shardstore.transport.wire.Frame;
import dev.shardstore.transport.wire.MalformedMessageException;
import dev.shardstore.transport.wire.OpCode;
import dev.shardstore.transport.wire.OpMsg;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.bson.BsonDocument;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The service-to-service command port: the commands of {@link InternalApi} as MongoDB wire-protocol OP_MSG messages
 * (the command with {@code $db} in the body; the reply as the body of the answering OP_MSG), as mongos talks to mongod.
 * Peers learn the port from {@link InternalApi#COMMAND_PORT_HEADER} on HTTP replies; HTTP keeps working beside it.
 *
 * <p>Threads: one platform thread accepts, and each connection gets its own platform thread that reads a message,
 * runs it ({@link InternalCommands}) and writes the reply — no HTTP parsing, filters or scheduler hand-offs per command
 * (Tomcat, its filters and virtual-thread scheduling were over half of a shard's CPU per routed point read in the
 * issue-10 profile; docs/benchmarks.md). A peer multiplexes nothing: it keeps a pool of connections, one command in
 * flight on each.
 *
 * <p>Failures: a frame that cannot be read in step (a length that lies or exceeds {@link BsonLimits#MAX_MESSAGE_SIZE}, an
 * unknown opcode, a stream that ends inside a message) closes the connection without a reply, as mongod does; an
 * OP_MSG whose sections or documents are invalid, or that lacks {@code $db}, gets an error reply and the connection
 * stays usable. A connection silent for {@link #IDLE_TIMEOUT} is closed (its peer checks idle connections
 * before reuse). Beyond {@link #MAX_CONNECTIONS} open connections a new one is closed at once.
 *
 * <p>Membership: in a cluster with a {@link ClusterKey}, a connection proves membership first
 * ({@link MemberHandshake}, once per connection); until it has, every other command is answered Unauthorized (13)
 * without running, and without {@code $clusterTime} (the caller may not be a member). The connection stays open.
 */
public final class InternalCommandListener implements AutoCloseable {
    /** Open connections at most; the peers' pools stay far below. */
    static final int MAX_CONNECTIONS = 4096;
    /** A connection silent this long (10 minutes) is closed. */
    static final Duration IDLE_TIMEOUT = Duration.ofMinutes(10);
    private static final Logger log = LoggerFactory.getLogger(InternalCommandListener.class);

    private final InternalCommands commands;
    private final @Nullable ClusterKey clusterKey;
    private final List<ServerSocket> servers;
    private final Map<Long, Connection> connections = new ConcurrentHashMap<>();
    private final AtomicLong connectionIds = new AtomicLong();
    private final AtomicInteger replyIds = new AtomicInteger();
    private volatile boolean closed;

    /** An open connection and whether a command is running on it (not waiting for the next message). */
    private record Connection(Socket socket, AtomicBoolean busy) {}

    private InternalCommandListener(InternalCommands commands, @Nullable ClusterKey clusterKey, List<ServerSocket> servers) {
        this.commands = commands;
        this.clusterKey = clusterKey;
        this.servers = List.copyOf(servers);
    }

    /**
     * Listens on {@code port} (0: any free port) of every interface, taking commands from anyone: a cluster without a key.
     *
     * @return the listener, or empty when the port cannot be bound (logged; the service stays reachable over HTTP)
     */
    public static Optional<InternalCommandListener> start(InternalCommands commands, int port) {
        return start(commands, null, List.of(), port);
    }

    /**
     * Listens on {@code port} of each of {@code addresses} and starts accepting.
     *
     * @param clusterKey the key connections must prove membership with; null in a cluster without one
     * @param addresses  where to listen; empty for every interface
     * @param port       the port, the same on every address; 0 for a free one (the first address's)
     * @return the listener, or empty when an address cannot be bound (logged; the service stays reachable over HTTP)
     */
    public static Optional<InternalCommandListener> start(InternalCommands commands, @Nullable ClusterKey clusterKey,
            List<InetAddress> addresses, int port) {
        List<ServerSocket> servers = new ArrayList<>();
        try {
            for (InetAddress address : addresses.isEmpty() ? Collections.<@Nullable InetAddress>singletonList(null) : addresses) {
                ServerSocket server = new ServerSocket();
                servers.add(server);
                server.setReuseAddress(true);
                server.bind(new InetSocketAddress(address, servers.size() == 1 ? port : servers.getFirst().getLocalPort()));
            }
        } catch (IOException e) {
            log.warn("the command port {} cannot be bound on {} ({}); peers reach this service over HTTP only", port,
                    addresses.isEmpty() ? "every interface" : addresses, e.toString());
            servers.forEach(InternalCommandListener::closeQuietly);
            return Optional.empty();
        }
        InternalCommandListener listener = new InternalCommandListener(commands, clusterKey, servers);
        servers.forEach(server -> Thread.ofPlatform().daemon().name("command-acceptor").start(() -> listener.acceptLoop(server)));
        log.info("service-to-service commands also on port {} (OP_MSG) of {}{}", listener.port(),
                addresses.isEmpty() ? "every interface" : addresses, clusterKey == null ? "" : ", members only");
        return Optional.of(listener);
    }

    /** The port listened on. */
    public int port() {
        return servers.getFirst().getLocalPort();
    }

    private void acceptLoop(ServerSocket server) {
        while (!closed) {
            Socket socket;
            try {
                socket = server.accept();
            } catch (IOException e) {
                if (!closed) {
                    log.warn("accepting a command connection failed: {}", e.toString());
                }
                continue;
            }
            if (connections.size() >= MAX_CONNECTIONS) {
                closeQuietly(socket);
                continue;
            }
            long id = connectionIds.incrementAndGet();
            Connection connection = new Connection(socket, new AtomicBoolean());
            connections.put(id, connection);
            Thread.ofPlatform().daemon().name("command-conn-" + id).start(() -> serve(id, connection));
        }
    }

    private void serve(long id, Connection connection) {
        Socket socket = connection.socket();
        MemberHandshake.Server handshake = clusterKey == null ? null : new MemberHandshake.Server(clusterKey);
        try (socket) {
            socket.setTcpNoDelay(true);
            ConnectionLoop.serve(socket, IDLE_TIMEOUT, BsonLimits.MAX_MESSAGE_SIZE, () -> closed, new ConnectionLoop.Handler() {
                @Override
                public byte[] answer(Frame frame) {
                    connection.busy().set(true); // until its reply is written: close(grace) waits for it
                    return InternalCommandListener.this.answer(frame, handshake);
                }

                @Override
                public void writing(boolean inProgress) {
                    if (!inProgress) {
                        connection.busy().set(false);
                    }
                }
            });
        } catch (MalformedMessageException e) {
            log.debug("command connection {} closed: {}", id, e.getMessage());
        } catch (SocketTimeoutException e) {
            log.debug("command connection {} idle for {}: closed", id, IDLE_TIMEOUT);
        } catch (IOException e) {
            log.debug("command connection {} failed: {}", id, e.toString());
        } finally {
            connections.remove(id);
        }
    }

    /**
     * The encoded reply to one message; a frame that is not an OP_MSG ends the connection.
     *
     * @param handshake the connection's membership handshake; null in a cluster without a key
     */
    private byte[] answer(Frame frame, MemberHandshake.@Nullable Server handshake) {
        if (frame.opCode() != OpCode.OP_MSG) {
            throw new MalformedMessageException("only OP_MSG is served on the command port, not " + frame.opCode());
        }
        BsonDocument reply;
        try {
            BsonDocument command = OpMsg.parse(frame).command();
            if (!command.isString("$db")) {
                throw new CommandException(ErrorCode.FailedToParse, "the command's $db field is missing or not a string");
            }
            String db = command.getString("$db").getValue();
            command.remove("$db"); // the document was parsed for this message alone
            if (handshake != null && !handshake.member()) {
                reply = unstamped(handshake, db, command);
            } else {
                reply = commands.run(db, command);
            }
        } catch (CommandException e) {
            reply = handshake != null && !handshake.member() ? e.toReply() : commands.refused(e);
        }
        return OpMsg.of(reply).encode(replyIds.incrementAndGet(), frame.requestId());
    }

    /** The handshake's answer to a connection not yet a member, or its refusal: no cluster time for a non-member. */
    private static BsonDocument unstamped(MemberHandshake.Server handshake, String db, BsonDocument command) {
        try {
            return handshake.answer(db, command);
        } catch (CommandException e) {
            return e.toReply();
        }
    }

    /**
     * Stops accepting, closes the connections waiting for a message, lets the commands running on the others finish and
     * send their replies for up to {@code grace}, then closes every connection (as the HTTP server's graceful
     * shutdown lets requests in flight finish).
     */
    public void close(Duration grace) {
        closed = true;
        servers.forEach(InternalCommandListener::closeQuietly);
        long deadline = System.nanoTime() + grace.toNanos();
        do {
            connections.values().stream().filter(c -> !c.busy().get()).forEach(c -> closeQuietly(c.socket()));
            if (connections.values().stream().noneMatch(c -> c.busy().get())) {
                break;
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        } while (System.nanoTime() < deadline);
        connections.values().forEach(c -> closeQuietly(c.socket()));
    }

    /** {@link #close(Duration)} without waiting for running commands. */
    @Override
    public void close() {
        close(Duration.ZERO);
    }

    private static void closeQuietly(@Nullable AutoCloseable c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (Exception ignored) {
            // already closed or broken: nothing to do
        }
    }
}
