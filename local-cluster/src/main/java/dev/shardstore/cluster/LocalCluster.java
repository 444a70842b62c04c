package dev.shardstore.cluster;

import dev.shardstore.cluster.router.RouterClient;
import dev.shardstore.infra.EmbeddedPostgresServer;
import dev.shardstore.infra.Ports;
import dev.shardstore.infra.Postmaster;
import dev.shardstore.transport.membership.ClusterKey;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;

/**
 * A local sharded cluster of separate OS processes (docs/architecture.md "Services"): one embedded PostgreSQL server
 * (a database per stateful service), one embedded Kafka broker, the config service, N shards, M
 * routers and the balancer, resharding and session services. What it started is recorded in its home
 * directory, so a later launcher can {@link #attach} to it, show its status and stop it.
 *
 * <p>For an end-to-end test (a failsafe {@code *IT} in this module, after the services are packaged):
 *
 * <pre>{@code
 * ClusterOptions options = ClusterOptions.defaults(RepoLayout.detect())
 *         .withHome(tempDir).withPortOffset(1000).withShards(2);
 * try (LocalCluster cluster = LocalCluster.start(options, System.out::println)) {
 *     RouterClient router = new RouterClient(cluster.routerUrl(1), Duration.ofSeconds(30));
 *     cluster.killService("shard2");   // SIGKILL
 *     cluster.startService("shard2");  // same command, waits until healthy
 * }
 * }</pre>
 *
 * Thread-safe.
 */
public final class LocalCluster implements AutoCloseable {
    /** The service JVM option of a cluster started with {@code --auth} (docs/architecture.md "Security"). */
    public static final String AUTH_OPTION = "-Dshardstore.security.authorization=enabled";
    /** The user {@code --auth} creates, with role {@code root} on {@code admin}. */
    public static final String ADMIN_USER = "admin";
    /**
     * The console's user {@code --auth} creates on {@code admin} when the cluster has a console, with the roles
     * docs/architecture.md "The operator's console" gives it: {@code clusterMonitor} and, for its actions,
     * {@code clusterManager}; its password is in {@link ClusterHome#consoleCredentialsFile()}.
     */
    public static final String CONSOLE_USER = "console";
    /** MongoDB's "User already exists" (Location51003). */
    private static final int DUPLICATE_USER = 51003;
    private static final Duration STOP_GRACE = Duration.ofSeconds(30);
    private static final Duration DEFAULT_START_TIMEOUT = Duration.ofMinutes(4);

    private final ClusterHome home;
    private final StateStore store;
    private final Duration startTimeout;
    private final Consumer<String> out;
    private ClusterState state;

    private LocalCluster(ClusterHome home, ClusterState state, Duration startTimeout, Consumer<String> out) {
        this.home = home;
        this.store = new StateStore(home);
        this.state = state;
        this.startTimeout = startTimeout;
        this.out = out;
    }

    /**
     * Starts every component and waits until all are ready, then registers the shards through the
     * first router. On any failure it stops what it started and rethrows.
     *
     * @param out receives one line per step ("config ready on :8081 in 14.2 s")
     * @throws ClusterRunningException  when the cluster recorded in the home still runs
     * @throws IllegalStateException    when a service jar is missing (naming each, with the build command)
     * @throws Ports.PortInUseException when a planned port is taken (naming the component)
     * @throws StartupException         when a component exits or is not ready within the start timeout
     */
    public static LocalCluster start(ClusterOptions options, Consumer<String> out) {
        ClusterHome home = new ClusterHome(options.home());
        StateStore store = new StateStore(home);
        if (store.load().map(s -> !s.runningProcesses().isEmpty()).orElse(false)) {
            throw new ClusterRunningException(home.dir());
        }
        Topology topology = options.topology();
        Commands commands = new Commands(options, home, topology);
        List<String> missing = commands.missingJars();
        if (!missing.isEmpty()) {
            throw new IllegalStateException("service jars are missing: " + String.join(", ", missing)
                    + "; build them with ./mvnw -DskipTests package (./cluster does this by itself)");
        }
        Postmaster.stop(home.postgresData(), STOP_GRACE);
        topology.components().forEach(LocalCluster::requirePortsFree);
        home.createDirectories();
        if (options.clusterKey()) {
            home.ensureClusterKey();
        }
        boolean auth = options.serviceJvmOptions().contains(AUTH_OPTION);
        if (auth && topology.hasConsole()) {
            home.ensureConsoleCredentials(CONSOLE_USER);
        }

        LocalCluster cluster = new LocalCluster(home, ClusterState.planned(topology), options.startTimeout(), out);
        store.save(cluster.state);
        try {
            cluster.prepareInfrastructure();
            out.accept(options.durability().describe());
            cluster.startPhase(commands, List.of(topology.component("postgres"), topology.component("kafka")));
            cluster.startPhase(commands, List.of(topology.component("config")));
            cluster.startPhase(commands, topology.services().stream().filter(c -> c.role() != Role.CONFIG).toList());
            if (auth) {
                cluster.createAdmin();
                if (topology.hasConsole()) {
                    cluster.createConsoleUser();
                }
            }
            cluster.registerShards();
            return cluster;
        } catch (RuntimeException e) {
            out.accept("start failed; stopping what was started");
            cluster.stop();
            throw e;
        }
    }

    /**
     * The cluster recorded in {@code home}, running or not (a crashed one can still be stopped and
     * cleaned up); empty when none is recorded.
     */
    public static Optional<LocalCluster> attach(Path home, Consumer<String> out) {
        ClusterHome clusterHome = new ClusterHome(home);
        return new StateStore(clusterHome).load().map(s -> new LocalCluster(clusterHome, s, DEFAULT_START_TIMEOUT, out));
    }

    /**
     * The cluster key its services prove membership with, when they were started with one (a recorded service's command
     * names its file): what a tool calling a service directly must send (docs/architecture.md "Security").
     *
     * @throws UncheckedIOException when the recorded key file cannot be read
     */
    public synchronized Optional<ClusterKey> clusterKey() {
        return state.processes().values().stream().flatMap(p -> p.command().stream())
                .filter(arg -> arg.startsWith(Commands.CLUSTER_KEY_FILE)).findFirst()
                .map(arg -> {
                    Path file = Path.of(arg.substring(Commands.CLUSTER_KEY_FILE.length()));
                    try {
                        return ClusterKey.read(file);
                    } catch (IOException e) {
                        throw new UncheckedIOException("cannot read the cluster key file " + file, e);
                    }
                });
    }

    /** The planned components (with the shards {@link #addShard} added). */
    public synchronized Topology topology() {
        return state.topology();
    }

    /**
     * Adds a shard to the running cluster, as an operator grows a sharded cluster: creates the next shard's database
     * ({@code shard<N+1>}), starts its process with the command line of the cluster's first shard (same JVM options and
     * peers; its own name, port and database), waits until it is ready, and registers it through router1
     * ({@code addShard}). The balancer then moves chunks to it.
     *
     * @return the new shard's component ({@code shard4} on port 8104 + offset after three shards)
     * @throws IllegalStateException    when no shard process was ever recorded (the cluster was never started)
     * @throws Ports.PortInUseException when the new shard's port is taken
     * @throws StartupException         when it does not become ready within the start timeout
     */
    public synchronized Component addShard() {
        ClusterState grown = state.withShards(state.shards() + 1);
        Component shard = grown.topology().component("shard" + grown.shards());
        Component template = topology().component("shard1");
        ProcessRecord recorded = state.processes().get(template.name());
        if (recorded == null) {
            throw new IllegalStateException("shard1 was never started in this cluster; start the cluster first");
        }
        requirePortsFree(shard);
        EmbeddedPostgresServer.createDatabaseAt(jdbcUrl("postgres"), shard.database().orElseThrow());
        state = grown;
        store.save(state);
        long begin = System.nanoTime();
        ProcessRecord record = ProcessControl.spawn(shard.name(), shard.port(), Commands.forAddedShard(recorded.command(), shard),
                home.log(shard.name()), false);
        record(record);
        new Readiness(home).await(shard, record, begin + startTimeout.toNanos(), startTimeout);
        out.accept(readyLine(shard, begin));
        registerShards();
        return shard;
    }

    /** The state directory. */
    public ClusterHome home() {
        return home;
    }

    /** Whether any recorded process still runs. */
    public synchronized boolean isRunning() {
        return !state.runningProcesses().isEmpty();
    }

    /** Router {@code i}'s URL, 1-based: {@code routerUrl(1)} is router1, {@code http://localhost:8080} + offset. */
    public String routerUrl(int i) {
        return topology().router(i).url();
    }

    /**
     * Router {@code i}'s MongoDB connection string, 1-based: {@code connectionString(1)} is
     * {@code mongodb://localhost:27017} + offset, for mongosh and the drivers.
     */
    public String connectionString(int i) {
        return topology().router(i).connectionString();
    }

    /** The URL of a service by component name, e.g. {@code url("shard2")}. */
    public String url(String component) {
        return topology().component(component).url();
    }

    /** The JDBC URL of one of the cluster's databases (user {@code postgres}, password {@code postgres}). */
    public String jdbcUrl(String database) {
        return "jdbc:postgresql://localhost:" + topology().component("postgres").port() + "/" + database;
    }

    /** The Kafka broker's bootstrap servers, e.g. {@code localhost:29092}. */
    public String kafkaBootstrapServers() {
        return "localhost:" + topology().component("kafka").port();
    }

    /** Each component with its pid, whether it runs and its health. Probes services over HTTP. */
    public synchronized List<ComponentStatus> status() {
        return topology().components().stream().map(c -> {
            ProcessRecord record = state.processes().get(c.name());
            boolean running = record != null && record.running();
            return new ComponentStatus(c, record == null ? OptionalLong.empty() : OptionalLong.of(record.pid()), running,
                    running ? Health.of(c) : new Health(false, "not running"));
        }).toList();
    }

    /**
     * Kills a component with SIGKILL (a crash, for fault tests) and waits until it is gone. Killing
     * {@code postgres} also kills the PostgreSQL server itself, which runs apart from its holder.
     *
     * @param name a component name, e.g. {@code shard2}, {@code config}, {@code router1}, {@code postgres}
     * @throws IllegalArgumentException for an unknown name
     */
    public synchronized void killService(String name) {
        Component component = topology().component(name);
        Optional.ofNullable(state.processes().get(name)).ifPresent(ProcessControl::kill);
        if (component.role() == Role.POSTGRES) {
            Postmaster.find(home.postgresData()).ifPresent(ProcessControl::killTree);
        }
        out.accept(name + " killed");
    }

    /**
     * Stops one component gracefully (SIGTERM, then SIGKILL after 30 s), as an operator takes a process down for
     * maintenance; {@link #startService} brings it back.
     *
     * @throws IllegalArgumentException for an unknown name
     * @throws IllegalStateException    when it does not run
     */
    public synchronized void stopService(String name) {
        topology().component(name);
        ProcessRecord record = state.processes().get(name);
        if (record == null || !record.running()) {
            throw new IllegalStateException(name + " is not running");
        }
        stopGroup(List.of(record));
        if (name.equals("postgres") && Postmaster.stop(home.postgresData(), STOP_GRACE)) {
            out.accept("stopped the PostgreSQL server its holder had left running");
        }
    }

    /**
     * Starts a stopped or killed component again with its recorded command (its log is appended to)
     * and waits until it is ready.
     *
     * @throws IllegalStateException when it still runs or was never started
     * @throws StartupException      when it exits or is not ready within the start timeout
     */
    public synchronized void startService(String name) {
        Component component = topology().component(name);
        ProcessRecord previous = state.processes().get(name);
        if (previous == null) {
            throw new IllegalStateException(name + " was never started in this cluster; start the cluster first");
        }
        if (previous.running()) {
            throw new IllegalStateException(name + " is already running (pid " + previous.pid() + ")");
        }
        if (!component.role().isService()) {
            deleteReadyFile(component);
        }
        requirePortsFree(component);
        long begin = System.nanoTime();
        ProcessRecord record = ProcessControl.spawn(name, component.port(), previous.command(), Path.of(previous.log()), true);
        record(record);
        new Readiness(home).await(component, record, begin + startTimeout.toNanos(), startTimeout);
        out.accept(readyLine(component, begin));
    }

    /**
     * Stops everything: services first (SIGTERM, up to 30 s, then SIGKILL), then Kafka, then
     * PostgreSQL, and forgets the cluster. Logs and PostgreSQL's data stay. Idempotent.
     */
    public synchronized void stop() {
        List<ProcessRecord> services = new ArrayList<>();
        topology().services().reversed().forEach(c -> Optional.ofNullable(state.processes().get(c.name())).ifPresent(services::add));
        stopGroup(services);
        Optional.ofNullable(state.processes().get("kafka")).ifPresent(r -> stopGroup(List.of(r)));
        Optional.ofNullable(state.processes().get("postgres")).ifPresent(r -> stopGroup(List.of(r)));
        if (Postmaster.stop(home.postgresData(), STOP_GRACE)) {
            out.accept("stopped a PostgreSQL server its holder had left running");
        }
        store.delete();
    }

    /**
     * {@link #stop()}, then deletes the data of this throwaway cluster (a test's or a benchmark's: PostgreSQL's data and
     * Kafka's directory, ~1.5 GB for 3 shards), keeping its logs, so that a suite of end-to-end classes does not fill
     * the disk.
     */
    public synchronized void stopAndDeleteData() {
        stop();
        home.deleteData();
    }

    /** Same as {@link #stop()}. */
    @Override
    public void close() {
        stop();
    }

    private void stopGroup(List<ProcessRecord> records) {
        List<ProcessRecord> running = records.stream().filter(ProcessRecord::running).toList();
        if (running.isEmpty()) {
            return;
        }
        long begin = System.nanoTime();
        List<String> killed = ProcessControl.terminate(running, STOP_GRACE);
        out.accept("stopped " + String.join(", ", running.stream().map(ProcessRecord::name).toList())
                + " in " + seconds(begin) + (killed.isEmpty() ? "" : " (killed after " + STOP_GRACE.toSeconds() + " s: " + String.join(", ", killed) + ")"));
    }

    private void prepareInfrastructure() {
        try {
            Path kafkaTmp = home.kafkaTmp();
            if (Files.exists(kafkaTmp)) {
                try (Stream<Path> leftovers = Files.walk(kafkaTmp)) {
                    for (Path p : leftovers.sorted(Comparator.reverseOrder()).toList()) {
                        Files.delete(p);
                    }
                }
            }
            Files.createDirectories(kafkaTmp);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare Kafka's temporary directory " + home.kafkaTmp(), e);
        }
        topology().components().stream().filter(c -> !c.role().isService()).forEach(this::deleteReadyFile);
    }

    private void startPhase(Commands commands, List<Component> components) {
        long begin = System.nanoTime();
        List<ProcessRecord> started = new ArrayList<>();
        for (Component c : components) {
            ProcessRecord record = ProcessControl.spawn(c.name(), c.port(), commands.commandFor(c), home.log(c.name()), false);
            record(record);
            started.add(record);
        }
        Readiness readiness = new Readiness(home);
        for (int i = 0; i < components.size(); i++) {
            readiness.await(components.get(i), started.get(i), begin + startTimeout.toNanos(), startTimeout);
            out.accept(readyLine(components.get(i), begin));
        }
    }

    /**
     * A client of router {@code 1}, authenticated as {@code admin} when the cluster was started with {@code --auth}
     * (the password in {@link ClusterHome#adminPasswordFile()}).
     */
    public RouterClient routerClient(Duration requestTimeout) {
        return new RouterClient(routerUrl(1), requestTimeout, home.adminPassword().isPresent() ? ADMIN_USER : null,
                home.adminPassword().orElse(null));
    }

    /**
     * Creates user {@code admin} with role {@code root} on {@code admin} through the localhost exception (the cluster runs
     * on this machine), with the password of the cluster home; a cluster whose catalog already has users (a restart)
     * keeps them. The password goes only into the command, never into a log line.
     */
    private void createAdmin() {
        String password = home.adminPassword().orElseThrow(() -> new IllegalStateException("a cluster with authorization needs "
                + home.adminPasswordFile()));
        BsonDocument reply = new RouterClient(routerUrl(1), Duration.ofSeconds(30)).run("admin", new BsonDocument("createUser",
                new BsonString(ADMIN_USER)).append("pwd", new BsonString(password))
                .append("roles", new BsonArray(List.of(new BsonString("root")))));
        if (RouterClient.isOk(reply)) {
            out.accept("created user admin (role root); its password is in " + home.adminPasswordFile());
        } else {
            out.accept("users exist already: user admin authenticates with the password in " + home.adminPasswordFile());
        }
    }

    /**
     * Creates the console's user ({@link #CONSOLE_USER}, roles {@code clusterMonitor} and {@code clusterManager} on
     * {@code admin}) as {@code admin}, with the password of {@link ClusterHome#consoleCredentialsFile()}; a catalog that
     * has it already (a restart) keeps it (MongoDB's duplicate user, 51003). The password goes only into the command.
     */
    private void createConsoleUser() {
        String password = home.consolePassword().orElseThrow(() -> new IllegalStateException("a console with authorization needs "
                + home.consoleCredentialsFile()));
        BsonDocument reply = routerClient(Duration.ofSeconds(30)).run("admin", new BsonDocument("createUser", new BsonString(CONSOLE_USER))
                .append("pwd", new BsonString(password))
                .append("roles", new BsonArray(List.of(new BsonString("clusterMonitor"), new BsonString("clusterManager")))));
        if (RouterClient.isOk(reply)) {
            out.accept("created user console (roles clusterMonitor, clusterManager) for the console; its password is in "
                    + home.consoleCredentialsFile());
        } else if (reply.getNumber("code", new BsonInt32(0)).intValue() == DUPLICATE_USER) {
            out.accept("user console exists already: the console authenticates with the password in " + home.consoleCredentialsFile());
        } else {
            throw new IllegalStateException("cannot create the console's user: " + reply.toJson());
        }
    }

    private void registerShards() {
        RouterClient router = routerClient(Duration.ofSeconds(30));
        List<String> added = new ShardRegistrar(router).register(topology().withRole(Role.SHARD));
        out.accept(added.isEmpty() ? "shards already registered" : "registered " + String.join(", ", added) + " through router1");
    }

    private synchronized void record(ProcessRecord record) {
        state = state.with(record);
        store.save(state);
    }

    private void deleteReadyFile(Component component) {
        try {
            Files.deleteIfExists(home.readyFile(component.name()));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + home.readyFile(component.name()), e);
        }
    }

    /** The component's port and, for a router, its wire-protocol port must be free. */
    private static void requirePortsFree(Component component) {
        Ports.requireFree(component.port(), component.name());
        component.wirePort().ifPresent(port -> Ports.requireFree(port, component.name() + " (wire protocol)"));
    }

    private static String readyLine(Component component, long begin) {
        return "%-10s ready on :%d in %s".formatted(component.name(), component.port(), seconds(begin));
    }

    private static String seconds(long beginNanos) {
        return "%.1f s".formatted((System.nanoTime() - beginNanos) / 1e9);
    }
}
