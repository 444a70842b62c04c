package dev.shardstore.router.wire;

import dev.shardstore.contracts.clock.ClusterTimeGossip;
import dev.shardstore.contracts.clock.ClusterTimeSigner;
import dev.shardstore.contracts.clock.LogicalClock;
import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.router.testing.NoCursors;
import dev.shardstore.router.command.ClientCommands;
import dev.shardstore.router.security.UserDirectory;
import dev.shardstore.support.security.ClientSecurityProperties;
import dev.shardstore.router.transaction.RouterTransactions;
import dev.shardstore.support.command.CommandHandler;
import dev.shardstore.support.command.CommandRegistry;
import dev.shardstore.transport.http.CommandClient;
import dev.shardstore.transport.wire.Frame;
import dev.shardstore.transport.wire.OpMsg;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import dev.shardstore.support.session.LogicalSessionCache;
import dev.shardstore.support.session.LogicalSessionCacheProperties;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.awaitility.Awaitility;
import org.bson.BsonString;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The listener's limits on a {@link WireServer} of its own (no Spring context): the global and per-client
 * connection limits, the idle timeout (also for a client that stops inside a message), and a client that never
 * reads its replies. Client addresses differ by binding the client sockets to 127.0.0.1, 127.0.0.2, ….
 */
class WireServerLimitsTest {
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    /** A 1 MiB reply, to fill the socket buffers of a client that does not read. */
    private static final BsonDocument BIG = Replies.ok(new BsonDocument("pad", new BsonString("x".repeat(1 << 20))));
    private final CommandRegistry registry = new CommandRegistry(List.of(
            CommandHandler.of("ping", (db, cmd) -> Replies.ok()),
            CommandHandler.of("big", (db, cmd) -> BIG)));
    private final List<Socket> sockets = new ArrayList<>();
    /** A cache whose session service is never reached: no refresh runs within the test. */
    private final LogicalSessionCache sessions = new LogicalSessionCache(new CommandClient(Duration.ofSeconds(1), Duration.ofSeconds(1)),
            new LogicalSessionCacheProperties(true, "http://127.0.0.1:9", Duration.ofHours(1), Duration.ofMinutes(30)), Clock.systemUTC());
    private WireServer server;

    private WireServer start(int maxConnections, int maxPerClient, Duration idle) {
        server = new WireServer(new WireProperties(true, 0, "127.0.0.1", maxConnections, maxPerClient, idle),
                new ClientCommands(registry, meters, new ClusterTimeGossip(new LogicalClock(LogicalClock.DEFAULT_MAX_DRIFT), ClusterTimeSigner.UNSIGNED),
                        sessions, new NoCursors(), new RouterTransactions(sessions), txn -> { }), meters,
                new UserDirectory(command -> Replies.ok(), new ClientSecurityProperties(ClientSecurityProperties.Mode.disabled,
                        Duration.ofSeconds(1), Duration.ofHours(1))));
        server.start();
        return server;
    }

    @AfterEach
    void stop() throws IOException {
        for (Socket socket : sockets) {
            socket.close();
        }
        server.stop();
        sessions.close();
    }

    private Socket connect(String from) throws IOException {
        Socket socket = new Socket();
        sockets.add(socket);
        socket.bind(new InetSocketAddress(InetAddress.getByName(from), 0));
        socket.connect(new InetSocketAddress("127.0.0.1", server.port()));
        socket.setSoTimeout(10_000);
        return socket;
    }

    /** Whether the router answers a ping on {@code socket} (false: it closed the connection). */
    private static boolean answers(Socket socket) {
        try {
            socket.getOutputStream().write(OpMsg.of(new BsonDocument("ping", new BsonInt32(1)).append("$db", new BsonString("admin"))).encode(1, 0));
            return Frame.read(socket.getInputStream(), 1 << 26).map(f -> OpMsg.parse(f).body().getNumber("ok").doubleValue() == 1.0).orElse(false);
        } catch (IOException e) {
            return false;
        }
    }

    private double count(String name, String reason) {
        Counter counter = meters.find(name).tag("reason", reason).counter();
        return counter == null ? 0 : counter.count();
    }

    private static void await(String what, BooleanSupplier condition) {
        Awaitility.await(what).atMost(Duration.ofSeconds(20)).until(condition::getAsBoolean);
    }

    @Test
    void connectionsBeyondThePerClientAndGlobalLimitsAreClosedAtOnce() throws Exception {
        start(3, 2, Duration.ofMinutes(1));
        Socket a1 = connect("127.0.0.1");
        Socket a2 = connect("127.0.0.1");
        assertThat(answers(a1)).isTrue();
        assertThat(answers(a2)).isTrue();
        assertThat(answers(connect("127.0.0.1"))).as("a third from the same address").isFalse();
        assertThat(count("shardstore.router.wire.connections.rejected", "client-limit")).isEqualTo(1);

        Socket b1 = connect("127.0.0.2");
        assertThat(answers(b1)).as("another address still may").isTrue();
        assertThat(answers(connect("127.0.0.3"))).as("a fourth in all").isFalse();
        assertThat(count("shardstore.router.wire.connections.rejected", "limit")).isEqualTo(1);
        assertThat(server.openConnections()).isEqualTo(3);

        a1.close();
        await("a1's close to be seen", () -> server.openConnections() == 2);
        assertThat(answers(connect("127.0.0.1"))).as("a freed slot is reused").isTrue();
        assertThat(answers(a2)).isTrue();
    }

    @Test
    void aSilentConnectionAndOneStoppedInsideAMessageAreClosedAfterTheIdleTimeout() throws Exception {
        start(10, 10, Duration.ofMillis(300));
        Socket silent = connect("127.0.0.1");
        Socket halfway = connect("127.0.0.1");
        byte[] ping = OpMsg.of(new BsonDocument("ping", new BsonInt32(1)).append("$db", new BsonString("admin"))).encode(1, 0);
        halfway.getOutputStream().write(ping, 0, 20);
        assertThat(silent.getInputStream().read()).as("closed by the router").isEqualTo(-1);
        assertThat(halfway.getInputStream().read()).isEqualTo(-1);
        await("both closes to be counted", () -> count("shardstore.router.wire.connections.closed", "idle") == 2);
        assertThat(server.openConnections()).isZero();
    }

    /**
     * A client that sends requests but never reads the replies fills the socket buffers until the router's write
     * blocks; the sweep closes the connection once that write has waited longer than the idle timeout, so the
     * connection's thread does not wait forever.
     */
    @Test
    void aClientThatDoesNotReadItsRepliesIsClosed() throws Exception {
        start(10, 10, Duration.ofMillis(500));
        Socket greedy = new Socket();
        sockets.add(greedy);
        greedy.setReceiveBufferSize(4096);
        greedy.connect(new InetSocketAddress("127.0.0.1", server.port()));
        byte[] big = OpMsg.of(new BsonDocument("big", new BsonInt32(1)).append("$db", new BsonString("admin"))).encode(1, 0);
        CountDownLatch writerDone = new CountDownLatch(1);
        Thread writer = Thread.ofVirtual().start(() -> {
            try {
                for (int i = 0; i < 1000; i++) {
                    greedy.getOutputStream().write(big);
                }
            } catch (IOException e) {
                // the router closed the connection: expected
            } finally {
                writerDone.countDown();
            }
        });
        await("the stalled connection to be closed", () -> count("shardstore.router.wire.connections.closed", "stalled") == 1);
        assertThat(writerDone.await(20, TimeUnit.SECONDS)).as("the client's writes fail once the router closed").isTrue();
        writer.join();
        await("the connection to be gone", () -> server.openConnections() == 0);
        assertThat(answers(connect("127.0.0.1"))).as("the router still serves").isTrue();
    }
}
