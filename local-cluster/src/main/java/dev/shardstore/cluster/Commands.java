package dev.shardstore.cluster;

import dev.shardstore.cluster.holder.KafkaHolder;
import dev.shardstore.cluster.holder.PostgresHolder;
import dev.shardstore.infra.EmbeddedPostgresServer;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The command line of each component: the PostgreSQL and Kafka holders run on this launcher's own
 * classpath, the services as {@code java -jar <module>.jar --property=value …} from their extracted jars with a CDS
 * archive ({@link ServiceLaunch}). Every child uses the java binary this launcher runs on.
 */
final class Commands {
    /**
     * The local cluster's {@code orphanCleanupDelaySecs} (MongoDB's default is 15 minutes): short, so that the orphans a
     * moved chunk leaves on its donor are gone seconds after the move. A system property before the cluster's service JVM
     * options, so that a test's own {@code -D} of it wins.
     */
    static final String ORPHAN_CLEANUP_DELAY = "-Dshardstore.shard.migration.orphan-cleanup-delay=5s";

    /**
     * The PostgreSQL holder's heap: the first start on a machine unpacks the binaries' xz stream, which needs about
     * 150 MB (96 MB ran out of heap and left a half-unpacked directory behind).
     */
    static final String POSTGRES_HOLDER_HEAP = "-Xmx256m";

    /** The argument naming a shard's spill directory (docs/architecture.md "Memory limits"). */
    static final String SPILL_DIRECTORY = "--shardstore.spill.directory=";
    /** The services' property of their bind addresses. */
    static final String BIND_IP = "shardstore.net.bind-ip";
    /** The argument that names the cluster key's file to a service; its presence in a recorded command means enforcement. */
    static final String CLUSTER_KEY_FILE = "--shardstore.security.cluster-key-file=";

    private final ClusterOptions options;
    private final ClusterHome home;
    private final Topology topology;
    private final String java;
    private final ServiceLaunch launch;

    Commands(ClusterOptions options, ClusterHome home, Topology topology) {
        this.options = options;
        this.home = home;
        this.topology = topology;
        this.java = ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        this.launch = new ServiceLaunch(options.repo(), java);
    }

    /** The jars of the services that are missing, as "module (path)" lines. */
    List<String> missingJars() {
        return topology.services().stream()
                .map(c -> c.role().module().orElseThrow())
                .distinct()
                .filter(m -> !Files.isRegularFile(options.repo().serviceJar(m)))
                .map(m -> m + " (" + options.repo().serviceJar(m) + ")")
                .toList();
    }

    List<String> commandFor(Component component) {
        return switch (component.role()) {
            case POSTGRES -> holder(PostgresHolder.class, List.of(POSTGRES_HOLDER_HEAP), postgresArgs(component));
            case KAFKA -> holder(KafkaHolder.class, List.of("-Xmx512m", "-Djava.io.tmpdir=" + home.kafkaTmp()), List.of(
                    "--port=" + component.port(),
                    "--ready-file=" + home.readyFile(component.name())));
            default -> service(component);
        };
    }

    private List<String> postgresArgs(Component component) {
        List<String> args = new ArrayList<>(List.of(
                "--port=" + component.port(),
                "--data=" + home.postgresData(),
                "--ready-file=" + home.readyFile(component.name()),
                "--databases=" + String.join(",", topology.databases()),
                "--durability=" + options.durability().label()));
        options.postgresBinaries().ifPresent(dir -> args.add("--binaries=" + dir.toAbsolutePath()));
        return args;
    }

    private List<String> holder(Class<?> main, List<String> jvmOptions, List<String> args) {
        List<String> command = new ArrayList<>();
        command.add(java);
        command.add("-XX:+UseSerialGC");
        // C1 only: the embedded Kafka broker carries the catalog's events, no hot path, and its start took 7.0 CPU s with
        // C2 against 3.7 without (of a 2-shard cluster's ~60); the PostgreSQL holder only supervises the server
        command.add("-XX:TieredStopAtLevel=1");
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(absoluteClasspath());
        command.add(main.getName());
        command.addAll(args);
        return command;
    }

    /** This JVM's classpath with absolute entries, so a child may run in any working directory. */
    private static String absoluteClasspath() {
        return Stream.of(System.getProperty("java.class.path").split(File.pathSeparator))
                .map(entry -> Path.of(entry).toAbsolutePath().toString())
                .collect(Collectors.joining(File.pathSeparator));
    }

    private List<String> service(Component component) {
        List<String> command = new ArrayList<>();
        command.add(java);
        if (component.role() == Role.SHARD) {
            command.add(ORPHAN_CLEANUP_DELAY);
        }
        command.addAll(options.serviceJvmOptions());
        // the first instance of each module writes its archive (ServiceLaunch: one writer per file)
        boolean writer = topology.withRole(component.role()).get(0).equals(component);
        command.addAll(launch.jvmArguments(component.role().module().orElseThrow(), writer));
        command.add("--server.port=" + component.port());
        component.database().ifPresent(db -> {
            command.add("--spring.datasource.url=jdbc:postgresql://localhost:" + postgresPort() + "/" + db);
            command.add("--spring.datasource.username=" + EmbeddedPostgresServer.USERNAME);
            command.add("--spring.datasource.password=" + EmbeddedPostgresServer.PASSWORD);
        });
        command.add("--spring.kafka.bootstrap-servers=localhost:" + topology.component("kafka").port());
        options.serverParameters().forEach((name, value) -> command.add("--shardstore.set-parameter." + name + "=" + value));
        command.add("--" + BIND_IP + "=" + String.join(",", options.bindIp()));
        if (options.clusterKey()) {
            command.add(CLUSTER_KEY_FILE + home.clusterKeyFile());
        }
        if (component.role() != Role.CONFIG) {
            command.add("--shardstore.config-url=" + topology.component("config").url());
        }
        switch (component.role()) {
            case SHARD -> {
                command.add("--shardstore.shard.name=" + component.name());
                // its own directory, emptied at each start: a kill -9 leaves no spill files behind for long
                command.add(SPILL_DIRECTORY + home.dir().resolve("spill").resolve(component.name()));
                command.add("--shardstore.sessions.cache.session-url=" + topology.component("session").url());
            }
            case ROUTER -> {
                command.add("--shardstore.sessions.cache.session-url=" + topology.component("session").url());
                command.add("--shardstore.router.name=" + component.name());
                command.add("--shardstore.router.wire.port=" + component.wirePort().orElseThrow());
                command.add("--shardstore.router.balancer-url=" + topology.component("balancer").url());
                command.add("--shardstore.router.resharding-url=" + topology.component("resharding").url());
                // every router keeps an audit log (authentications, user changes, DDL, sharding administration) beside its log
                command.add("--shardstore.audit.path=" + home.logs().resolve(component.name() + "-audit.json"));
            }
            case CONSOLE -> {
                command.add("--shardstore.console.router-urls=" + topology.withRole(Role.ROUTER).stream().map(Component::url)
                        .collect(Collectors.joining(",")));
                command.add("--shardstore.console.balancer-url=" + topology.component("balancer").url());
                command.add("--shardstore.console.session-url=" + topology.component("session").url());
                command.add("--shardstore.console.resharding-url=" + topology.component("resharding").url());
                command.add("--shardstore.console.config-url=" + topology.component("config").url());
                if (options.serviceJvmOptions().contains(LocalCluster.AUTH_OPTION)) {
                    // its user and password from the cluster home's file, never on the command line (ClusterHome)
                    command.add("--spring.config.import=file:" + home.consoleCredentialsFile());
                }
            }
            default -> { }
        }
        return command;
    }

    /**
     * The command line of a shard added to a running cluster: {@code template}, a recorded shard's command, with the new
     * shard's port, database and name (its JVM options and peers stay, so a test's {@code -D} options carry over), and
     * without {@link ServiceLaunch#WRITE_ARCHIVE}: the shard whose command it copies writes the module's archive.
     *
     * @throws IllegalStateException when {@code template} lacks one of the three arguments (it is not a shard's command)
     */
    static List<String> forAddedShard(List<String> template, Component shard) {
        List<String> command = new ArrayList<>(template);
        command.remove(ServiceLaunch.WRITE_ARCHIVE);
        replace(command, "--server.port=", String.valueOf(shard.port()));
        replace(command, "--shardstore.shard.name=", shard.name());
        // a spill directory of its own beside the template's: each shard empties its directory when it starts
        command.replaceAll(arg -> arg.startsWith(SPILL_DIRECTORY)
                ? SPILL_DIRECTORY + Path.of(arg.substring(SPILL_DIRECTORY.length())).resolveSibling(shard.name()) : arg);
        int url = indexOf(command, "--spring.datasource.url=");
        String jdbc = command.get(url);
        command.set(url, jdbc.substring(0, jdbc.lastIndexOf('/') + 1) + shard.database().orElseThrow());
        return command;
    }

    private static void replace(List<String> command, String prefix, String value) {
        command.set(indexOf(command, prefix), prefix + value);
    }

    private static int indexOf(List<String> command, String prefix) {
        for (int i = 0; i < command.size(); i++) {
            if (command.get(i).startsWith(prefix)) {
                return i;
            }
        }
        throw new IllegalStateException("not a shard's command line (no " + prefix + "...): " + command);
    }

    private int postgresPort() {
        return topology.component("postgres").port();
    }
}
