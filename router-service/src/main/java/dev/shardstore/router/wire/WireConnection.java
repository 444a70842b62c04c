package dev.shardstore.router.wire;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.error.ErrorReplies;
import dev.shardstore.router.command.ClientCommands;
import dev.shardstore.router.security.ConnectionAuthentication;
import dev.shardstore.transport.wire.ConnectionLoop;
import dev.shardstore.transport.wire.Frame;
import dev.shardstore.transport.wire.MalformedMessageException;
import dev.shardstore.transport.wire.OpCode;
import dev.shardstore.transport.wire.OpMsg;
import io.micrometer.core.instrument.Timer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLException;
import org.bson.BsonDocument;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection: reads a message, answers it, repeats ({@link ConnectionLoop}), on its own platform thread. Requests on a
 * connection are answered in order, one at a time, as the protocol has it.
 *
 * <ul>
 *   <li>OP_MSG: the command (document sequences folded in, {@code $db} taken out as the database) goes to the
 *       handshake, to the connection's authentication ({@code saslStart}, {@code saslContinue}, {@code logout}:
 *       {@link ConnectionAuthentication}) or to {@link ClientCommands}, run as the connection's principal; the reply is an OP_MSG with the request's checksum flag; a request
 *       with {@code moreToCome} gets no reply.</li>
 *   <li>OP_QUERY: only the handshake on {@code <db>.$cmd}; anything else is UnsupportedOpQueryCommand (352), in an
 *       OP_REPLY.</li>
 *   <li>OP_COMPRESSED: unwrapped; the reply is compressed with the same compressor, except a handshake's.</li>
 *   <li>A message whose content is bad (invalid BSON, unknown section kind, bad checksum) gets an error reply and
 *       the connection goes on; a frame that cannot be read past ({@link MalformedMessageException}) closes it.</li>
 * </ul>
 * The handshake also answers {@code saslSupportedMechs} and {@code speculativeAuthenticate} (a {@code saslStart} in the
 * {@code hello}), as MongoDB does. Errors are {@code {ok: 0, errmsg, code, codeName}} plus {@link ErrorLabels}; an unexpected exception is an
 * InternalError reply and is logged.
 */
final class WireConnection implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(WireConnection.class);
    private static final AtomicInteger REQUEST_IDS = new AtomicInteger();

    private final Socket socket;
    private final long id;
    private final Duration idleTimeout;
    private final ClientCommands commands;
    private final WireMetrics metrics;
    private final Runnable onClose;
    private final ConnectionAuthentication authentication;
    private final WireTls tls;
    /** When the current reply's write began ({@link System#nanoTime()}), or 0 while not writing. */
    private volatile long writeStartedNanos;
    /** Why the router closed this connection, once it did ({@link #close}). */
    private volatile @Nullable String closedBecause;

    WireConnection(Socket socket, long id, Duration idleTimeout, ClientCommands commands, WireMetrics metrics,
            ConnectionAuthentication authentication, WireTls tls, Runnable onClose) {
        this.socket = socket;
        this.tls = tls;
        this.authentication = authentication;
        this.id = id;
        this.idleTimeout = idleTimeout;
        this.commands = commands;
        this.metrics = metrics;
        this.onClose = onClose;
    }

    long id() {
        return id;
    }

    /** True while a reply has been being written for longer than {@code limitNanos} (the client does not read). */
    boolean writeStalled(long nowNanos, long limitNanos) {
        long started = writeStartedNanos;
        return started != 0 && nowNanos - started > limitNanos;
    }

    /** Closes the socket, which ends the connection's thread (a blocked read or write fails); {@code reason} is its metric tag. */
    void close(String reason) {
        closedBecause = reason;
        try {
            socket.close();
        } catch (IOException e) {
            log.debug("closing wire connection {}", id, e);
        }
    }

    @Override
    public void run() {
        String reason = "client";
        try (socket) {
            // the first bytes tell a TLS client from a plain one; the handshake's time counts against the first message's
            WireTls.Accepted accepted = tls.accept(socket, idleTimeout);
            ConnectionLoop.serve(accepted.socket(), accepted.alreadyRead(), idleTimeout, Handshake.MAX_MESSAGE_SIZE_BYTES, () -> false,
                    new ConnectionLoop.Handler() {
                        @Override
                        public byte @Nullable [] answer(Frame frame) {
                            return handle(frame);
                        }

                        @Override
                        public void writing(boolean inProgress) {
                            writeStartedNanos = inProgress ? System.nanoTime() : 0;
                        }
                    });
        } catch (MalformedMessageException e) {
            reason = "malformed";
            log.debug("wire connection {} closed: {}", id, e.getMessage());
        } catch (SocketTimeoutException e) {
            reason = "idle";
        } catch (WireTls.RefusedException e) {
            reason = "tls-required";
            log.info("wire connection {} from {} closed: {}", id, socket.getInetAddress(), e.getMessage());
        } catch (SSLException e) {
            reason = "tls-handshake";
            log.info("wire connection {} from {}: TLS handshake failed: {}", id, socket.getInetAddress(), e.getMessage());
        } catch (IOException e) {
            String closer = closedBecause;
            reason = closer != null ? closer : "io";
            log.debug("wire connection {} failed: {}", id, e.toString());
        } catch (RuntimeException | Error e) {
            reason = "error";
            log.error("wire connection {} failed unexpectedly", id, e);
        } finally {
            metrics.closed(reason);
            onClose.run();
        }
    }

    /** The reply to one message, or null when none is due ({@code moreToCome}). */
    private byte @Nullable [] handle(Frame received) {
        Compressor compressor = null;
        Frame frame = received;
        if (received.opCode() == OpCode.OP_COMPRESSED) {
            OpCompressed.Unwrapped unwrapped = OpCompressed.unwrap(received, Handshake.MAX_MESSAGE_SIZE_BYTES);
            compressor = unwrapped.compressor();
            frame = unwrapped.frame();
        }
        Timer.Sample sample = metrics.startMessage();
        try {
            Answer answer = switch (frame.opCode()) {
                case OP_MSG -> message(frame);
                case OP_QUERY -> query(frame);
                default -> throw new MalformedMessageException("clients do not send " + frame.opCode());
            };
            if (answer == null) {
                return null;
            }
            return compressor == null || answer.handshake() ? answer.bytes() : OpCompressed.wrap(answer.bytes(), compressor);
        } finally {
            metrics.stopMessage(sample, frame.opCode(), compressor);
        }
    }

    /** A reply ready to send, and whether it answers a handshake (never compressed). */
    private record Answer(byte[] bytes, boolean handshake) {}

    private @Nullable Answer message(Frame frame) {
        OpMsg request;
        try {
            request = OpMsg.parse(frame);
        } catch (CommandException e) {
            return new Answer(OpMsg.of(e.toReply()).encode(nextRequestId(), frame.requestId()), false);
        }
        BsonDocument command = request.command();
        boolean handshake = !command.isEmpty() && Handshake.handles(command.getFirstKey());
        BsonDocument reply = run(command);
        if (request.has(OpMsg.MORE_TO_COME)) {
            return null;
        }
        int flags = request.has(OpMsg.CHECKSUM_PRESENT) ? OpMsg.CHECKSUM_PRESENT : 0;
        return new Answer(new OpMsg(flags, reply, java.util.Map.of()).encode(nextRequestId(), frame.requestId()), handshake);
    }

    private Answer query(Frame frame) {
        BsonDocument reply;
        boolean handshake = false;
        try {
            OpQuery query = OpQuery.parse(frame);
            BsonDocument command = query.command();
            handshake = query.isCommand() && !command.isEmpty() && Handshake.handles(command.getFirstKey());
            if (!handshake) {
                throw new CommandException(ErrorCode.UnsupportedOpQueryCommand, "OP_QUERY carries only the handshake (hello/isMaster) since "
                        + "MongoDB 6.0; send '" + (command.isEmpty() ? "" : command.getFirstKey()) + "' on " + query.fullCollectionName()
                        + " as OP_MSG (a driver for MongoDB 3.6 or newer does)");
            }
            reply = handshake(command);
        } catch (CommandException e) {
            reply = e.toReply();
        }
        return new Answer(OpReply.encode(nextRequestId(), frame.requestId(), reply), handshake);
    }

    /** Runs an OP_MSG command: {@code $db} is the database and is not passed on. */
    private BsonDocument run(BsonDocument command) {
        try {
            if (!command.isString("$db")) {
                throw new CommandException(ErrorCode.Location40571, "OP_MSG requests require a string $db field naming the database");
            }
            String db = command.getString("$db").getValue();
            command.remove("$db");
            if (!command.isEmpty() && Handshake.handles(command.getFirstKey())) {
                return handshake(command);
            }
            if (!command.isEmpty() && ConnectionAuthentication.handles(command.getFirstKey())) {
                String name = command.getFirstKey();
                return commands.timed(ClientCommands.Transport.WIRE, name, () -> authentication.run(db, command));
            }
            return commands.run(ClientCommands.Transport.WIRE, authentication.principal(),
                    socket.getRemoteSocketAddress() instanceof InetSocketAddress remote ? remote : null, db, command);
        } catch (CommandException e) {
            if (e.code() == ErrorCode.InternalError) {
                log.error("command {} failed unexpectedly", command.isEmpty() ? "{}" : command.getFirstKey(), e);
            }
            return ErrorLabels.label(command, e.code(), e.toReply());
        } catch (RuntimeException e) {
            log.error("command {} failed unexpectedly", command.isEmpty() ? "{}" : command.getFirstKey(), e);
            return ErrorLabels.label(command, ErrorCode.InternalError,
                    ErrorReplies.errorReply(ErrorCode.InternalError, "internal error: " + e, new BsonDocument()));
        }
    }

    private BsonDocument handshake(BsonDocument command) {
        String name = command.getFirstKey();
        return commands.timed(ClientCommands.Transport.WIRE, name, () -> {
            BsonDocument reply = Handshake.reply(command, id, commands.logicalSessionTimeoutMinutes());
            if (command.containsKey("saslSupportedMechs")) {
                authentication.supportedMechanisms(command.get("saslSupportedMechs")).ifPresent(m -> reply.put("saslSupportedMechs", m));
            }
            if (command.isDocument("speculativeAuthenticate")) {
                authentication.speculative(command.getDocument("speculativeAuthenticate"))
                        .ifPresent(r -> reply.put("speculativeAuthenticate", r));
            }
            return reply;
        });
    }

    private static int nextRequestId() {
        return REQUEST_IDS.incrementAndGet();
    }
}
