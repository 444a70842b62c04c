package dev.shardstore.router.wire;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.transport.wire.BsonFrames;
import dev.shardstore.transport.wire.Frame;
import dev.shardstore.transport.wire.OpCode;
import dev.shardstore.transport.wire.OpMsg;
import java.nio.ByteBuffer;
import java.util.Objects;
import org.bson.BsonDocument;

/**
 * A legacy OP_QUERY ({@code int32 flags, cstring fullCollectionName, int32 numberToSkip, int32 numberToReturn,
 * document query, [document returnFieldsSelector]}). Since MongoDB 6.0 only the connection handshake may travel in
 * one: {@code isMaster}/{@code hello} on {@code <db>.$cmd}, which drivers and mongosh send first.
 *
 * @param flags              the query flags (ignored: none matters for a handshake)
 * @param fullCollectionName {@code <db>.<collection>}, {@code admin.$cmd} for a command
 * @param query              the query document; a command may be wrapped as {@code {$query: {...}, $readPreference}}
 */
public record OpQuery(int flags, String fullCollectionName, BsonDocument query) {
    public OpQuery {
        Objects.requireNonNull(fullCollectionName, "fullCollectionName");
        Objects.requireNonNull(query, "query");
    }

    /**
     * Parses an OP_QUERY frame (a trailing field selector is read and dropped).
     *
     * @throws CommandException ProtocolError (17) when the fields do not fit the message; InvalidBSON (22) for a bad
     *                          document
     */
    public static OpQuery parse(Frame frame) {
        if (frame.opCode() != OpCode.OP_QUERY) {
            throw new IllegalArgumentException("not an OP_QUERY: " + frame.opCode());
        }
        ByteBuffer in = frame.body();
        if (in.remaining() < 4) {
            throw new CommandException(ErrorCode.ProtocolError, "OP_QUERY too short for its flags");
        }
        int flags = in.getInt();
        String collection = OpMsg.cString(in);
        if (in.remaining() < 8) {
            throw new CommandException(ErrorCode.ProtocolError, "OP_QUERY too short for numberToSkip and numberToReturn");
        }
        in.getInt();
        in.getInt();
        BsonDocument query = BsonFrames.read(in);
        if (in.hasRemaining()) {
            BsonFrames.read(in);
        }
        return new OpQuery(flags, collection, query);
    }

    /** True when this is a command: the collection part of the namespace is {@code $cmd}. */
    public boolean isCommand() {
        return fullCollectionName.endsWith(".$cmd");
    }

    /** The database part of the namespace. */
    public String database() {
        int dot = fullCollectionName.indexOf('.');
        return dot < 0 ? fullCollectionName : fullCollectionName.substring(0, dot);
    }

    /** The command document, unwrapped from {@code $query} when the driver wrapped it (read preference). */
    public BsonDocument command() {
        return query.isDocument("$query") ? query.getDocument("$query") : query;
    }
}
