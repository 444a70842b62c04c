package dev.shardstore.support.command;

import dev.shardstore.contracts.clock.ClusterTimeGossip;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.error.ErrorReplies;
import dev.shardstore.support.operation.Caller;
import org.bson.BsonDocument;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one service-to-service command for either transport ({@link InternalCommandServlet} over HTTP,
 * {@link InternalCommandListener} over the wire protocol), so both answer alike: the peer's {@code $clusterTime} moves
 * this process's clock before the command runs; a refusal is its error reply and anything unexpected
 * {@code InternalError}, logged; every reply, success or error, carries {@code $clusterTime} and {@code operationTime}
 * ({@link ClusterTimeGossip}). Never throws.
 */
public final class InternalCommands {
    private static final Logger log = LoggerFactory.getLogger(InternalCommands.class);

    private final CommandRegistry registry;
    private final ClusterTimeGossip gossip;

    public InternalCommands(CommandRegistry registry, ClusterTimeGossip gossip) {
        this.registry = registry;
        this.gossip = gossip;
    }

    /** The reply to {@code command} on database {@code db}. */
    public BsonDocument run(String db, BsonDocument command) {
        try {
            gossip.received(command, ClusterTimeGossip.Sender.PEER);
            return stamped(registry.run(Caller.peer(), db, command));
        } catch (CommandException e) {
            return refused(e);
        } catch (RuntimeException e) {
            log.error("command {} on {} failed unexpectedly", command.isEmpty() ? "{}" : command.getFirstKey(), db, e);
            return stamped(ErrorReplies.errorReply(ErrorCode.InternalError, e.toString(), new BsonDocument()));
        }
    }

    /** The reply to a request refused before it could run (a body that is not a command). */
    public BsonDocument refused(CommandException e) {
        return stamped(e.toReply());
    }

    /** The process's cluster time is also the command's operationTime: it is at or above every write it saw or made. */
    private BsonDocument stamped(BsonDocument reply) {
        return gossip.stamp(reply, gossip.clock().clusterTime());
    }
}
