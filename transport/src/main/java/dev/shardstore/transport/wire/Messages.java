package dev.shardstore.transport.wire;

import org.bson.io.BasicOutputBuffer;

/** Writing the standard message header: the length is patched in once the body is written. */
public final class Messages {
    private Messages() {}

    /** Writes a header with a placeholder length; call {@link #patchLength} when the message is complete. */
    public static void writeHeader(BasicOutputBuffer out, int requestId, int responseTo, OpCode opCode) {
        out.writeInt32(0);
        out.writeInt32(requestId);
        out.writeInt32(responseTo);
        out.writeInt32(opCode.code());
    }

    /** Sets {@code messageLength} to the buffer's size. */
    public static void patchLength(BasicOutputBuffer out) {
        out.writeInt32(0, out.getPosition());
    }
}
