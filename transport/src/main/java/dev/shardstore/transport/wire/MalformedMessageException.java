package dev.shardstore.transport.wire;

/**
 * A frame a node cannot read past: a length that lies or exceeds {@code maxMessageSizeBytes}, an unknown
 * opcode, a truncated frame, or a compressed payload that does not decompress to its announced size. The stream
 * can no longer be trusted to be in step, so the connection is closed without a reply (what mongod does for
 * framing errors).
 */
public class MalformedMessageException extends RuntimeException {
    public MalformedMessageException(String message) {
        super(message);
    }

    public MalformedMessageException(String message, Throwable cause) {
        super(message, cause);
    }
}
