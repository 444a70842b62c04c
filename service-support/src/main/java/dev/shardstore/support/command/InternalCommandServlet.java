package dev.shardstore.support.command;

import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.bson.BsonLimits;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.http.InternalApi;
import dev.shardstore.transport.membership.MemberToken;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.function.IntSupplier;
import org.bson.BsonDocument;
import org.bson.BsonSerializationException;
import org.jspecify.annotations.Nullable;

/**
 * The service-to-service command endpoint of {@link InternalApi}: {@code POST /internal/v1/databases/{db}/command},
 * BSON in, BSON out, errors as {@code ok: 0} replies with HTTP 200 so the caller can tell "the command failed" from
 * "the peer did not answer". An unexpected exception becomes {@code InternalError} and is logged. A body refused before
 * the command runs (malformed BSON: {@code FailedToParse}; nested deeper than {@link BsonLimits#MAX_DEPTH}:
 * {@code Overflow}) is an error reply too. A request on another path below the prefix is 404, a body that is not
 * {@code application/bson} 415, another method 405 (problem+json bodies from the error path).
 *
 * <p>A plain servlet rather than a Spring MVC controller: every routed operation crosses this endpoint at least once,
 * and the dispatcher's handler lookup, argument resolution and message converters were about 15% of a shard's CPU per
 * routed point read in the issue-10 profile (docs/benchmarks.md). The service's filters (request id, observation) still
 * run.
 *
 * <p>Commands run through {@link InternalCommands} (cluster time gossip, error replies), as over the wire protocol;
 * while this process's {@link InternalCommandListener} listens, every reply names its port in
 * {@link InternalApi#COMMAND_PORT_HEADER}, so the peer's client moves to it.
 *
 * <p>Refused before the body is read, nothing run, as an error reply without {@code $clusterTime} (the caller may not be
 * a member): in a cluster with a key, a request without a valid {@link MemberToken} in
 * {@link InternalApi#MEMBER_TOKEN_HEADER} (Unauthorized, 13; docs/architecture.md "Security"). Refused unread
 * beyond {@link BsonLimits#MAX_MESSAGE_SIZE} bytes, the limit of the client endpoints and the command port: HTTP 413
 * with a {@code BSONObjectTooLarge} (10334) error reply, at once when {@code Content-Length} says so, else once that
 * many bytes came; the connection is closed, not drained.
 */
public final class InternalCommandServlet extends HttpServlet {
    /** The servlet mapping: every path below the databases prefix of {@link InternalApi#COMMAND_PATH}. */
    public static final String MAPPING = "/internal/v1/databases/*";
    private static final String COMMAND_SUFFIX = "/command";

    private final transient InternalCommands commands;
    private final transient IntSupplier commandPort;
    private final transient @Nullable MemberToken members;
    private final transient int maxBody;

    /**
     * A servlet that takes commands from anyone who reaches it: a cluster without a key.
     *
     * @param commandPort the port of this process's wire-protocol command listener, or -1 while none listens
     */
    public InternalCommandServlet(InternalCommands commands, IntSupplier commandPort) {
        this(commands, commandPort, null, BsonLimits.MAX_MESSAGE_SIZE);
    }

    /**
     * @param members checks the callers' member tokens; null in a cluster without a key (every caller is taken)
     * @param maxBody the largest body taken, in bytes ({@link BsonLimits#MAX_MESSAGE_SIZE} but in tests)
     */
    public InternalCommandServlet(InternalCommands commands, IntSupplier commandPort, @Nullable MemberToken members, int maxBody) {
        this.commands = commands;
        this.commandPort = commandPort;
        this.members = members;
        this.maxBody = maxBody;
    }

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String path = request.getPathInfo(); // "/{db}/command"
        if (path == null || !path.endsWith(COMMAND_SUFFIX) || path.indexOf('/', 1) != path.length() - COMMAND_SUFFIX.length()) {
            response.sendError(HttpServletResponse.SC_NOT_FOUND);
            return;
        }
        String type = request.getContentType();
        if (type == null || !type.regionMatches(true, 0, InternalApi.MEDIA_TYPE_BSON, 0, InternalApi.MEDIA_TYPE_BSON.length())) {
            response.sendError(HttpServletResponse.SC_UNSUPPORTED_MEDIA_TYPE);
            return;
        }
        String db = path.substring(1, path.length() - COMMAND_SUFFIX.length());
        BsonDocument answer;
        int status = HttpServletResponse.SC_OK;
        if (members != null && !members.accepts(request.getHeader(InternalApi.MEMBER_TOKEN_HEADER))) {
            answer = new CommandException(ErrorCode.Unauthorized, "command on " + db
                    + " requires authentication as a member of the cluster: no valid " + InternalApi.MEMBER_TOKEN_HEADER).toReply();
        } else {
            long length = request.getContentLengthLong();
            byte[] body = length > maxBody ? null : readAtMost(request.getInputStream());
            if (body == null) {
                // 413, on which Tomcat closes the connection rather than reading the rest of the body
                status = HttpServletResponse.SC_REQUEST_ENTITY_TOO_LARGE;
                answer = new CommandException(ErrorCode.BSONObjectTooLarge, "request body of " + (length > maxBody ? length : "more than " + maxBody)
                        + " bytes is over the limit of " + maxBody + " bytes").toReply();
            } else {
                answer = answer(db, body);
            }
        }
        byte[] reply = BsonBytes.encode(answer);
        response.setStatus(status);
        int port = commandPort.getAsInt();
        if (port > 0) {
            response.setHeader(InternalApi.COMMAND_PORT_HEADER, Integer.toString(port));
        }
        response.setContentType(InternalApi.MEDIA_TYPE_BSON);
        response.setContentLength(reply.length);
        response.getOutputStream().write(reply);
    }

    /** The whole body, or null once it passes {@link #maxBody} bytes (the rest left unread). */
    private byte @Nullable [] readAtMost(InputStream in) throws IOException {
        byte[] body = in.readNBytes(maxBody + 1);
        return body.length > maxBody ? null : body;
    }

    private BsonDocument answer(String db, byte[] body) {
        BsonDocument command;
        try {
            BsonLimits.checkDepth(ByteBuffer.wrap(body), BsonLimits.MAX_DEPTH, "BSON body");
            command = BsonBytes.decodeShallow(body);
        } catch (CommandException e) {
            return commands.refused(e);
        } catch (BsonSerializationException | IndexOutOfBoundsException e) {
            return commands.refused(new CommandException(ErrorCode.FailedToParse, "unreadable command body: malformed BSON body: "
                    + e.getMessage()));
        }
        return commands.run(db, command);
    }
}
