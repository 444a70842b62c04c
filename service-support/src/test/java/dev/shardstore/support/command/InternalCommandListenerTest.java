package dev.shardstore.support.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.shardstore.contracts.clock.ClusterTimeGossip;
import dev.shardstore.contracts.clock.ClusterTimeSigner;
import dev.shardstore.contracts.clock.LogicalClock;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.transport.wire.Frame;
import dev.shardstore.transport.wire.OpMsg;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The command port against a client that sends what it likes over a real socket: commands run with their
 * {@code $db} and come back stamped with the cluster time; a message with a bad body gets an error reply on a connection
 * that stays usable; bytes out of step close that connection without a reply and leave the listener serving others;
 * closing lets a running command reply first.
 */
class InternalCommandListenerTest {
    private static final Duration HANG_GUARD = Duration.ofSeconds(20);
    private final CountDownLatch slowStarted = new CountDownLatch(1);
    private final CountDownLatch slowRelease = new CountDownLatch(1);
    private final InternalCommandListener listener = InternalCommandListener.start(new InternalCommands(new CommandRegistry(List.of(
                    CommandHandler.of("whatsmydb", (db, command) -> new BsonDocument("ok", new BsonInt32(1)).append("db", new BsonString(db))
                            .append("sawDb", new BsonInt32(command.containsKey("$db") ? 1 : 0))),
                    CommandHandler.of("slow", (db, command) -> {
                        slowStarted.countDown();
                        await(slowRelease);
                        return new BsonDocument("ok", new BsonInt32(1));
                    }))),
            new ClusterTimeGossip(new LogicalClock(LogicalClock.DEFAULT_MAX_DRIFT), ClusterTimeSigner.UNSIGNED)), 0).orElseThrow();

    @AfterEach
    void close() {
        slowRelease.countDown();
        listener.close();
    }

    @Test
    void runsCommandsOnTheirDatabaseWithoutDollarDbAndStampsTheReply() throws IOException {
        try (Socket socket = connect()) {
            for (int i = 1; i <= 3; i++) {
                BsonDocument reply = exchange(socket, i, command("whatsmydb", "geo"));
                assertThat(reply.getString("db").getValue()).isEqualTo("geo");
                assertThat(reply.getInt32("sawDb").getValue()).isZero();
                assertThat(reply.containsKey(ClusterTimeGossip.OPERATION_TIME)).isTrue();
            }
        }
    }

    @Test
    void aMessageWithoutDollarDbOrWithAnUnknownCommandGetsAnErrorReplyAndTheConnectionStaysUsable() throws IOException {
        try (Socket socket = connect()) {
            BsonDocument noDb = exchange(socket, 1, new BsonDocument("whatsmydb", new BsonInt32(1)));
            assertThat(noDb.getNumber("ok").intValue()).isZero();
            assertThat(noDb.getInt32("code").getValue()).isEqualTo(ErrorCode.FailedToParse.code());
            assertThat(noDb.getString("errmsg").getValue()).contains("$db");

            BsonDocument unknown = exchange(socket, 2, command("noSuchCommand", "db"));
            assertThat(unknown.getInt32("code").getValue()).isEqualTo(ErrorCode.CommandNotFound.code());

            assertThat(exchange(socket, 3, command("whatsmydb", "db")).getNumber("ok").intValue()).isEqualTo(1);
        }
    }

    @Test
    void bytesOutOfStepCloseTheConnectionWithoutAReplyAndOthersAreStillServed() throws IOException {
        byte[] lie = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN).putInt(Integer.MAX_VALUE).putInt(1).putInt(0).putInt(2013).array();
        byte[] unknownOpcode = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN).putInt(16).putInt(1).putInt(0).putInt(2004).array();
        for (byte[] bad : List.of(lie, unknownOpcode, new byte[] {1, 2, 3})) {
            try (Socket socket = connect()) {
                socket.getOutputStream().write(bad);
                socket.getOutputStream().flush();
                if (bad.length < 16) {
                    socket.shutdownOutput(); // a header cut short: the stream ends inside the message
                }
                assertTimeoutPreemptively(HANG_GUARD, () -> assertThat(socket.getInputStream().read()).as("closed, no reply").isEqualTo(-1));
            }
        }
        try (Socket socket = connect()) {
            assertThat(exchange(socket, 1, command("whatsmydb", "db")).getNumber("ok").intValue()).isEqualTo(1);
        }
    }

    @Test
    void closingLetsARunningCommandReplyAndClosesIdleConnections() throws Exception {
        try (Socket busy = connect(); Socket idle = connect()) {
            assertThat(exchange(idle, 1, command("whatsmydb", "db")).getNumber("ok").intValue()).isEqualTo(1);
            send(busy, 1, command("slow", "db"));
            assertThat(slowStarted.await(10, TimeUnit.SECONDS)).isTrue();

            Thread closer = Thread.ofPlatform().start(() -> listener.close(Duration.ofSeconds(10)));
            assertTimeoutPreemptively(HANG_GUARD, () -> assertThat(idle.getInputStream().read()).isEqualTo(-1));
            slowRelease.countDown();
            assertThat(reply(busy, 1).getNumber("ok").intValue()).isEqualTo(1);
            closer.join(TimeUnit.SECONDS.toMillis(20));
            assertThat(closer.isAlive()).isFalse();
        }
    }

    private Socket connect() throws IOException {
        Socket socket = new Socket("localhost", listener.port());
        socket.setSoTimeout(10_000);
        return socket;
    }

    private static BsonDocument command(String name, String db) {
        return new BsonDocument(name, new BsonInt32(1)).append("$db", new BsonString(db));
    }

    private static BsonDocument exchange(Socket socket, int requestId, BsonDocument command) throws IOException {
        send(socket, requestId, command);
        return reply(socket, requestId);
    }

    private static void send(Socket socket, int requestId, BsonDocument command) throws IOException {
        OutputStream out = socket.getOutputStream();
        out.write(OpMsg.of(command).encode(requestId, 0));
        out.flush();
    }

    private static BsonDocument reply(Socket socket, int requestId) throws IOException {
        InputStream in = socket.getInputStream();
        Optional<Frame> frame = Frame.read(in, 1 << 24);
        assertThat(frame).isPresent();
        assertThat(frame.get().responseTo()).isEqualTo(requestId);
        return OpMsg.parse(frame.get()).body();
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
