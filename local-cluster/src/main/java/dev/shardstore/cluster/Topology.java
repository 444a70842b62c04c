package dev.shardstore.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.stream.Collectors;

/**
 * The processes of a local cluster, their ports and databases (docs/architecture.md "Services"). Base ports, each
 * shifted by {@code portOffset}: PostgreSQL 25432, Kafka 29092 (all below 32768, outside Linux's ephemeral port range), config 8081, balancer 8082,
 * resharding 8083, session 8084, the operator's console 8085 (when planned with one), shards 8101, 8102, …, routers 8080, 8090, 8070, 8060, …, and the routers' MongoDB
 * wire-protocol listeners 27017, 27018, 27019, … (router1 on MongoDB's own port).
 * Databases: {@code config}, {@code shard1}…, {@code resharding} (the resharding coordinator's state documents),
 * {@code sessions}; routers and the balancer own none (the balancer reads the catalog from the config service).
 *
 * @param components in start order: PostgreSQL, Kafka, config, shards, routers, balancer, resharding, session, and the
 *                   console when planned with one
 */
public record Topology(int shards, int routers, int portOffset, List<Component> components) {
    /** The console's base port (console-service's own default). */
    private static final int CONSOLE_PORT = 8085;

    public static final int MAX_SHARDS = 99;
    public static final int MAX_ROUTERS = 9;
    private static final int POSTGRES_PORT = 25_432;
    private static final int KAFKA_PORT = 29_092;
    /** router1's wire-protocol port (MongoDB's 27017); router i listens on {@code WIRE_PORT + i - 1}. */
    private static final int WIRE_PORT = 27_017;
    /** The highest port must stay below 32768 (Linux's default ephemeral range starts there). */
    public static final int MAX_PORT_OFFSET = 32_767 - KAFKA_PORT;
    /** The lowest port (the last router's, 8080 - 10 * (MAX_ROUTERS - 2)) must stay above the privileged ones. */
    public static final int MIN_PORT_OFFSET = 1024 - (8080 - 10 * (MAX_ROUTERS - 2));

    public Topology {
        components = List.copyOf(components);
    }

    /**
     * Plans a cluster.
     *
     * @param shards     1..99
     * @param routers    1..9
     * @param portOffset added to every base port, {@link #MIN_PORT_OFFSET}..{@link #MAX_PORT_OFFSET}: the shifted ports
     *                   stay in 1024..32767, outside the ephemeral range
     * @throws IllegalArgumentException when a count or the offset is out of range
     */
    public static Topology plan(int shards, int routers, int portOffset) {
        return plan(shards, routers, portOffset, false);
    }

    /**
     * Plans a cluster, with the operator's web console ({@code console} on 8085 + offset, started last) when
     * {@code console} is true: {@code ./cluster up} starts one; the end-to-end tests, but the console's own, do without.
     *
     * @throws IllegalArgumentException as {@link #plan(int, int, int)}
     */
    public static Topology plan(int shards, int routers, int portOffset, boolean console) {
        if (shards < 1 || shards > MAX_SHARDS) {
            throw new IllegalArgumentException("--shards must be 1.." + MAX_SHARDS + ", was " + shards);
        }
        if (routers < 1 || routers > MAX_ROUTERS) {
            throw new IllegalArgumentException("--routers must be 1.." + MAX_ROUTERS + ", was " + routers);
        }
        if (portOffset < MIN_PORT_OFFSET || portOffset > MAX_PORT_OFFSET) {
            throw new IllegalArgumentException("--port-offset must be " + MIN_PORT_OFFSET + ".." + MAX_PORT_OFFSET
                    + " so that every port stays in 1024..32767, below Linux's ephemeral range (32768-60999), where any"
                    + " outgoing connection of the machine may hold a port at the moment it is needed; was " + portOffset);
        }
        List<Component> components = new ArrayList<>();
        components.add(new Component("postgres", Role.POSTGRES, POSTGRES_PORT + portOffset, Optional.empty()));
        components.add(new Component("kafka", Role.KAFKA, KAFKA_PORT + portOffset, Optional.empty()));
        components.add(service("config", Role.CONFIG, 8081 + portOffset, "config"));
        for (int i = 1; i <= shards; i++) {
            components.add(service("shard" + i, Role.SHARD, 8100 + i + portOffset, "shard" + i));
        }
        for (int i = 1; i <= routers; i++) {
            int port = i == 1 ? 8080 : i == 2 ? 8090 : 8080 - 10 * (i - 2);
            components.add(new Component("router" + i, Role.ROUTER, port + portOffset, Optional.empty(),
                    OptionalInt.of(WIRE_PORT + i - 1 + portOffset)));
        }
        components.add(new Component("balancer", Role.BALANCER, 8082 + portOffset, Optional.empty()));
        components.add(service("resharding", Role.RESHARDING, 8083 + portOffset, "resharding"));
        components.add(service("session", Role.SESSION, 8084 + portOffset, "sessions"));
        if (console) {
            components.add(new Component("console", Role.CONSOLE, CONSOLE_PORT + portOffset, Optional.empty()));
        }
        return new Topology(shards, routers, portOffset, components);
    }

    private static Component service(String name, Role role, int port, String database) {
        return new Component(name, role, port, Optional.of(database));
    }

    /**
     * The component called {@code name}.
     *
     * @throws IllegalArgumentException listing the valid names when there is none
     */
    public Component component(String name) {
        return components.stream().filter(c -> c.name().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no component '" + name + "' in this cluster; components are: "
                        + components.stream().map(Component::name).collect(Collectors.joining(", "))));
    }

    /** The components with {@code role}, in order (shard1, shard2, …). */
    public List<Component> withRole(Role role) {
        return components.stream().filter(c -> c.role() == role).toList();
    }

    /** Router {@code i}, 1-based ({@code router(1)} is {@code router1} on port 8080 + offset, wire port 27017 + offset). */
    public Component router(int i) {
        if (i < 1 || i > routers) {
            throw new IllegalArgumentException("router index must be 1.." + routers + ", was " + i);
        }
        return component("router" + i);
    }

    /** Every database some component owns, in component order. */
    public List<String> databases() {
        return components.stream().flatMap(c -> c.database().stream()).toList();
    }

    /** Whether the operator's web console is one of the components. */
    public boolean hasConsole() {
        return components.stream().anyMatch(c -> c.role() == Role.CONSOLE);
    }

    /** The Spring Boot services (everything but PostgreSQL and Kafka), in start order. */
    public List<Component> services() {
        return components.stream().filter(c -> c.role().isService()).toList();
    }
}
