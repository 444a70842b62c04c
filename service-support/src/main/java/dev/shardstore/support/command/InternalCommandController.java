package dev.shardstore.support.command;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.error.ErrorReplies;
import dev.shardstore.contracts.http.InternalApi;
import org.bson.BsonDocument;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * The service-to-service command endpoint of {@link InternalApi}: BSON in, BSON out, errors as
 * {@code ok: 0} replies with HTTP 200 so the caller can tell "the command failed" from "the peer
 * did not answer". An unexpected exception becomes {@code InternalError} and is logged. A body refused
 * before the command runs (malformed BSON: {@code FailedToParse}; nested deeper than
 * {@link dev.shardstore.contracts.bson.BsonLimits#MAX_DEPTH}: {@code Overflow}) is an error reply too.
 */
@RestController
public class InternalCommandController {
    private static final Logger log = LoggerFactory.getLogger(InternalCommandController.class);

    private final CommandRegistry registry;

    public InternalCommandController(CommandRegistry registry) {
        this.registry = registry;
    }

    @PostMapping(path = InternalApi.COMMAND_PATH, consumes = InternalApi.MEDIA_TYPE_BSON, produces = InternalApi.MEDIA_TYPE_BSON)
    public BsonDocument run(@PathVariable("db") String db, @RequestBody BsonDocument command) {
        try {
            return registry.run(db, command);
        } catch (CommandException e) {
            return e.toReply();
        } catch (RuntimeException e) {
            log.error("command {} on {} failed unexpectedly", command.isEmpty() ? "{}" : command.getFirstKey(), db, e);
            return ErrorReplies.errorReply(ErrorCode.InternalError, e.toString(), new BsonDocument());
        }
    }

    /** A body the message converter refused (too deep, or not JSON when sent as JSON). */
    @ExceptionHandler(CommandException.class)
    public BsonDocument refused(CommandException e) {
        return e.toReply();
    }

    /** A body that is not one well-formed BSON document. */
    @ExceptionHandler(HttpMessageNotReadableException.class)
    public BsonDocument unreadable(HttpMessageNotReadableException e) {
        return ErrorReplies.errorReply(ErrorCode.FailedToParse, "unreadable command body: " + e.getMessage(), new BsonDocument());
    }
}
