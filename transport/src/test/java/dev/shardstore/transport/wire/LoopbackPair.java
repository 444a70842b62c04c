package dev.shardstore.transport.wire;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;

/** Two ends of one real loopback TCP connection, for tests that block in real reads; closing closes both. */
record LoopbackPair(Socket client, Socket accepted) implements AutoCloseable {
    /** Opens a pair (a test instance's field initializer may call this: it throws nothing checked). */
    static LoopbackPair open() {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Socket client = new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort());
            return new LoopbackPair(client, server.accept());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() throws IOException {
        client.close();
        accepted.close();
    }
}
