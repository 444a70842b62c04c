package dev.shardstore.balancer.cluster;

import dev.shardstore.contracts.error.CommandException;
import org.bson.BsonDocument;

/**
 * How the balancer runs a command on a peer (the config service or a shard): the service's {@code CommandClient}'s
 * {@code runChecked} in production, a recording fake in the round's unit tests.
 */
@FunctionalInterface
public interface PeerCommands {
    /**
     * Runs {@code command} on database {@code db} of the peer named {@code peer} at {@code url}.
     *
     * @return the peer's reply, which is ok
     * @throws CommandException the peer's error reply, or HostUnreachable / NetworkTimeout when it does not answer
     */
    BsonDocument run(String peer, String url, String db, BsonDocument command);
}
