package dev.shardstore.transport.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.error.ErrorReplies;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.http.InternalApi;
import dev.shardstore.transport.wire.Frame;
import dev.shardstore.transport.wire.OpMsg;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonTimestamp;
import org.bson.RawBsonDocument;
import org.bson.BsonString;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The command port: a {@link CommandClient} moves a peer's commands to the OP_MSG port its HTTP reply names, and a
 * command port that misbehaves on purpose (bytes that are no message, a reply cut short, a peer closing mid-reply, a
 * silent one, a refused port) fails the command with a clear code naming the peer, never hangs, keeps no connection,
 * and sends the next command over HTTP again.
 */
class CommandPortTest {
    private static final BsonDocument PING = new BsonDocument("ping", new BsonInt32(1));
    private static final Duration HANG_GUARD = Duration.ofSeconds(20);

    /** How far the client's ticker is ahead of {@link System#nanoTime}: a test skips idle time by growing it. */
    private final AtomicLong skippedNanos = new AtomicLong();
    private final CommandClient client = new CommandClient(Duration.ofSeconds(2), Duration.ofMillis(500), null, null,
            () -> System.nanoTime() + skippedNanos.get());
    private CommandClientTest.Peer http;
    private WirePeer wire;

    @BeforeEach
    void start() throws IOException {
        wire = new WirePeer();
        http = new CommandClientTest.Peer();
        http.reply = out -> {
            byte[] body = BsonBytes.encode(new BsonDocument("ok", new BsonInt32(1)).append("via", new BsonString("http")));
            out.write(("HTTP/1.1 200 OK\r\nContent-Type: application/bson\r\n" + InternalApi.COMMAND_PORT_HEADER + ": " + wire.port()
                    + "\r\nContent-Length: " + body.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(body);
            out.flush();
            return true;
        };
    }

    @AfterEach
    void stop() throws IOException {
        client.close();
        http.close();
        wire.close();
    }

    @Test
    void afterTheFirstHttpReplyCommandsGoToTheCommandPortOverOneConnection() {
        assertThat(run().getString("via").getValue()).isEqualTo("http");
        for (int i = 0; i < 5; i++) {
            assertThat(run().getString("via").getValue()).isEqualTo("wire");
        }

        assertThat(wire.connections).hasValue(1);
        assertThat(wire.commands).hasSize(5).allSatisfy(c -> {
            assertThat(c.getString("$db").getValue()).isEqualTo("db");
            assertThat(c.getFirstKey()).isEqualTo("ping");
        });
        assertThat(http.requestPaths).hasSize(1);
        assertThat(client.wireConnections(http.url())).isEqualTo(1);
    }

    @Test
    void aCommandNamingItsOwnDollarDbGoesOverHttpWhereThePeerSeesBothDatabases() {
        assertThat(run().getString("via").getValue()).isEqualTo("http");

        BsonDocument named = PING.clone().append("$db", new BsonString("other"));
        assertThat(client.run("shard1", http.url(), "db", named).getString("via").getValue()).isEqualTo("http");
        assertThat(run().getString("via").getValue()).isEqualTo("wire");
    }

    @Test
    void bytesThatAreNoMessageAreHostUnreachableAndTheNextCommandGoesOverHttp() {
        wire.reply = (request, out) -> {
            out.write("this is no wire-protocol message at all".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            return true;
        };

        assertNextWireCommandFails(ErrorCode.HostUnreachable, "sent an unreadable reply to ping");
    }

    @Test
    void aReplyCutShortIsHostUnreachable() {
        wire.reply = (request, out) -> {
            byte[] whole = OpMsg.of(new BsonDocument("ok", new BsonInt32(1))).encode(1, request.requestId());
            out.write(whole, 0, whole.length - 3);
            out.flush();
            return false; // closes mid-reply
        };

        assertNextWireCommandFails(ErrorCode.HostUnreachable, "sent an unreadable reply to ping");
    }

    @Test
    void aPeerClosingBeforeReplyingIsHostUnreachable() {
        wire.reply = (request, out) -> false;

        assertNextWireCommandFails(ErrorCode.HostUnreachable, "is unreachable");
    }

    @Test
    void aReplyToAnotherRequestIsRefused() {
        wire.reply = (request, out) -> {
            out.write(OpMsg.of(new BsonDocument("ok", new BsonInt32(1))).encode(1, request.requestId() + 1000));
            out.flush();
            return true;
        };

        assertNextWireCommandFails(ErrorCode.HostUnreachable, "answers request");
    }

    @Test
    void aSilentCommandPortIsNetworkTimeout() {
        CountDownLatch never = new CountDownLatch(1);
        wire.reply = (request, out) -> {
            never.await();
            return false;
        };

        try {
            assertNextWireCommandFails(ErrorCode.NetworkTimeout, "did not answer ping within 500 ms");
        } finally {
            never.countDown();
        }
    }

    @Test
    void aRefusedCommandPortSendsTheCommandOverHttpInstead() throws Exception {
        assertThat(run().getString("via").getValue()).isEqualTo("http");
        wire.close();
        CommandClientTest.awaitRefused(wire.port());

        assertThat(run().getString("via").getValue()).as("never sent on the wire: HTTP serves it").isEqualTo("http");
        assertThat(http.requestPaths).hasSize(2);
        assertThat(client.leasedConnections()).isZero();
    }

    @Test
    void aConnectionThePeerClosedWhileIdleIsReplacedWithoutFailingTheCommand() throws Exception {
        assertThat(run().getString("via").getValue()).isEqualTo("http");
        assertThat(run().getString("via").getValue()).isEqualTo("wire");
        wire.dropConnections();
        skippedNanos.addAndGet(WireCommandChannel.CHECK_AFTER_IDLE_NANOS + 1); // idle long enough to be checked before reuse

        assertThat(run().getString("via").getValue()).isEqualTo("wire");
        assertThat(wire.connections).hasValue(2);
        assertThat(client.wireConnections(http.url())).isEqualTo(1);
    }

    /**
     * A virtual thread's I/O leaves a socket non-blocking for good, which would cost a platform thread a {@code poll}
     * before each read: such a connection goes back to a pool of its own that only virtual threads borrow from.
     */
    @Test
    void aConnectionAVirtualThreadUsedIsLentToVirtualThreadsOnly() throws Exception {
        assertThat(run().getString("via").getValue()).isEqualTo("http");
        assertThat(onVirtualThread().getString("via").getValue()).isEqualTo("wire");
        assertThat(wire.connections).hasValue(1);

        assertThat(run().getString("via").getValue()).as("a platform thread gets a new connection").isEqualTo("wire");
        assertThat(wire.connections).hasValue(2);
        assertThat(onVirtualThread().getString("via").getValue()).isEqualTo("wire");
        assertThat(run().getString("via").getValue()).isEqualTo("wire");

        assertThat(wire.connections).as("each kind of thread reused its own connection").hasValue(2);
        assertThat(client.wireConnections(http.url())).isEqualTo(2);
    }

    private BsonDocument onVirtualThread() throws Exception {
        try (var executor = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
            return executor.submit(this::run).get();
        }
    }

    /**
     * A forwarded reply ({@link CommandClient#runForwarding}) is the reply {@link CommandClient#run} decodes — a find's
     * first batch, a getMore's next batch, an error, a stale-version error, a checksummed message — with the batch's
     * documents left as the peer's bytes, and it encodes to the same bytes.
     */
    @Test
    void aForwardedReplyEqualsTheDecodedOneAndKeepsItsBatchAsBytes() {
        BsonDocument doc = new BsonDocument("_id", new BsonString("user1")).append("f", new BsonDocument("a", new BsonInt32(1)));
        List<BsonDocument> replies = List.of(
                Replies.cursor(true, List.of(doc, doc.clone().append("n", new BsonInt32(2))), 0, "db.c"),
                Replies.cursor(false, List.of(doc), 42, "db.c").append("operationTime", new BsonTimestamp(5, 1)),
                ErrorReplies.errorReply(ErrorCode.BadValue, "bad", new BsonDocument()),
                ErrorReplies.errorReply(ErrorCode.StaleConfig, "stale", new BsonDocument("ns", new BsonString("db.c"))
                        .append("vReceived", new BsonDocument("t", new BsonTimestamp(1, 1)))));
        assertThat(run().getString("via").getValue()).isEqualTo("http");
        for (int checksum : new int[] {0, OpMsg.CHECKSUM_PRESENT}) {
            for (BsonDocument reply : replies) {
                wire.reply = (request, out) -> {
                    out.write(new OpMsg(checksum, reply, Map.of()).encode(1, request.requestId()));
                    out.flush();
                    return true;
                };
                BsonDocument decoded = run();
                BsonDocument forwarded = client.runForwarding("shard1", http.url(), "db", PING);

                assertThat(forwarded).isEqualTo(decoded).isEqualTo(reply);
                assertThat(OpMsg.of(forwarded).encode(7, 3)).isEqualTo(OpMsg.of(decoded).encode(7, 3));
                if (reply.isDocument("cursor")) {
                    BsonDocument cursor = forwarded.getDocument("cursor");
                    assertThat(cursor.getArray(cursor.containsKey("firstBatch") ? "firstBatch" : "nextBatch"))
                            .allSatisfy(d -> assertThat(d).isInstanceOf(RawBsonDocument.class));
                    assertThat(decoded.getDocument("cursor").values()).noneMatch(v -> v.isArray()
                            && v.asArray().stream().anyMatch(RawBsonDocument.class::isInstance));
                    cursor.put("id", new BsonInt64(9)); // what the router does when it adopts an open shard cursor
                }
            }
        }
        assertThat(wire.connections).hasValue(1);
    }

    @Test
    void aForwardedReplyWithMoreThanItsBodyIsHostUnreachable() {
        assertThat(run().getString("via").getValue()).isEqualTo("http");
        wire.reply = (request, out) -> {
            out.write(new OpMsg(0, new BsonDocument("ok", new BsonInt32(1)), Map.of("documents", List.of(new BsonDocument())))
                    .encode(1, request.requestId()));
            out.flush();
            return true;
        };

        assertThatThrownBy(() -> client.runForwarding("shard1", http.url(), "db", PING))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.HostUnreachable))
                .hasMessageContaining("sent an unreadable reply to ping");
        assertThat(client.wireConnections(http.url())).isEqualTo(-1);
    }

    /** The first command learns the port over HTTP, the second fails on the wire, the third is served over HTTP. */
    private void assertNextWireCommandFails(ErrorCode code, String message) {
        assertThat(run().getString("via").getValue()).isEqualTo("http");
        assertTimeoutPreemptively(HANG_GUARD, () -> assertThatThrownBy(this::run)
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(code))
                .hasMessageContaining("shard1 at " + http.url() + " (command port localhost:" + wire.port() + ")")
                .hasMessageContaining(message));
        assertThat(client.wireConnections(http.url())).as("the failed channel is dropped with its connections").isEqualTo(-1);
        assertThat(run().getString("via").getValue()).isEqualTo("http");
        assertThat(client.leasedConnections()).isZero();
    }

    private BsonDocument run() {
        return client.run("shard1", http.url(), "db", PING);
    }

    /** What the command port sends for one request; true keeps the connection open. */
    @FunctionalInterface
    interface WireReply {
        boolean send(Frame request, OutputStream out) throws Exception;
    }

    /** A raw-socket OP_MSG peer: records each command, answers {ok: 1, via: "wire"} unless told otherwise. */
    static final class WirePeer implements AutoCloseable {
        final ServerSocket server = new ServerSocket(0);
        final AtomicInteger connections = new AtomicInteger();
        final CopyOnWriteArrayList<BsonDocument> commands = new CopyOnWriteArrayList<>();
        final CopyOnWriteArrayList<Socket> sockets = new CopyOnWriteArrayList<>();
        volatile WireReply reply = (request, out) -> {
            out.write(OpMsg.of(new BsonDocument("ok", new BsonInt32(1)).append("via", new BsonString("wire"))).encode(1, request.requestId()));
            out.flush();
            return true;
        };

        WirePeer() throws IOException {
            Thread.ofPlatform().daemon().start(this::accept);
        }

        int port() {
            return server.getLocalPort();
        }

        void dropConnections() throws IOException {
            for (Socket s : sockets) {
                s.close();
            }
        }

        private void accept() {
            while (!server.isClosed()) {
                try {
                    Socket socket = server.accept();
                    connections.incrementAndGet();
                    sockets.add(socket);
                    Thread.ofPlatform().daemon().start(() -> serve(socket));
                } catch (IOException closed) {
                    return;
                }
            }
        }

        private void serve(Socket socket) {
            try (socket; InputStream in = socket.getInputStream(); OutputStream out = socket.getOutputStream()) {
                for (Optional<Frame> frame = Frame.read(in, 1 << 20); frame.isPresent(); frame = Frame.read(in, 1 << 20)) {
                    commands.add(OpMsg.parse(frame.get()).body());
                    if (!reply.send(frame.get(), out)) {
                        return;
                    }
                }
            } catch (Exception e) {
                // the client went away: nothing to serve
            }
        }

        @Override
        public void close() throws IOException {
            server.close();
            dropConnections();
        }
    }
}
