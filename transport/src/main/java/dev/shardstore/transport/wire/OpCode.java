package dev.shardstore.transport.wire;

import java.util.Optional;

/**
 * The wire protocol's operation codes the cluster reads or writes (the router's client-facing listener and the internal command transport) (MongoDB's "Wire Protocol" page). The legacy
 * CRUD opcodes (OP_INSERT 2002, OP_UPDATE 2001, OP_GET_MORE 2005, OP_DELETE 2006, OP_KILL_CURSORS 2007) were removed
 * in MongoDB 6.0; like MongoDB 6.0+ the cluster treats them as unknown and closes the connection.
 */
public enum OpCode {
    /** Reply to an OP_QUERY; written only, for the legacy handshake. */
    OP_REPLY(1),
    /** Legacy query; accepted only for the handshake ({@code isMaster}/{@code hello} on {@code <db>.$cmd}). */
    OP_QUERY(2004),
    /** A compressed OP_MSG or OP_QUERY. */
    OP_COMPRESSED(2012),
    /** The extensible message every command travels in since MongoDB 3.6. */
    OP_MSG(2013);

    private final int code;

    OpCode(int code) {
        this.code = code;
    }

    /** The number in a message header's {@code opCode} field. */
    public int code() {
        return code;
    }

    private static final OpCode[] ALL = values();

    /** The opcode numbered {@code code}, or empty for an opcode the cluster does not speak. */
    public static Optional<OpCode> of(int code) {
        for (OpCode op : ALL) {
            if (op.code == code) {
                return Optional.of(op);
            }
        }
        return Optional.empty();
    }
}
