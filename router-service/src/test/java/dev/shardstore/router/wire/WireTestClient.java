package dev.shardstore.router.wire;

import dev.shardstore.transport.wire.BsonFrames;
import dev.shardstore.transport.wire.Frame;
import dev.shardstore.transport.wire.Messages;
import dev.shardstore.transport.wire.OpCode;
import dev.shardstore.transport.wire.OpMsg;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.io.BasicOutputBuffer;

/**
 * A raw wire-protocol client for tests: writes frames as given (well-formed or not) and reads the router's replies
 * with the production {@link Frame} reader. Every read has a timeout, so a router that hangs fails the test instead
 * of hanging it.
 */
final class WireTestClient implements AutoCloseable {
    private static final AtomicInteger IDS = new AtomicInteger(1000);
    final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    WireTestClient(int port) throws IOException {
        socket = new Socket("127.0.0.1", port);
        socket.setSoTimeout(20_000);
        in = socket.getInputStream();
        out = socket.getOutputStream();
    }

    static int nextId() {
        return IDS.incrementAndGet();
    }

    void send(byte[] message) throws IOException {
        out.write(message);
        out.flush();
    }

    /** The next message, or empty at end of stream. */
    Optional<Frame> read() throws IOException {
        return Frame.read(in, 64 * 1024 * 1024);
    }

    /** Sends {@code command} on {@code db} as an OP_MSG and returns the reply's body. */
    BsonDocument command(String db, BsonDocument command) throws IOException {
        int id = nextId();
        send(OpMsg.of(command.clone().append("$db", new BsonString(db))).encode(id, 0));
        Frame reply = read().orElseThrow(() -> new IOException("connection closed instead of a reply"));
        if (reply.responseTo() != id) {
            throw new IllegalStateException("reply to " + reply.responseTo() + ", expected " + id);
        }
        return OpMsg.parse(reply).body();
    }

    /** The single document of an OP_REPLY. */
    static BsonDocument replyDocument(Frame frame) {
        if (frame.opCode() != OpCode.OP_REPLY) {
            throw new IllegalArgumentException("not an OP_REPLY: " + frame.opCode());
        }
        ByteBuffer body = frame.body();
        body.position(20);
        return BsonFrames.read(body);
    }

    /** An OP_QUERY of {@code query} on {@code namespace}. */
    static byte[] opQuery(int requestId, String namespace, BsonDocument query) {
        BasicOutputBuffer out = new BasicOutputBuffer();
        Messages.writeHeader(out, requestId, 0, OpCode.OP_QUERY);
        out.writeInt32(0);
        out.writeCString(namespace);
        out.writeInt32(0);
        out.writeInt32(-1);
        BsonFrames.write(query, out);
        Messages.patchLength(out);
        return out.toByteArray();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
