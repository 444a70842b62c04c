package dev.shardstore.cluster;

import java.util.Optional;

/**
 * One process of the local cluster as planned: its name (used by {@code status}, {@code logs},
 * {@link LocalCluster#killService}), role, TCP port and, for services that own state, the PostgreSQL
 * database it uses.
 *
 * @param name     e.g. {@code postgres}, {@code kafka}, {@code config}, {@code shard2}, {@code router1}
 * @param port     the port it listens on (HTTP for services)
 * @param database the database of its own, for services that own state
 */
public record Component(String name, Role role, int port, Optional<String> database) {

    /** {@code http://localhost:<port>} for a service. */
    public String url() {
        return "http://localhost:" + port;
    }
}
