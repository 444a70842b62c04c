package dev.shardstore.contracts.error;

import java.util.Objects;
import org.bson.BsonDocument;
import org.jspecify.annotations.Nullable;

/**
 * A command failed with a MongoDB error code. Thrown anywhere a command is processed; the command
 * front ends turn it into {@code {ok: 0, errmsg, code, codeName, ...extraInfo}}.
 *
 * <p>{@code extraInfo} carries the structured fields some errors have in MongoDB, for example
 * {@code StaleDbVersion}'s {@code db}, {@code vReceived} and {@code vWanted}. It is copied.
 */
public class CommandException extends RuntimeException {
    private final ErrorCode code;
    private final BsonDocument extraInfo;
    private final String errmsg;

    public CommandException(ErrorCode code, String message) {
        this(code, message, new BsonDocument(), null);
    }

    public CommandException(ErrorCode code, String message, @Nullable Throwable cause) {
        this(code, message, new BsonDocument(), cause);
    }

    public CommandException(ErrorCode code, String message, BsonDocument extraInfo) {
        this(code, message, extraInfo, null);
    }

    public CommandException(ErrorCode code, String message, BsonDocument extraInfo, @Nullable Throwable cause) {
        super(Objects.requireNonNull(message, "message"), cause);
        this.errmsg = message;
        this.code = Objects.requireNonNull(code, "code");
        this.extraInfo = Objects.requireNonNull(extraInfo, "extraInfo").clone();
    }

    public ErrorCode code() {
        return code;
    }

    /** The error message, the reply's {@code errmsg}: never null, unlike a {@link Throwable}'s in general. */
    @Override
    public String getMessage() {
        return errmsg;
    }

    /** A copy of the structured fields carried with the error. */
    public BsonDocument extraInfo() {
        return extraInfo.clone();
    }

    /** The command-reply form: {@code {ok: 0, errmsg, code, codeName, ...extraInfo}}. */
    public BsonDocument toReply() {
        return ErrorReplies.errorReply(code, errmsg, extraInfo);
    }
}
