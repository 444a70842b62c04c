package dev.shardstore.router.wire;

import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.bson.BsonLimits;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonValue;

/**
 * The connection handshake, answered as a mongos answers it: {@code hello}, and the legacy {@code isMaster} /
 * {@code ismaster} (the only commands MongoDB 6.0+ still takes in an OP_QUERY).
 *
 * <p>Reply: {@code isWritablePrimary: true} ({@code ismaster: true} for the legacy spellings), {@code msg:
 * "isdbgrid"} (which makes drivers see a mongos), the size limits, {@code localTime}, {@code connectionId},
 * {@code minWireVersion: 0} and {@code maxWireVersion: 25}, {@code readOnly: false}, {@code ok: 1}; plus
 * {@code helloOk: true} when the client asked, and {@code compression} (the compressors both sides have, in the
 * client's order) when the client listed any.
 *
 * <p>{@code maxWireVersion} 25 is MongoDB 8.0's: the commands, fields and reply shapes the router implements follow
 * the MongoDB 8.0 manual's "Database Commands", so a driver may use anything 8.0 offers and gets 8.0's answer or a clear error for what
 * is not implemented. {@code minWireVersion} is 0 as on every mongos (the floor is the driver's choice).
 *
 * <p>{@code logicalSessionTimeoutMinutes} (the router's {@code localLogicalSessionTimeoutMinutes}) tells drivers that
 * the router has logical sessions: they send an {@code lsid} with every command and a {@code txnNumber} with
 * retryable writes. Left out on purpose: {@code topologyVersion}, so drivers poll {@code hello} (every 10 s by default)
 * instead of streaming it.
 */
final class Handshake {
    /** MongoDB 8.0's wire version. */
    static final int MAX_WIRE_VERSION = 25;
    static final int MIN_WIRE_VERSION = 0;
    /** The largest message a client may send and the router reads ({@code maxMessageSizeBytes}). */
    static final int MAX_MESSAGE_SIZE_BYTES = BsonLimits.MAX_MESSAGE_SIZE;
    /** The most statements a client should put in one write command. */
    static final int MAX_WRITE_BATCH_SIZE = 100_000;
    private static final Set<String> NAMES = Set.of("hello", "isMaster", "ismaster");

    private Handshake() {}

    /** True for {@code hello}, {@code isMaster} and {@code ismaster}. */
    static boolean handles(String commandName) {
        return NAMES.contains(commandName);
    }

    /**
     * The reply to a handshake command.
     *
     * @param command      the command document (its first key names the spelling)
     * @param connectionId this connection's number
     * @param logicalSessionTimeoutMinutes how long an unused session lives, in minutes
     * @throws CommandException TypeMismatch (14) when {@code compression} is not an array of strings
     */
    static BsonDocument reply(BsonDocument command, long connectionId, int logicalSessionTimeoutMinutes) {
        String name = command.getFirstKey();
        BsonDocument reply = new BsonDocument(name.equals("hello") ? "isWritablePrimary" : "ismaster", BsonBoolean.TRUE)
                .append("msg", new BsonString("isdbgrid"));
        if (command.containsKey("helloOk")) {
            reply.append("helloOk", BsonBoolean.TRUE);
        }
        reply.append("maxBsonObjectSize", new BsonInt32(BsonBytes.MAX_DOCUMENT_SIZE))
                .append("maxMessageSizeBytes", new BsonInt32(MAX_MESSAGE_SIZE_BYTES))
                .append("maxWriteBatchSize", new BsonInt32(MAX_WRITE_BATCH_SIZE))
                .append("localTime", new BsonDateTime(System.currentTimeMillis()))
                .append("logicalSessionTimeoutMinutes", new BsonInt32(logicalSessionTimeoutMinutes));
        if (command.containsKey("compression")) {
            reply.append("compression", compression(command.get("compression")));
        }
        return reply.append("connectionId", new BsonInt64(connectionId))
                .append("minWireVersion", new BsonInt32(MIN_WIRE_VERSION))
                .append("maxWireVersion", new BsonInt32(MAX_WIRE_VERSION))
                .append("readOnly", BsonBoolean.FALSE)
                .append("ok", new BsonDouble(1));
    }

    /** The client's compressors that are available here, in the client's order of preference. */
    private static BsonArray compression(BsonValue requested) {
        if (!requested.isArray() || !requested.asArray().stream().allMatch(BsonValue::isString)) {
            throw new CommandException(ErrorCode.TypeMismatch, "hello's 'compression' must be an array of strings, was " + requested);
        }
        List<BsonValue> agreed = new ArrayList<>();
        for (BsonValue name : requested.asArray()) {
            Compressor.ofName(name.asString().getValue())
                    .filter(c -> agreed.stream().noneMatch(a -> a.asString().getValue().equals(c.wireName())))
                    .ifPresent(c -> agreed.add(new BsonString(c.wireName())));
        }
        return new BsonArray(agreed);
    }
}
