package dev.shardstore.router.wire;

import dev.shardstore.router.command.ClientCommands;
import dev.shardstore.router.security.ConnectionAuthentication;
import dev.shardstore.router.security.UserDirectory;
import dev.shardstore.support.membership.NetProperties;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

/**
 * The router's MongoDB wire-protocol listener (docs/architecture.md "The client API: REST and the wire protocol"): mongosh and the official drivers connect to
 * {@code shardstore.router.wire.port} (27017) and run the same commands, through the same registry and cursors, as
 * the REST front end. Plain JDK sockets: one platform thread accepts, and each connection gets its own platform
 * thread ({@link WireConnection}), as mongos serves a connection: a driver keeps few connections busy, and on a
 * virtual thread every wait for the client's next message or for a shard's reply unmounted and remounted the thread
 * through the scheduler and the poller — a third of the router's CPU per routed point read, against a quarter less
 * CPU per read on platform threads (docs/benchmarks.md, issue 10). The connection limits below bound the threads.
 *
 * <p>Limits ({@link WireProperties}): beyond {@code max-connections} open connections, or
 * {@code max-connections-per-client} from one address, a new connection is closed at once, as mongos does beyond
 * {@code maxIncomingConnections}. A connection silent for {@code idle-timeout} is closed (the socket read times out),
 * and so is one whose client stops reading its replies for that long (a sweep every second), so that no thread waits
 * forever on a client.
 *
 * <p>Off with {@code shardstore.router.wire.enabled=false}.
 */
@Component
@ConditionalOnBooleanProperty(name = "shardstore.router.wire.enabled", matchIfMissing = true)
public class WireServer implements SmartLifecycle {
    private static final Logger log = LoggerFactory.getLogger(WireServer.class);

    private final WireProperties properties;
    private final ClientCommands commands;
    private final WireMetrics metrics;
    private final UserDirectory users;
    private final WireTls tls;
    private final Map<Long, WireConnection> connections = new ConcurrentHashMap<>();
    private final Map<InetAddress, Integer> perClient = new ConcurrentHashMap<>();
    private final AtomicLong connectionIds = new AtomicLong();
    /** The listening sockets, one per bind address; empty while stopped. */
    private volatile List<ServerSocket> servers = List.of();
    private final List<String> bindAddresses;
    private volatile @Nullable ScheduledExecutorService sweeper;

    /** A listener on {@code shardstore.router.wire.bind-address}. */
    public WireServer(WireProperties properties, ClientCommands commands, MeterRegistry meters, UserDirectory users) {
        this(properties, WireTlsProperties.DISABLED, commands, meters, new NetProperties(List.of()), users);
    }

    /**
     * @param net the service's bind addresses ({@code shardstore.net.bind-ip}), which replace
     *            {@code shardstore.router.wire.bind-address} when given: the listener takes the same port on each
     * @param tls TLS on the listener ({@code shardstore.router.wire.tls.*})
     * @throws java.io.UncheckedIOException a TLS certificate or CA file that cannot be read
     */
    @Autowired
    public WireServer(WireProperties properties, WireTlsProperties tls, ClientCommands commands, MeterRegistry meters, NetProperties net,
            UserDirectory users) {
        this.properties = properties;
        this.tls = WireTls.of(tls);
        this.users = users;
        this.commands = commands;
        this.metrics = new WireMetrics(meters);
        this.bindAddresses = net.bindIp().isEmpty() ? List.of(properties.bindAddress()) : net.bindIp();
    }

    @Override
    public synchronized void start() {
        if (!servers.isEmpty()) {
            return;
        }
        List<ServerSocket> bound = new ArrayList<>();
        try {
            for (String address : bindAddresses) {
                ServerSocket socket = new ServerSocket();
                bound.add(socket);
                socket.setReuseAddress(true);
                socket.bind(new InetSocketAddress(InetAddress.getByName(address), bound.size() == 1 ? properties.port() : bound.getFirst().getLocalPort()), 512);
            }
        } catch (IOException e) {
            bound.forEach(WireServer::closeQuietly);
            throw new UncheckedIOException("cannot listen for the wire protocol on " + bindAddresses + ":" + properties.port()
                    + " (shardstore.router.wire.port; shardstore.router.wire.enabled=false turns the listener off)", e);
        }
        servers = List.copyOf(bound);
        ScheduledExecutorService sweep = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("wire-sweeper").factory());
        sweep.scheduleWithFixedDelay(this::closeStalledWriters, 1, 1, TimeUnit.SECONDS);
        sweeper = sweep;
        servers.forEach(socket -> Thread.ofPlatform().daemon().name("wire-acceptor").start(() -> acceptLoop(socket)));
        log.info("MongoDB wire protocol listening on {}:{} (net.tls.mode {})", bindAddresses, port(), tls.mode().mongoName());
    }

    /** The port listened on (the chosen one when configured as 0), or -1 when not listening. */
    public int port() {
        List<ServerSocket> listening = servers;
        return listening.isEmpty() ? -1 : listening.getFirst().getLocalPort();
    }

    /** Connections open now. */
    public int openConnections() {
        return metrics.open();
    }

    private void acceptLoop(ServerSocket socket) {
        while (!socket.isClosed()) {
            Socket client;
            try {
                client = socket.accept();
            } catch (SocketException e) {
                return; // closed by stop()
            } catch (IOException e) {
                log.warn("accepting a wire connection failed", e);
                continue;
            }
            admit(client);
        }
    }

    /** Serialised across the acceptor threads (one per bind address), so the global count cannot be overtaken between check and increment. */
    private synchronized void admit(Socket client) {
        InetAddress address = client.getInetAddress();
        String refusal = metrics.open() >= properties.maxConnections() ? "limit" : !reserve(address) ? "client-limit" : null;
        if (refusal != null) {
            metrics.rejected(refusal);
            log.warn("refused a wire connection from {}: {} reached", address, refusal.equals("limit")
                    ? "shardstore.router.wire.max-connections (" + properties.maxConnections() + ")"
                    : "shardstore.router.wire.max-connections-per-client (" + properties.maxConnectionsPerClient() + ")");
            closeQuietly(client);
            return;
        }
        Runnable release = () -> perClient.computeIfPresent(address, (a, n) -> n <= 1 ? null : n - 1);
        try {
            client.setTcpNoDelay(true); // no read timeout: WireConnection limits the wait with a deadline
        } catch (SocketException e) {
            release.run();
            closeQuietly(client);
            return;
        }
        long id = connectionIds.incrementAndGet();
        metrics.opened();
        WireConnection connection = new WireConnection(client, id, properties.idleTimeout(), commands, metrics,
                new ConnectionAuthentication(users, address.isLoopbackAddress(), commands.audit(),
                        client.getRemoteSocketAddress() instanceof InetSocketAddress remote ? remote : null), tls, () -> {
            connections.remove(id);
            release.run();
        });
        connections.put(id, connection);
        Thread.ofPlatform().daemon().name("wire-conn-" + id).start(connection);
    }

    /** Counts one more connection from {@code address}, unless it already holds the most it may. */
    private boolean reserve(InetAddress address) {
        boolean[] reserved = {false};
        perClient.compute(address, (a, n) -> {
            int held = n == null ? 0 : n;
            if (held >= properties.maxConnectionsPerClient()) {
                return n;
            }
            reserved[0] = true;
            return held + 1;
        });
        return reserved[0];
    }

    private void closeStalledWriters() {
        long now = System.nanoTime();
        long limit = properties.idleTimeout().toNanos();
        connections.values().stream().filter(c -> c.writeStalled(now, limit)).forEach(c -> {
            log.warn("closing wire connection {}: its client has not read a reply for {}", c.id(), properties.idleTimeout());
            c.close("stalled");
        });
    }

    @Override
    public synchronized void stop() {
        List<ServerSocket> listening = servers;
        servers = List.of();
        listening.forEach(WireServer::closeQuietly);
        ScheduledExecutorService sweep = sweeper;
        sweeper = null;
        if (sweep != null) {
            sweep.shutdownNow();
        }
        connections.values().forEach(c -> c.close("closed"));
    }

    @Override
    public boolean isRunning() {
        return !servers.isEmpty();
    }

    private static void closeQuietly(java.io.Closeable closeable) {
        try {
            closeable.close();
        } catch (IOException e) {
            log.debug("close failed", e);
        }
    }
}
