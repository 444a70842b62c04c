package dev.shardstore.cluster.cli;

import dev.shardstore.cluster.ClusterHome;
import dev.shardstore.cluster.ClusterOptions;
import dev.shardstore.cluster.Component;
import dev.shardstore.cluster.LocalCluster;
import dev.shardstore.cluster.RepoLayout;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code up}: starts the cluster unless it already runs, then prints where everything is. */
@Command(name = "up", mixinStandardHelpOptions = true, description = "Start the local cluster (or show it if it already runs).")
final class UpCommand implements Callable<Integer> {
    @Mixin
    HomeOption home;

    @Mixin
    DurabilityOption durability;

    @Option(names = "--shards", defaultValue = "3", description = "shard-service instances (default: ${DEFAULT-VALUE})")
    int shards;

    @Option(names = "--routers", defaultValue = "1", description = "router-service instances (default: ${DEFAULT-VALUE})")
    int routers;

    @Option(names = "--port-offset", defaultValue = "0", description = "added to every port, to run a second cluster beside the first (default: ${DEFAULT-VALUE})")
    int portOffset;

    @Option(names = "--timeout", defaultValue = "240", paramLabel = "SECONDS", description = "how long each start phase may take (default: ${DEFAULT-VALUE})")
    int timeoutSeconds;

    @Option(names = "--jvm-opts", paramLabel = "OPTS", description = "JVM options for each service, space-separated"
            + " (default: the environment variable SHARDSTORE_JVM_OPTS, else -Xms192m -Xmx384m -Xmn128m -XX:+UseSerialGC, the full JIT;"
            + " add -XX:TieredStopAtLevel=1 for a faster start and half the throughput)")
    String jvmOptions;

    @Option(names = "--auth", description = "turn authentication and authorization on in every service (and --cluster-key) and create"
            + " user admin (role root); its password from --admin-password-file, or generated, kept in the cluster home (mode 0600) and printed once;"
            + " the console runs as user console (roles clusterMonitor, clusterManager), its generated password kept in the cluster home too")
    boolean auth;

    @Option(names = "--admin-password-file", paramLabel = "FILE", description = "with --auth: the file holding admin's password")
    Path adminPasswordFile;
    @Option(names = "--set-parameter", paramLabel = "NAME=VALUE", description = "a server parameter every service starts with,"
            + " e.g. internalQueryMaxBlockingSortMemoryUsageBytes=33554432 (repeatable; docs/architecture.md \"Memory limits\")")
    Map<String, String> serverParameters = new LinkedHashMap<>();

    @Option(names = "--cluster-key", description = "services prove cluster membership to each other with a key generated into"
            + " the cluster home (cluster.key, mode 0600; reused when present) and refuse callers without it, as MongoDB's keyFile")
    boolean clusterKey;

    @Option(names = "--bind-ip", paramLabel = "ADDR[,ADDR]", split = ",", description = "the addresses every service listens on"
            + " (default: 127.0.0.1, this machine only)")
    List<String> bindIp;

    @Option(names = "--no-console", description = "leave out the operator's web console (by default it runs on port 8085 + offset)")
    boolean noConsole;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        RepoLayout repo = RepoLayout.detect();
        Optional<LocalCluster> existing = home.running(out);
        if (existing.isPresent()) {
            out.println("the cluster in " + existing.get().home().dir() + " is already up:");
            StatusTable.print(existing.get().status(), out);
            return 0;
        }
        String generated = auth ? adminPassword(new ClusterHome(home.dir())) : null;
        ClusterOptions options = ClusterOptions.defaults(repo)
                .withHome(home.dir())
                .withShards(shards)
                .withRouters(routers)
                .withPortOffset(portOffset)
                .withStartTimeout(Duration.ofSeconds(timeoutSeconds))
                .withServiceJvmOptions(serviceJvmOptions())
                .withDurability(durability.durability)
                .withConsole(!noConsole)
                .withServerParameters(serverParameters)
                .withClusterKey(clusterKey || auth) // as MongoDB's keyFile implies authorization, client users imply members proving membership
                .withBindIp(bindIp == null || bindIp.isEmpty() ? ClusterOptions.DEFAULT_BIND_IP : bindIp);
        long begin = System.nanoTime();
        out.printf("starting %d shard(s) and %d router(s); logs in %s%n", shards, routers, options.home().resolve("logs"));
        out.flush();
        LocalCluster cluster = start(options, out);
        out.printf("shardstore is up in %.0f s%n", (System.nanoTime() - begin) / 1e9);
        if (generated != null) {
            out.println("user admin's password (printed this once; kept in " + cluster.home().adminPasswordFile() + "): " + generated);
        }
        return 0;
    }

    /** Starts a cluster, echoing each step indented on {@code out}, then prints its endpoints. */
    static LocalCluster start(ClusterOptions options, PrintWriter out) {
        LocalCluster cluster = LocalCluster.start(options, line -> {
            out.println("  " + line);
            out.flush();
        });
        printEndpoints(cluster, out);
        return cluster;
    }

    private List<String> serviceJvmOptions() {
        String configured = jvmOptions != null ? jvmOptions : System.getenv("SHARDSTORE_JVM_OPTS");
        List<String> options = new ArrayList<>(configured == null || configured.isBlank()
                ? ClusterOptions.SERVER_JVM_OPTIONS
                : Arrays.stream(configured.trim().split("\\s+")).toList());
        if (auth) {
            options.add(LocalCluster.AUTH_OPTION);
        }
        return options;
    }

    /**
     * Writes admin's password into the cluster home (mode 0600): the one of {@code --admin-password-file}, or 24 random
     * bytes in base64url.
     *
     * @return the generated password, to print once; null when it came from the file
     */
    private @Nullable String adminPassword(ClusterHome clusterHome) {
        if (adminPasswordFile != null) {
            try {
                clusterHome.writeAdminPassword(Files.readString(adminPasswordFile).strip());
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read --admin-password-file " + adminPasswordFile, e);
            }
            return null;
        }
        String password = ClusterHome.randomPassword();
        clusterHome.writeAdminPassword(password);
        return password;
    }

    static void printEndpoints(LocalCluster cluster, PrintWriter out) {
        for (Component c : cluster.topology().components()) {
            String where = switch (c.role()) {
                case POSTGRES -> "jdbc:postgresql://localhost:" + c.port() + "/<database>  (user postgres, password postgres)";
                case KAFKA -> "localhost:" + c.port();
                case ROUTER -> c.url() + "  POST /v1/databases/{db}/command;  mongosh " + c.connectionString() + ";  " + c.url() + "/swagger-ui";
                case CONSOLE -> c.url() + "  the operator's web console (open it in a browser)";
                default -> c.url();
            };
            out.printf("  %-11s %s%n", c.name(), where);
        }
        out.println("state and logs: " + cluster.home().dir() + "   (./cluster status | logs NAME | down)");
        out.flush();
    }
}
