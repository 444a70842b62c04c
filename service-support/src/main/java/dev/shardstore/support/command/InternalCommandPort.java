package dev.shardstore.support.command;

import dev.shardstore.support.ServiceSupportProperties;
import dev.shardstore.transport.membership.ClusterKey;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.function.IntSupplier;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.web.server.context.WebServerInitializedEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.SmartLifecycle;

/**
 * Starts the process's {@link InternalCommandListener} once its HTTP server listens, and answers its port to
 * {@link InternalCommandServlet} (-1 while none listens). The port ({@code shardstore.command-port.port}): the given
 * one; by default the HTTP port + {@value #OFFSET} (shard1's 8101 → 28101), kept below the ephemeral range (32768) —
 * an HTTP port too high for that (a test's random port) gets any free port, which peers learn from the header anyway.
 * Off with {@code shardstore.command-port.enabled=false}: peers then use HTTP. On shutdown it stops before the HTTP
 * server (a higher lifecycle phase), letting commands in flight finish for up to {@link #SHUTDOWN_GRACE}. It listens on
 * the service's bind addresses ({@code shardstore.net.bind-ip}) and, in a cluster with a key, takes members only
 * ({@link InternalCommandListener}).
 */
public final class InternalCommandPort implements ApplicationListener<WebServerInitializedEvent>, IntSupplier, SmartLifecycle {
    /** How long commands running at shutdown may take to finish and reply. */
    static final Duration SHUTDOWN_GRACE = Duration.ofSeconds(30);
    /** Default command port = HTTP port + this. */
    public static final int OFFSET = 20_000;
    private static final int EPHEMERAL_START = 32_768;

    private final InternalCommands commands;
    private final ServiceSupportProperties.CommandPort settings;
    private final @Nullable ClusterKey clusterKey;
    private final List<InetAddress> addresses;
    private volatile @Nullable InternalCommandListener listener;
    private volatile boolean running;

    /**
     * @param clusterKey the key connections must prove membership with; null in a cluster without one
     * @param addresses  where to listen; empty for every interface
     */
    public InternalCommandPort(InternalCommands commands, ServiceSupportProperties.CommandPort settings, @Nullable ClusterKey clusterKey,
            List<InetAddress> addresses) {
        this.commands = commands;
        this.settings = settings;
        this.clusterKey = clusterKey;
        this.addresses = List.copyOf(addresses);
    }

    @Override
    public void onApplicationEvent(WebServerInitializedEvent event) {
        if (!settings.enabled() || listener != null || event.getApplicationContext().getServerNamespace() != null) {
            return; // off, already started, or the management server's event
        }
        int port = settings.port() >= 0 ? settings.port() : derived(event.getWebServer().getPort());
        listener = InternalCommandListener.start(commands, clusterKey, addresses, port).orElse(null);
    }

    /** The default port for HTTP port {@code httpPort}. */
    static int derived(int httpPort) {
        int port = httpPort + OFFSET;
        return httpPort > 0 && port < EPHEMERAL_START ? port : 0;
    }

    @Override
    public int getAsInt() {
        InternalCommandListener l = listener;
        return l == null ? -1 : l.port();
    }

    /** Nothing to do: the listener starts with the HTTP server ({@link #onApplicationEvent}). */
    @Override
    public void start() {
        running = true;
    }

    @Override
    public void stop() {
        running = false;
        InternalCommandListener l = listener;
        listener = null;
        if (l != null) {
            l.close(SHUTDOWN_GRACE);
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }
}
