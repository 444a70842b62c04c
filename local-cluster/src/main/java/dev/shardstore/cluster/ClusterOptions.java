package dev.shardstore.cluster;

import dev.shardstore.infra.PostgresDurability;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * How to start a local cluster.
 *
 * @param repo              where the service jars are built
 * @param home              the state directory: pids, topology, logs, PostgreSQL data
 * @param shards            number of shard-service instances, 1..99
 * @param routers           number of router-service instances, 1..9
 * @param portOffset        added to every default port, so that a second cluster (a test's) can run
 *                          beside a developer's
 * @param startTimeout      how long one start phase (infrastructure, config, the other services) may take
 * @param serviceJvmOptions JVM options for each Spring Boot service process
 * @param postgresBinaries  where PostgreSQL's binaries are unpacked; empty for the embedded library's default
 *                          ({@code $java.io.tmpdir/embedded-pg}), shared by every cluster and test on the machine
 * @param durability        whether the cluster's PostgreSQL makes commits survive a crash of the machine
 * @param console           whether the operator's web console (console-service, port 8085 + offset) is started too
 * @param serverParameters  server parameters every service starts with (name → value as text, {@code --set-parameter
 *                          NAME=VALUE}; dev.shardstore.support.parameter.ServerParameters checks them at start-up)
 * @param clusterKey        whether the services prove membership to each other with the cluster key of
 *                          {@link ClusterHome#clusterKeyFile()} (generated on the first such start, then reused) and
 *                          refuse callers that do not (docs/architecture.md "Security")
 * @param bindIp            the addresses every service listens on ({@code shardstore.net.bind-ip}); by default
 *                          {@link #DEFAULT_BIND_IP}, so nothing of the cluster is reachable from another machine; one
 *                          of them must be 127.0.0.1 (or 0.0.0.0), where the launcher's own calls arrive
 */
public record ClusterOptions(RepoLayout repo, Path home, int shards, int routers, int portOffset,
                             Duration startTimeout, List<String> serviceJvmOptions, Optional<Path> postgresBinaries,
                             PostgresDurability durability, boolean console,
                             Map<String, String> serverParameters, boolean clusterKey, List<String> bindIp) {
    /** The local cluster's listeners' address unless {@code --bind-ip} says otherwise: the loopback interface. */
    public static final List<String> DEFAULT_BIND_IP = List.of("127.0.0.1");
    /** Bind addresses on which the launcher's own calls to {@code localhost} arrive. */
    private static final List<String> LOCALLY_REACHABLE = List.of("127.0.0.1", "localhost", "0.0.0.0");

    /**
     * {@code ./cluster up}'s default: heap capped so that ten JVMs fit comfortably, serial GC (one less thread per JVM
     * on 2 cores) and the full tiered JIT (C2), as a long-running server runs. C2 halves the services' CPU per routed
     * point read against C1 only (docs/benchmarks.md, hot path round 4) and costs ~13 s more start-up on 2 cores.
     *
     * <p>The young generation is fixed at 128 MB ({@code -Xmn}, a third of the cap, what the serial collector would give
     * it only once the heap had grown to its maximum), and the initial heap is that plus the 64 MB old generation of
     * before ({@code -Xms192m}; below 128 MB the JVM shrinks the young generation to fit and warns). Grown from
     * {@code -Xms64m} it stayed near 20 MB: a bulk load's 1000-document batches, alive across a PostgreSQL round trip,
     * overflowed its 2 MB survivor spaces and were promoted, the old generation grew by about 20 MB per 171,000
     * documents, and collecting cost the router and the shard 17–22% of their CPU. With 128 MB a routed bulk load costs
     * them about a quarter less CPU and the old generation stays flat (docs/benchmarks.md, "A young generation sized
     * for batches").
     */
    public static final List<String> SERVER_JVM_OPTIONS = List.of("-Xms192m", "-Xmx384m", "-Xmn128m", "-XX:+UseSerialGC");

    /**
     * {@link #SERVER_JVM_OPTIONS} with C1 only, which shortens Spring Boot's start noticeably when the cores are shared:
     * for the demo and the end-to-end tests, short-lived clusters that would not earn back C2's start-up.
     */
    public static final List<String> DEFAULT_SERVICE_JVM_OPTIONS =
            Stream.concat(SERVER_JVM_OPTIONS.stream(), Stream.of("-XX:TieredStopAtLevel=1")).toList();

    public ClusterOptions {
        home = home.toAbsolutePath().normalize();
        serviceJvmOptions = List.copyOf(serviceJvmOptions);
        serverParameters = Collections.unmodifiableMap(new TreeMap<>(serverParameters));
        bindIp = List.copyOf(bindIp);
        if (bindIp.isEmpty() || bindIp.stream().anyMatch(a -> a.isBlank() || a.contains(","))) {
            throw new IllegalArgumentException("the bind addresses are one or more non-empty addresses, not " + bindIp);
        }
        if (bindIp.stream().noneMatch(LOCALLY_REACHABLE::contains)) {
            throw new IllegalArgumentException("the bind addresses " + bindIp + " must include 127.0.0.1 (or 0.0.0.0):"
                    + " the cluster's own tools reach its services at localhost");
        }
        Objects.requireNonNull(durability, "durability");
        Topology.plan(shards, routers, portOffset, console); // validates the counts and the offset
    }

    /**
     * 3 shards, 1 router, no console, default ports, state in {@code <repo>/.cluster}, 4 minutes per start phase, and PostgreSQL's
     * durability as {@link PostgresDurability#fromSystemProperty()} says: durable unless the JVM asks for the fast
     * setting (the test suite does, in the root {@code pom.xml}).
     */
    public static ClusterOptions defaults(RepoLayout repo) {
        return new ClusterOptions(repo, repo.defaultHome(), 3, 1, 0, Duration.ofMinutes(4), DEFAULT_SERVICE_JVM_OPTIONS, Optional.empty(),
                PostgresDurability.fromSystemProperty(), false, Map.of(), false, DEFAULT_BIND_IP);
    }

    /** The same options with another state directory. */
    public ClusterOptions withHome(Path newHome) {
        return new ClusterOptions(repo, newHome, shards, routers, portOffset, startTimeout, serviceJvmOptions, postgresBinaries, durability, console, serverParameters, clusterKey, bindIp);
    }

    /** The same options with {@code n} shards (1..99). */
    public ClusterOptions withShards(int n) {
        return new ClusterOptions(repo, home, n, routers, portOffset, startTimeout, serviceJvmOptions, postgresBinaries, durability, console, serverParameters, clusterKey, bindIp);
    }

    /** The same options with {@code n} routers (1..9). */
    public ClusterOptions withRouters(int n) {
        return new ClusterOptions(repo, home, shards, n, portOffset, startTimeout, serviceJvmOptions, postgresBinaries, durability, console, serverParameters, clusterKey, bindIp);
    }

    /** The same options with every port shifted by {@code offset}. */
    public ClusterOptions withPortOffset(int offset) {
        return new ClusterOptions(repo, home, shards, routers, offset, startTimeout, serviceJvmOptions, postgresBinaries, durability, console, serverParameters, clusterKey, bindIp);
    }

    /** The same options with another limit per start phase. */
    public ClusterOptions withStartTimeout(Duration timeout) {
        return new ClusterOptions(repo, home, shards, routers, portOffset, timeout, serviceJvmOptions, postgresBinaries, durability, console, serverParameters, clusterKey, bindIp);
    }

    /** The same options with other JVM options for the services. */
    public ClusterOptions withServiceJvmOptions(List<String> options) {
        return new ClusterOptions(repo, home, shards, routers, portOffset, startTimeout, options, postgresBinaries, durability, console, serverParameters, clusterKey, bindIp);
    }

    /** The same options with PostgreSQL's binaries unpacked under {@code directory}. */
    public ClusterOptions withPostgresBinaries(Path directory) {
        return new ClusterOptions(repo, home, shards, routers, portOffset, startTimeout, serviceJvmOptions, Optional.of(directory), durability, console, serverParameters, clusterKey, bindIp);
    }

    /** The same options with PostgreSQL run at {@code newDurability}. */
    public ClusterOptions withDurability(PostgresDurability newDurability) {
        return new ClusterOptions(repo, home, shards, routers, portOffset, startTimeout, serviceJvmOptions, postgresBinaries, newDurability, console, serverParameters, clusterKey, bindIp);
    }

    /** The same options with ({@code true}) or without the operator's web console. */
    public ClusterOptions withConsole(boolean withConsole) {
        return new ClusterOptions(repo, home, shards, routers, portOffset, startTimeout, serviceJvmOptions, postgresBinaries, durability, withConsole, serverParameters,
                clusterKey, bindIp);
    }

    /** The same options with these server parameters (name → value) on every service. */
    public ClusterOptions withServerParameters(Map<String, String> parameters) {
        return new ClusterOptions(repo, home, shards, routers, portOffset, startTimeout, serviceJvmOptions, postgresBinaries, durability, console,
                parameters, clusterKey, bindIp);
    }

    /** The same options with ({@code true}) or without membership authentication by the cluster key. */
    public ClusterOptions withClusterKey(boolean enforced) {
        return new ClusterOptions(repo, home, shards, routers, portOffset, startTimeout, serviceJvmOptions, postgresBinaries, durability, console,
                serverParameters, enforced, bindIp);
    }

    /** The same options with the services listening on {@code addresses}. */
    public ClusterOptions withBindIp(List<String> addresses) {
        return new ClusterOptions(repo, home, shards, routers, portOffset, startTimeout, serviceJvmOptions, postgresBinaries, durability, console,
                serverParameters, clusterKey, addresses);
    }

    /** The planned processes. */
    public Topology topology() {
        return Topology.plan(shards, routers, portOffset, console);
    }
}
