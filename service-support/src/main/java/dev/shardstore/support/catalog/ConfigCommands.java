package dev.shardstore.support.catalog;

import org.bson.BsonDocument;

/**
 * How a service runs a command on the config service's {@code admin} database: each service sends it through its own
 * client (the router's carries its cluster time gossip), the loaders here only build the command and read the reply.
 */
@FunctionalInterface
public interface ConfigCommands {
    /**
     * Runs {@code command} on the config service's {@code admin} database.
     *
     * @return the successful reply ({@code ok: 1})
     * @throws dev.shardstore.contracts.error.CommandException the config service's error, or HostUnreachable /
     *                                                         NetworkTimeout when it does not answer
     */
    BsonDocument run(BsonDocument command);
}
