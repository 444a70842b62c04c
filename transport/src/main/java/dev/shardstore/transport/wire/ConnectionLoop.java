package dev.shardstore.transport.wire;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.SequenceInputStream;
import java.net.Socket;
import java.time.Duration;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;

/**
 * The loop of a server-side connection in MongoDB's framing, one message at a time, in order, on the calling thread:
 * read a whole message, answer it, write the answer, repeat. The router's client connections and every service's
 * command port run it. A message must arrive whole within the idle limit. The limit is a {@link SocketDeadlines}
 * deadline rather than the socket's read timeout, which would make every blocking read poll first (issue 10).
 */
public final class ConnectionLoop {
    private static final int BUFFER_BYTES = 16 * 1024;

    private ConnectionLoop() {
    }

    /** What a connection does with its messages. */
    public interface Handler {
        /**
         * The encoded reply to {@code frame}, or null when none is due (OP_MSG's {@code moreToCome}).
         *
         * @throws MalformedMessageException when the connection cannot go on; it is then closed
         */
        byte @Nullable [] answer(Frame frame);

        /** Told just before a reply's bytes are written ({@code true}) and once they are flushed or failed ({@code false}). */
        default void writing(boolean inProgress) {
        }
    }

    /**
     * Serves {@code socket} until the peer closes it between messages, or {@code stopping} says so once a message has
     * arrived (that message is then not answered). Does not close the socket.
     *
     * @param idle           how long a whole message may take to arrive, counted from the end of the last reply
     * @param maxMessageSize the largest message accepted, in bytes (the frame's own length field included)
     * @throws MalformedMessageException a frame that cannot be read past (bad length, cut short)
     * @throws java.net.SocketTimeoutException no whole message within {@code idle}
     * @throws IOException the socket failed (or was closed under the loop)
     */
    public static void serve(Socket socket, Duration idle, int maxMessageSize, BooleanSupplier stopping, Handler handler)
            throws IOException {
        serve(socket, new byte[0], idle, maxMessageSize, stopping, handler);
    }

    /**
     * {@link #serve(Socket, Duration, int, BooleanSupplier, Handler)} for a socket whose first {@code alreadyRead} bytes
     * were read before the loop (the router's listener reads a few to tell a TLS client from a plain one).
     */
    public static void serve(Socket socket, byte[] alreadyRead, Duration idle, int maxMessageSize, BooleanSupplier stopping,
            Handler handler) throws IOException {
        try (SocketDeadlines.Deadline deadline = SocketDeadlines.shared().watch(socket)) {
            InputStream socketIn = new BufferedInputStream(socket.getInputStream(), BUFFER_BYTES);
            InputStream in = alreadyRead.length == 0 ? socketIn
                    : new SequenceInputStream(new ByteArrayInputStream(alreadyRead.clone()), socketIn);
            OutputStream out = new BufferedOutputStream(socket.getOutputStream(), BUFFER_BYTES);
            SocketDeadlines.IoOperation<Optional<Frame>> next = () -> Frame.read(in, maxMessageSize);
            String quiet = "no whole message for " + idle.toMillis() + " ms";
            for (Optional<Frame> frame = deadline.within(idle, quiet, next); frame.isPresent() && !stopping.getAsBoolean();
                    frame = deadline.within(idle, quiet, next)) {
                byte[] reply = handler.answer(frame.get());
                if (reply != null) {
                    handler.writing(true);
                    try {
                        out.write(reply);
                        out.flush();
                    } finally {
                        handler.writing(false);
                    }
                }
            }
        }
    }
}
