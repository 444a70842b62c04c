package dev.shardstore.support.command;

import dev.shardstore.contracts.clock.ClusterTimeGossip;
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
 *
 * <p>Cluster time: the peer's {@code $clusterTime} moves this process's clock before the command runs, and every
 * reply, success or error, carries {@code $clusterTime} and {@code operationTime} ({@link ClusterTimeGossip}).
 */
@RestController
public class InternalCommandController {
    private static final Logger log = LoggerFactory.getLogger(InternalCommandController.class);

    private final CommandRegistry registry;
    private final ClusterTimeGossip gossip;

    public InternalCommandController(CommandRegistry registry, ClusterTimeGossip gossip) {
        this.registry = registry;
        this.gossip = gossip;
    }

    @PostMapping(path = InternalApi.COMMAND_PATH, consumes = InternalApi.MEDIA_TYPE_BSON, produces = InternalApi.MEDIA_TYPE_BSON)
    public BsonDocument run(@PathVariable("db") String db, @RequestBody BsonDocument command) {
        return stamped(answer(db, command));
    }

    private BsonDocument answer(String db, BsonDocument command) {
        try {
            gossip.received(command, ClusterTimeGossip.Sender.PEER);
            return registry.run(db, command);
        } catch (CommandException e) {
            return e.toReply();
        } catch (RuntimeException e) {
            log.error("command {} on {} failed unexpectedly", command.isEmpty() ? "{}" : command.getFirstKey(), db, e);
            return ErrorReplies.errorReply(ErrorCode.InternalError, e.toString(), new BsonDocument());
        }
    }

    /** The process's cluster time is also the command's operationTime: it is at or above every write it saw or made. */
    private BsonDocument stamped(BsonDocument reply) {
        return gossip.stamp(reply, gossip.clock().clusterTime());
    }

    /** A body the message converter refused (too deep, or not JSON when sent as JSON). */
    @ExceptionHandler(CommandException.class)
    public BsonDocument refused(CommandException e) {
        return stamped(e.toReply());
    }

    /** A body that is not one well-formed BSON document. */
    @ExceptionHandler(HttpMessageNotReadableException.class)
    public BsonDocument unreadable(HttpMessageNotReadableException e) {
        return stamped(ErrorReplies.errorReply(ErrorCode.FailedToParse, "unreadable command body: " + e.getMessage(), new BsonDocument()));
    }
}
