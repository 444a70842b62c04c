package dev.shardstore.router.wire;

import dev.shardstore.transport.wire.BsonFrames;
import dev.shardstore.transport.wire.Messages;
import dev.shardstore.transport.wire.OpCode;
import org.bson.BsonDocument;
import org.bson.io.BasicOutputBuffer;

/**
 * The OP_REPLY that answers an OP_QUERY handshake: {@code int32 responseFlags, int64 cursorID, int32 startingFrom,
 * int32 numberReturned, documents}. Command replies carry exactly one document and no cursor.
 */
public final class OpReply {
    private OpReply() {}

    /** The whole message answering request {@code responseTo} with {@code document}. */
    public static byte[] encode(int requestId, int responseTo, BsonDocument document) {
        BasicOutputBuffer out = new BasicOutputBuffer();
        Messages.writeHeader(out, requestId, responseTo, OpCode.OP_REPLY);
        out.writeInt32(0);
        out.writeInt64(0);
        out.writeInt32(0);
        out.writeInt32(1);
        BsonFrames.write(document, out);
        Messages.patchLength(out);
        return out.toByteArray();
    }
}
