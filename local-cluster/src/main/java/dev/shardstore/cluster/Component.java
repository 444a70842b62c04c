package dev.shardstore.cluster;

import java.util.Optional;
import java.util.OptionalInt;

/**
 * One process of the local cluster as planned: its name (used by {@code status}, {@code logs},
 * {@link LocalCluster#killService}), role, TCP port and, for services that own state, the PostgreSQL
 * database it uses.
 *
 * @param name     e.g. {@code postgres}, {@code kafka}, {@code config}, {@code shard2}, {@code router1}
 * @param port     the port it listens on (HTTP for services)
 * @param database the database of its own, for services that own state
 * @param wirePort for a router, the port of its MongoDB wire-protocol listener (mongosh, drivers)
 */
public record Component(String name, Role role, int port, Optional<String> database, OptionalInt wirePort) {

    /** A component without a wire-protocol listener (everything but routers). */
    public Component(String name, Role role, int port, Optional<String> database) {
        this(name, role, port, database, OptionalInt.empty());
    }

    /** {@code http://localhost:<port>} for a service. */
    public String url() {
        return "http://localhost:" + port;
    }

    /**
     * {@code mongodb://localhost:<wirePort>}, the connection string for mongosh and the drivers.
     *
     * @throws IllegalStateException for a component without a wire-protocol listener
     */
    public String connectionString() {
        return "mongodb://localhost:" + wirePort.orElseThrow(() -> new IllegalStateException(name + " does not speak the wire protocol"));
    }
}
