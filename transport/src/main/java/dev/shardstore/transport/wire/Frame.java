package dev.shardstore.transport.wire;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;

/**
 * One whole wire-protocol message as it came off (or goes onto) the socket: the 16-byte standard header
 * ({@code messageLength, requestID, responseTo, opCode}, little-endian int32s) followed by the opcode's body. The
 * bytes are kept whole because OP_MSG's CRC-32C checksum covers the header too.
 *
 * @param requestId  the sender's id for this message
 * @param responseTo the request this message answers, 0 for a request
 * @param opCode     the (known) opcode
 * @param bytes      the whole message, header included; its length is the header's {@code messageLength}
 */
public record Frame(int requestId, int responseTo, OpCode opCode, byte[] bytes) {
    /** Size of the standard message header. */
    public static final int HEADER_SIZE = 16;
    private static final int INITIAL_BUFFER = 64 * 1024;

    public Frame {
        Objects.requireNonNull(opCode, "opCode");
        Objects.requireNonNull(bytes, "bytes");
        if (bytes.length < HEADER_SIZE) {
            throw new IllegalArgumentException("a message has at least the 16-byte header, was " + bytes.length);
        }
    }

    /** The message after the header, positioned at its first byte, little-endian. */
    public ByteBuffer body() {
        return ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).position(HEADER_SIZE).slice().order(ByteOrder.LITTLE_ENDIAN);
    }

    /**
     * Reads the next message of a stream.
     *
     * @param maxMessageSize the largest {@code messageLength} accepted (MongoDB's {@code maxMessageSizeBytes})
     * @return the message, or empty when the stream ended cleanly before a new message began
     * @throws MalformedMessageException for a length below the header size or above {@code maxMessageSize}, an
     *                                   unknown opcode, or a stream that ends inside the message
     * @throws IOException               when reading fails (including a socket read timeout)
     */
    public static Optional<Frame> read(InputStream in, int maxMessageSize) throws IOException {
        byte[] header = new byte[HEADER_SIZE];
        int first = in.read();
        if (first < 0) {
            return Optional.empty();
        }
        header[0] = (byte) first;
        readFully(in, header, 1, HEADER_SIZE - 1);
        ByteBuffer fields = ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN);
        int length = fields.getInt();
        int requestId = fields.getInt();
        int responseTo = fields.getInt();
        int code = fields.getInt();
        if (length < HEADER_SIZE || length > maxMessageSize) {
            throw new MalformedMessageException("message length " + length + " is outside " + HEADER_SIZE + ".." + maxMessageSize);
        }
        OpCode opCode = OpCode.of(code).orElseThrow(() -> new MalformedMessageException("unsupported opcode " + code));
        return Optional.of(new Frame(requestId, responseTo, opCode, readBody(in, header, length)));
    }

    /**
     * The rest of a message of {@code length} bytes. The buffer grows as bytes arrive (from 64 KiB, doubling), so a
     * length that lies costs memory only for the bytes actually sent.
     */
    private static byte[] readBody(InputStream in, byte[] header, int length) throws IOException {
        byte[] bytes = new byte[Math.min(length, INITIAL_BUFFER)];
        System.arraycopy(header, 0, bytes, 0, HEADER_SIZE);
        int filled = HEADER_SIZE;
        while (filled < length) {
            if (filled == bytes.length) {
                bytes = Arrays.copyOf(bytes, (int) Math.min(length, 2L * bytes.length));
            }
            int chunk = bytes.length - filled;
            readFully(in, bytes, filled, chunk);
            filled += chunk;
        }
        return bytes;
    }

    private static void readFully(InputStream in, byte[] into, int offset, int length) throws IOException {
        try {
            int read = in.readNBytes(into, offset, length);
            if (read < length) {
                throw new MalformedMessageException("truncated message: the stream ended " + (length - read) + " bytes early");
            }
        } catch (EOFException e) {
            throw new MalformedMessageException("truncated message", e);
        }
    }
}
