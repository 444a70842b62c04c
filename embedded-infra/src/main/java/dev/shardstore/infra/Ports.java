package dev.shardstore.infra;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;

/** TCP port checks on the loopback interface, used before starting a server and to probe one. */
public final class Ports {
    private Ports() {}

    /**
     * Fails unless {@code port} on the loopback address can be bound now.
     *
     * @param port  the TCP port, 1..65535
     * @param owner what wants the port, for the message (e.g. "PostgreSQL", "shard2")
     * @throws PortInUseException naming {@code owner} and {@code port} when something already listens there
     */
    public static void requireFree(int port, String owner) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        } catch (IOException e) {
            throw new PortInUseException(owner, port, e);
        }
    }

    /**
     * Whether a TCP connection to {@code localhost:port} succeeds within {@code timeout}.
     */
    public static boolean isListening(int port, Duration timeout) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), (int) timeout.toMillis());
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** A port that {@link #requireFree} found taken. */
    public static final class PortInUseException extends IllegalStateException {
        private final int port;

        PortInUseException(String owner, int port, Throwable cause) {
            super("port " + port + " for " + owner + " is already in use (another cluster or program listens there; "
                    + "stop it, or pick other ports)", cause);
            this.port = port;
        }

        /** The port that was taken. */
        public int port() {
            return port;
        }
    }
}
