package dev.shardstore.transport.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.awaitility.Awaitility.await;

import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The internal transport against a raw-socket peer that misbehaves on purpose: every failure is a
 * {@link CommandException} with MongoDB's code naming the peer, none hangs (each call is bounded by
 * the client's own timeouts; the preemptive guard only turns a hang into a failure), and no failed
 * exchange keeps a pooled connection.
 */
class CommandClientTest {
    private static final BsonDocument PING = new BsonDocument("ping", new BsonInt32(1));
    private static final Duration HANG_GUARD = Duration.ofSeconds(20);

    private final CommandClient client = new CommandClient(Duration.ofSeconds(2), Duration.ofMillis(500));
    private Peer peer;

    @BeforeEach
    void start() throws IOException {
        peer = new Peer();
    }

    @AfterEach
    void stop() throws IOException {
        client.close();
        peer.close();
    }

    @Test
    void reusesOneKeepAliveConnectionForSequentialCalls() {
        peer.reply = out -> okReply(out, BsonBytes.encode(new BsonDocument("ok", new BsonInt32(1))));

        for (int i = 0; i < 5; i++) {
            assertThat(client.run("shard1", peer.url(), "db", PING).getInt32("ok").getValue()).isEqualTo(1);
        }

        assertThat(peer.connections).hasValue(1);
        assertThat(peer.requestPaths).allMatch(p -> p.equals("/internal/v1/databases/db/command"));
        assertThat(client.leasedConnections()).isZero();
    }

    @Test
    void bytesThatAreNotBsonAreHostUnreachableNamingThePeer() {
        peer.reply = out -> okReply(out, "this is not BSON at all".getBytes(StandardCharsets.US_ASCII));

        assertFails(ErrorCode.HostUnreachable, "shard1 at " + peer.url() + " sent an unreadable reply to ping");
    }

    @Test
    void aBsonLengthThatOverrunsTheBodyIsUnreadable() {
        byte[] doc = BsonBytes.encode(new BsonDocument("ok", new BsonInt32(1)));
        doc[0] = 100; // claims 100 bytes, has 13
        peer.reply = out -> okReply(out, doc);

        assertFails(ErrorCode.HostUnreachable, "unreadable reply");
    }

    @Test
    void aBodyShorterThanItsContentLengthIsHostUnreachable() {
        peer.reply = out -> {
            out.write(("HTTP/1.1 200 OK\r\nContent-Type: application/bson\r\nContent-Length: 100\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(new byte[10]);
            out.flush();
            return false; // close mid-body
        };

        assertFails(ErrorCode.HostUnreachable, "shard1 at " + peer.url() + " is unreachable");
    }

    @Test
    void aPeerClosingTheConnectionMidHeadersIsHostUnreachable() {
        peer.reply = out -> {
            out.write("HTTP/1.1 200 OK\r\nContent-Ty".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            return false;
        };

        assertFails(ErrorCode.HostUnreachable, "is unreachable");
    }

    @Test
    void aPeerThatStaysSilentIsNetworkTimeout() {
        peer.reply = out -> {
            peer.silent.await();
            return false;
        };

        assertFails(ErrorCode.NetworkTimeout, "shard1 at " + peer.url() + " did not answer ping within 500 ms");
    }

    @Test
    void aStatusOtherThan200IsHostUnreachableWithTheStatus() {
        peer.reply = out -> {
            out.write("HTTP/1.1 503 Service Unavailable\r\nContent-Length: 4\r\n\r\nbusy".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            return true;
        };

        assertFails(ErrorCode.HostUnreachable, "answered HTTP 503 to ping");
    }

    @Test
    void aClosedPortIsHostUnreachable() throws Exception {
        String url = peer.url();
        peer.close();
        awaitRefused(peer.server.getLocalPort());

        assertThatThrownBy(() -> client.run("shard1", url, "db", PING))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.HostUnreachable))
                .hasMessageContaining("refused the connection");
    }

    @Test
    void aFailedExchangeDoesNotPoisonThePoolForTheNextCall() {
        AtomicInteger calls = new AtomicInteger();
        peer.reply = out -> {
            if (calls.incrementAndGet() == 1) {
                out.write("HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\nshort".getBytes(StandardCharsets.US_ASCII));
                out.flush();
                return false;
            }
            return okReply(out, BsonBytes.encode(new BsonDocument("ok", new BsonInt32(1))));
        };

        assertFails(ErrorCode.HostUnreachable, "is unreachable");
        assertThat(client.run("shard1", peer.url(), "db", PING).getInt32("ok").getValue()).isEqualTo(1);
        assertThat(client.leasedConnections()).isZero();
    }

    @Test
    void aCallWaitingOnAForkJoinWorkerLetsThePoolRunItsOtherTasks() throws Exception {
        CountDownLatch firstArrived = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger calls = new AtomicInteger();
        peer.reply = out -> {
            if (calls.incrementAndGet() == 1) {
                firstArrived.countDown();
                release.await();
            }
            return okReply(out, BsonBytes.encode(new BsonDocument("ok", new BsonInt32(1))));
        };
        ForkJoinPool pool = new ForkJoinPool(1);
        try (CommandClient patient = new CommandClient(Duration.ofSeconds(2), Duration.ofSeconds(60))) {
            Future<BsonDocument> waiting = pool.submit(() -> patient.run("shard1", peer.url(), "db", PING));
            assertThat(firstArrived.await(10, TimeUnit.SECONDS)).isTrue();

            Future<BsonDocument> next = pool.submit(() -> patient.run("shard1", peer.url(), "db", PING));

            assertThat(next.get(10, TimeUnit.SECONDS).getInt32("ok").getValue())
                    .as("the pool's only worker waits on a socket: the pool must add one").isEqualTo(1);
            release.countDown();
            assertThat(waiting.get(10, TimeUnit.SECONDS).getInt32("ok").getValue()).isEqualTo(1);
        } finally {
            release.countDown();
            pool.shutdownNow();
        }
    }

    private void assertFails(ErrorCode code, String message) {
        assertTimeoutPreemptively(HANG_GUARD, () -> assertThatThrownBy(() -> client.run("shard1", peer.url(), "db", PING))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(code))
                .hasMessageContaining(message));
        assertThat(client.leasedConnections()).isZero();
    }

    private static boolean okReply(OutputStream out, byte[] body) throws IOException {
        out.write(("HTTP/1.1 200 OK\r\nContent-Type: application/bson\r\nContent-Length: " + body.length + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        out.write(body);
        out.flush();
        return true;
    }

    /**
     * Waits until a closed port refuses connections: closing a server socket that a thread is blocked accepting on
     * completes asynchronously, and a connection made meanwhile is accepted and then dropped.
     */
    static void awaitRefused(int port) {
        await("port " + port + " refuses connections after close").atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(50))
                .until(() -> {
                    try (Socket probe = new Socket("localhost", port)) {
                        return false;
                    } catch (IOException refused) {
                        return true;
                    }
                });
    }

    /** What the peer sends for one request; true keeps the connection open for the next one. */
    @FunctionalInterface
    interface Reply {
        boolean send(OutputStream out) throws Exception;
    }

    /** A one-port HTTP/1.1 peer on raw sockets: reads each request whole, then lets {@link #reply} answer. */
    static final class Peer implements AutoCloseable {
        final ServerSocket server = new ServerSocket(0);
        final AtomicInteger connections = new AtomicInteger();
        final CopyOnWriteArrayList<String> requestPaths = new CopyOnWriteArrayList<>();
        final CountDownLatch silent = new CountDownLatch(1);
        volatile Reply reply;

        Peer() throws IOException {
            Thread.ofPlatform().daemon().start(this::accept);
        }

        String url() {
            return "http://localhost:" + server.getLocalPort();
        }

        private void accept() {
            while (!server.isClosed()) {
                try {
                    Socket socket = server.accept();
                    connections.incrementAndGet();
                    Thread.ofPlatform().daemon().start(() -> serve(socket));
                } catch (IOException closed) {
                    return;
                }
            }
        }

        private void serve(Socket socket) {
            try (socket; InputStream in = socket.getInputStream(); OutputStream out = socket.getOutputStream()) {
                while (readRequest(in)) {
                    if (!reply.send(out)) {
                        return;
                    }
                }
            } catch (Exception e) {
                // the client went away: nothing to serve
            }
        }

        /** Reads one request's head and body; false at end of stream. */
        private boolean readRequest(InputStream in) throws IOException {
            ByteArrayOutputStream head = new ByteArrayOutputStream();
            int b;
            while ((b = in.read()) != -1) {
                head.write(b);
                if (head.size() >= 4 && head.toString(StandardCharsets.US_ASCII).endsWith("\r\n\r\n")) {
                    break;
                }
            }
            if (b == -1) {
                return false;
            }
            String[] lines = head.toString(StandardCharsets.US_ASCII).split("\r\n");
            requestPaths.add(lines[0].split(" ")[1]);
            int length = 0;
            for (String line : lines) {
                if (line.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
                    length = Integer.parseInt(line.substring(15).trim());
                }
            }
            in.readNBytes(length);
            return true;
        }

        @Override
        public void close() throws IOException {
            silent.countDown();
            server.close();
        }
    }
}
