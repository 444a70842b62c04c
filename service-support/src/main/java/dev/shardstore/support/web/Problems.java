package dev.shardstore.support.web;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.error.ErrorReplies;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.TypeMismatchException;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.ErrorResponse;
import org.springframework.web.servlet.resource.NoResourceFoundException;

/**
 * The one mapping from a failed HTTP request to its answer (docs/architecture.md "The client API: REST and the wire protocol"): an RFC 9457 problem body
 * ({@code application/problem+json}) that also carries MongoDB's {@code ok: 0, errmsg, code, codeName} and the
 * request's {@code requestId}. Used by the router's controller advice and by {@link ProblemErrorController} (the
 * servlet container's error path), so no request to any service answers with Spring's default error body.
 */
public final class Problems {
    private Problems() {}

    /**
     * A failure as the client sees it.
     *
     * @param error  MongoDB's code and the message
     * @param status the HTTP status: the code's own, or the one HTTP itself calls for (405, 406, 415)
     */
    public record Problem(CommandException error, int status) {
        /** True for a failure of the service rather than of the request (to be logged with its stack trace). */
        public boolean unexpected() {
            return status >= 500 && error.code() == ErrorCode.InternalError;
        }
    }

    /**
     * The problem for anything thrown while serving a request: a {@link CommandException} anywhere in the cause
     * chain (a refusal, possibly wrapped by the framework) is answered as it is; the framework's own refusals
     * (unreadable body, bad parameter, no such path, wrong method or media type) become the matching 4xx; anything
     * else, including an {@link Error}, is {@code InternalError} (1), 500.
     */
    public static Problem of(Throwable thrown) {
        for (Throwable t = thrown; t != null; t = t.getCause()) {
            if (t instanceof CommandException e) {
                return new Problem(e, e.code().httpStatus());
            }
        }
        return switch (thrown) {
            case HttpMessageNotReadableException e ->
                    new Problem(new CommandException(ErrorCode.FailedToParse, "unreadable request: " + e.getMessage()), 400);
            case TypeMismatchException e -> new Problem(new CommandException(ErrorCode.FailedToParse,
                    "unreadable request: '" + e.getPropertyName() + "' cannot be " + e.getValue()), 400);
            case NoResourceFoundException e -> ofStatus(404, "no endpoint " + e.getHttpMethod() + " /" + e.getResourcePath());
            case ErrorResponse e -> ofStatus(e.getStatusCode().value(), String.valueOf(e.getBody().getDetail()));
            default -> new Problem(new CommandException(ErrorCode.InternalError, "internal error: " + thrown), 500);
        };
    }

    /**
     * The problem for an HTTP status that the framework or the servlet container decided without an exception
     * (no handler for the path, wrong method or media type, body too large): MongoDB's nearest code with that
     * status.
     */
    public static Problem ofStatus(int status, String message) {
        ErrorCode code = switch (status) {
            case 404 -> ErrorCode.CommandNotFound;
            case 405 -> ErrorCode.IllegalOperation;
            case 413 -> ErrorCode.BSONObjectTooLarge;
            case 503 -> ErrorCode.HostUnreachable;
            default -> status >= 500 ? ErrorCode.InternalError : ErrorCode.BadValue;
        };
        return new Problem(new CommandException(code, message), status);
    }

    /** The problem as a response entity (for controller advice). */
    public static ResponseEntity<String> response(Problem problem, @Nullable String requestId) {
        return ResponseEntity.status(problem.status()).contentType(MediaType.APPLICATION_PROBLEM_JSON).body(json(problem, requestId));
    }

    /**
     * Writes the problem straight to the servlet response (for filters and the error path), bypassing content
     * negotiation: a client that accepts nothing we produce still learns what went wrong. Does nothing when the
     * response is already committed.
     */
    public static void write(HttpServletResponse response, Problem problem, @Nullable String requestId) throws IOException {
        if (response.isCommitted()) {
            return;
        }
        response.resetBuffer();
        response.setStatus(problem.status());
        response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
        byte[] body = json(problem, requestId).getBytes(StandardCharsets.UTF_8);
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
    }

    /** The problem body as JSON text. */
    static String json(Problem problem, @Nullable String requestId) {
        return ExtendedJson.toJson(ErrorReplies.problem(problem.error(), problem.status(), requestId));
    }
}
