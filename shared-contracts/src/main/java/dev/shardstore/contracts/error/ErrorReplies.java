package dev.shardstore.contracts.error;

import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * Builds and reads MongoDB error replies and the RFC 9457 problem body of docs/architecture.md "The client API: REST and the wire protocol".
 */
public final class ErrorReplies {
    /** Base of the problem {@code type} URI; the code name is appended. */
    public static final String PROBLEM_TYPE_BASE = "https://shardstore.dev/errors/";

    private ErrorReplies() {}

    /** {@code {ok: 0, errmsg, code, codeName, ...extraInfo}}. */
    public static BsonDocument errorReply(ErrorCode code, String message, BsonDocument extraInfo) {
        BsonDocument reply = new BsonDocument("ok", new BsonDouble(0))
                .append("errmsg", new BsonString(message))
                .append("code", new BsonInt32(code.code()))
                .append("codeName", new BsonString(code.codeName()));
        extraInfo.forEach((k, v) -> {
            if (!reply.containsKey(k)) {
                reply.append(k, v);
            }
        });
        return reply;
    }

    /** True when a command reply says {@code ok: 0} (or has no {@code ok} at all). */
    public static boolean isError(BsonDocument reply) {
        BsonValue ok = reply.get("ok");
        return ok == null || !ok.isNumber() || ok.asNumber().doubleValue() != 1.0;
    }

    /**
     * {@code reply} itself when it is not an error reply.
     *
     * @throws CommandException the error the reply describes ({@link #toException})
     */
    public static BsonDocument requireOk(BsonDocument reply) {
        if (isError(reply)) {
            throw toException(reply);
        }
        return reply;
    }

    /**
     * Rebuilds the exception a peer's error reply describes, keeping its extra fields.
     *
     * @throws IllegalArgumentException if the reply is not an error reply
     */
    public static CommandException toException(BsonDocument reply) {
        if (!isError(reply)) {
            throw new IllegalArgumentException("not an error reply: " + reply.toJson());
        }
        int number = reply.isNumber("code") ? reply.getNumber("code").intValue() : ErrorCode.InternalError.code();
        String message = reply.isString("errmsg") ? reply.getString("errmsg").getValue() : "unknown error";
        BsonDocument extra = reply.clone();
        for (String key : new String[] {"ok", "errmsg", "code", "codeName"}) {
            extra.remove(key);
        }
        return new CommandException(ErrorCode.ofNumber(number), message, extra);
    }

    /**
     * The problem+json body: RFC 9457's {@code type, title, status, detail} plus MongoDB's
     * {@code ok: 0, errmsg, code, codeName}, the error's extra fields and the request's id.
     *
     * @param status    the HTTP status answered (usually {@code e.code().httpStatus()}; HTTP's own for a wrong
     *                  method or media type)
     * @param requestId the request's id ({@code requestId}), or null when it has none
     */
    public static BsonDocument problem(CommandException e, int status, @Nullable String requestId) {
        ErrorCode code = e.code();
        BsonDocument body = new BsonDocument("type", new BsonString(PROBLEM_TYPE_BASE + code.codeName()))
                .append("title", new BsonString(code.codeName()))
                .append("status", new BsonInt32(status))
                .append("detail", new BsonString(e.getMessage()));
        body.putAll(e.toReply());
        if (requestId != null) {
            body.put("requestId", new BsonString(requestId));
        }
        return body;
    }
}
