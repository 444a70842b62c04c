package dev.shardstore.support.command;

import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.bson.BsonLimits;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.http.InternalApi;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.function.IntSupplier;
import org.bson.BsonDocument;
import org.bson.BsonSerializationException;

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
 */
public final class InternalCommandServlet extends HttpServlet {
    /** The servlet mapping: every path below the databases prefix of {@link InternalApi#COMMAND_PATH}. */
    public static final String MAPPING = "/internal/v1/databases/*";
    private static final String COMMAND_SUFFIX = "/command";

    private final transient InternalCommands commands;
    private final transient IntSupplier commandPort;

    /**
     * @param commandPort the port of this process's wire-protocol command listener, or -1 while none listens
     */
    public InternalCommandServlet(InternalCommands commands, IntSupplier commandPort) {
        this.commands = commands;
        this.commandPort = commandPort;
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
        byte[] reply = BsonBytes.encode(answer(db, request.getInputStream().readAllBytes()));
        response.setStatus(HttpServletResponse.SC_OK);
        int port = commandPort.getAsInt();
        if (port > 0) {
            response.setHeader(InternalApi.COMMAND_PORT_HEADER, Integer.toString(port));
        }
        response.setContentType(InternalApi.MEDIA_TYPE_BSON);
        response.setContentLength(reply.length);
        response.getOutputStream().write(reply);
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
