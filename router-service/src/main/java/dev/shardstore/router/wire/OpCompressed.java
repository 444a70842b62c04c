package dev.shardstore.router.wire;

import dev.shardstore.transport.wire.Frame;
import dev.shardstore.transport.wire.MalformedMessageException;
import dev.shardstore.transport.wire.Messages;
import dev.shardstore.transport.wire.OpCode;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.bson.io.BasicOutputBuffer;

/**
 * OP_COMPRESSED ({@code int32 originalOpcode, int32 uncompressedSize, uint8 compressorId, compressedMessage}): the
 * body of another message, without its header, compressed. Decompressing yields that message whole again.
 */
public final class OpCompressed {
    private static final int FIELDS_SIZE = 9;

    private OpCompressed() {}

    /**
     * The message a compressed frame carries, and the compressor that carried it.
     *
     * @param frame      the inner message, with the outer header's ids and the original opcode
     * @param compressor the compressor used, which the reply uses too
     */
    public record Unwrapped(Frame frame, Compressor compressor) {}

    /**
     * Decompresses an OP_COMPRESSED frame.
     *
     * @param maxMessageSize the largest message accepted once decompressed
     * @throws MalformedMessageException for a short frame, an unknown compressor, an original opcode that is not
     *                                   OP_MSG or OP_QUERY, a size outside {@code 0..maxMessageSize - 16}, or a payload
     *                                   that does not decompress to that size
     */
    public static Unwrapped unwrap(Frame frame, int maxMessageSize) {
        if (frame.opCode() != OpCode.OP_COMPRESSED) {
            throw new IllegalArgumentException("not an OP_COMPRESSED: " + frame.opCode());
        }
        ByteBuffer in = frame.body();
        if (in.remaining() < FIELDS_SIZE) {
            throw new MalformedMessageException("OP_COMPRESSED too short for its fields");
        }
        int originalCode = in.getInt();
        int uncompressedSize = in.getInt();
        int compressorId = in.get() & 0xFF;
        OpCode original = OpCode.of(originalCode)
                .filter(op -> op == OpCode.OP_MSG || op == OpCode.OP_QUERY)
                .orElseThrow(() -> new MalformedMessageException("OP_COMPRESSED cannot carry opcode " + originalCode));
        if (uncompressedSize < 0 || uncompressedSize > maxMessageSize - Frame.HEADER_SIZE) {
            throw new MalformedMessageException("OP_COMPRESSED uncompressed size " + uncompressedSize + " is outside 0.."
                    + (maxMessageSize - Frame.HEADER_SIZE));
        }
        Compressor compressor = Compressor.ofId(compressorId).filter(Compressor::available)
                .orElseThrow(() -> new MalformedMessageException("unsupported compressor id " + compressorId));
        byte[] compressed = new byte[in.remaining()];
        in.get(compressed);
        byte[] body = compressor.decompress(compressed, uncompressedSize);
        byte[] message = new byte[Frame.HEADER_SIZE + uncompressedSize];
        ByteBuffer.wrap(message).order(ByteOrder.LITTLE_ENDIAN)
                .putInt(message.length).putInt(frame.requestId()).putInt(frame.responseTo()).putInt(original.code()).put(body);
        return new Unwrapped(new Frame(frame.requestId(), frame.responseTo(), original, message), compressor);
    }

    /** Compresses a whole message (header included) into an OP_COMPRESSED with the same ids. */
    public static byte[] wrap(byte[] message, Compressor compressor) {
        ByteBuffer header = ByteBuffer.wrap(message).order(ByteOrder.LITTLE_ENDIAN);
        byte[] body = java.util.Arrays.copyOfRange(message, Frame.HEADER_SIZE, message.length);
        BasicOutputBuffer out = new BasicOutputBuffer();
        Messages.writeHeader(out, header.getInt(4), header.getInt(8), OpCode.OP_COMPRESSED);
        out.writeInt32(header.getInt(12));
        out.writeInt32(body.length);
        out.writeByte(compressor.id());
        out.writeBytes(compressor.compress(body));
        Messages.patchLength(out);
        return out.toByteArray();
    }
}
