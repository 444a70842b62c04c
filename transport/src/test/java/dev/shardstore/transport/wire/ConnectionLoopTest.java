package dev.shardstore.transport.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The server-side message loop over a real loopback connection. */
class ConnectionLoopTest {
    private final ExecutorService executor = Executors.newCachedThreadPool();
    private final LoopbackPair pair = LoopbackPair.open();
    private final Socket client = pair.client();
    private final Socket accepted = pair.accepted();

    @AfterEach
    void close() throws IOException {
        pair.close();
        executor.shutdownNow();
    }

    /** Answers {@code {n: i}} with {@code {n: i * 10}}, and nothing to a message with moreToCome. */
    private final class Echo implements ConnectionLoop.Handler {
        final List<String> events = new CopyOnWriteArrayList<>();

        @Override
        public byte @Nullable [] answer(Frame frame) {
            OpMsg request = OpMsg.parse(frame);
            int n = request.body().getInt32("n").getValue();
            events.add("answer " + n);
            return request.has(OpMsg.MORE_TO_COME) ? null
                    : OpMsg.of(new BsonDocument("n", new BsonInt32(n * 10))).encode(n, frame.requestId());
        }

        @Override
        public void writing(boolean inProgress) {
            events.add(inProgress ? "writing" : "written");
        }
    }

    private static byte[] message(int n, int flags) {
        return new OpMsg(flags, new BsonDocument("n", new BsonInt32(n)), java.util.Map.of()).encode(n, 0);
    }

    private int readReply(DataInputStream in) throws IOException {
        Frame frame = Frame.read(in, 1 << 20).orElseThrow();
        return OpMsg.parse(frame).body().getInt32("n").getValue();
    }

    @Test
    void answersInOrderWritesNothingForMoreToComeAndEndsWhenThePeerCloses() throws Exception {
        Echo echo = new Echo();
        Future<?> loop = executor.submit(() -> {
            ConnectionLoop.serve(accepted, Duration.ofSeconds(30), 1 << 20, () -> false, echo);
            return null;
        });
        OutputStream out = client.getOutputStream();
        DataInputStream in = new DataInputStream(client.getInputStream());
        out.write(message(1, 0));
        out.write(message(2, OpMsg.MORE_TO_COME));
        out.write(message(3, 0));
        out.flush();
        assertThat(readReply(in)).isEqualTo(10);
        assertThat(readReply(in)).as("the moreToCome message got no reply: the next one is message 3's").isEqualTo(30);
        client.shutdownOutput();
        loop.get(10, TimeUnit.SECONDS);
        assertThat(echo.events).containsExactly("answer 1", "writing", "written", "answer 2", "answer 3", "writing", "written");
    }

    @Test
    void aMessageThatArrivesOnceStoppingIsNotAnswered() throws Exception {
        AtomicBoolean stopping = new AtomicBoolean(true);
        Echo echo = new Echo();
        Future<?> loop = executor.submit(() -> {
            ConnectionLoop.serve(accepted, Duration.ofSeconds(30), 1 << 20, stopping::get, echo);
            return null;
        });
        client.getOutputStream().write(message(1, 0));
        loop.get(10, TimeUnit.SECONDS);
        assertThat(echo.events).isEmpty();
    }

    @Test
    void aMessageCutShortEndsTheLoopWithAnError() throws Exception {
        Future<?> loop = executor.submit(() -> {
            ConnectionLoop.serve(accepted, Duration.ofSeconds(30), 1 << 20, () -> false, new Echo());
            return null;
        });
        byte[] whole = message(1, 0);
        client.getOutputStream().write(whole, 0, whole.length - 3);
        client.shutdownOutput();
        assertThatThrownBy(() -> loop.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(MalformedMessageException.class);
    }

    @Test
    void aSilentPeerTimesOutAtTheIdleLimit() throws Exception {
        Future<?> loop = executor.submit(() -> {
            ConnectionLoop.serve(accepted, Duration.ofMillis(300), 1 << 20, () -> false, new Echo());
            return null;
        });
        assertThatThrownBy(() -> loop.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(java.net.SocketTimeoutException.class);
    }
}
