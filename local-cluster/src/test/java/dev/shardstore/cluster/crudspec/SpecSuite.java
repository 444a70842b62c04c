package dev.shardstore.cluster.crudspec;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import dev.shardstore.cluster.ClusterOptions;
import dev.shardstore.cluster.LocalCluster;
import dev.shardstore.cluster.RepoLayout;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * What the opt-in specification measurements ({@link CrudSpecIT}, {@link TransactionsSpecIT}) share: it reads the
 * unified-format files of a directory, starts a 2-shard cluster with the given routers and port offset, runs every file
 * through {@link UnifiedTestRunner} once per mode ({@code unsharded}: the tests' collections as they are;
 * {@code hashed}: each {@code initialData} collection sharded on {@code {_id: "hashed"}}), prints a table (mode, file,
 * test, verdict, reason) with the totals per mode and writes it to {@code target/<name>-report.txt}.
 *
 * <p>System properties, for {@code name}: {@code <name>.dir} (required, else the test is skipped with
 * {@code whatDir} in the message), {@code <name>.only} (keep the files whose name contains it) and
 * {@code <name>.modes} (comma-separated, default {@code unsharded,hashed}).
 */
final class SpecSuite {
    private SpecSuite() {
    }

    /**
     * Runs the suite.
     *
     * @param name the measurement's name: the prefix of its properties, its report file and its cluster's home
     * @param whatDir what the directory must hold, for the skip message
     * @param routers how many routers the cluster has (a client entity with {@code useMultipleMongoses} uses them all)
     * @param portOffset the cluster's port offset (each measurement has its own, below 3676)
     * @param serviceJvmOptions the services' JVM options
     * @param driverSkips the tests the Java driver fails on its own ({@link UnifiedTestRunner}'s parameter)
     * @return how many tests were applicable (passed or failed) over all modes
     */
    static int run(String name, String whatDir, int routers, int portOffset, List<String> serviceJvmOptions,
            Map<String, String> driverSkips) throws IOException {
        String dir = System.getProperty(name + ".dir");
        assumeTrue(dir != null && !dir.isBlank(), name + " is opt-in: pass -D" + name + ".dir=<" + whatDir + ">");
        String only = System.getProperty(name + ".only", "");
        List<String> modes = Arrays.asList(System.getProperty(name + ".modes", "unsharded,hashed").split(","));
        List<Path> files;
        try (Stream<Path> listing = Files.list(Path.of(dir))) {
            files = listing.filter(p -> p.getFileName().toString().endsWith(".json"))
                    .filter(p -> p.getFileName().toString().contains(only)).sorted().toList();
        }
        Path home = Files.createTempDirectory("shardstore-" + name + "-");
        LocalCluster cluster = LocalCluster.start(ClusterOptions.defaults(RepoLayout.detect()).withHome(home).withShards(2)
                .withRouters(routers).withPortOffset(portOffset).withServiceJvmOptions(serviceJvmOptions),
                line -> System.out.println("[cluster] " + line));
        StringBuilder report = new StringBuilder();
        int applicable = 0;
        List<String> connectionStrings = new ArrayList<>();
        List<MongoClient> internal = new ArrayList<>();
        try {
            for (int i = 1; i <= routers; i++) {
                connectionStrings.add(cluster.connectionString(i));
                internal.add(MongoClients.create(cluster.connectionString(i) + "/?appName=" + name + "-internal"));
            }
            for (String mode : modes) {
                if (!mode.equals("unsharded") && !mode.equals("hashed")) {
                    throw new IllegalArgumentException(name + ".modes: unknown mode " + mode + " (unsharded, hashed)");
                }
                UnifiedTestRunner runner = new UnifiedTestRunner(connectionStrings, internal, mode.equals("hashed"), driverSkips);
                Map<UnifiedTestRunner.Status, Integer> totals = new EnumMap<>(UnifiedTestRunner.Status.class);
                List<UnifiedTestRunner.Result> all = new ArrayList<>();
                for (Path file : files) {
                    all.addAll(runner.runFile(file));
                }
                for (UnifiedTestRunner.Result r : all) {
                    totals.merge(r.status(), 1, Integer::sum);
                    report.append(String.format("%-9s | %-45s | %-70s | %-17s | %s%n", mode, r.file(), r.test(), r.status(), r.reason()));
                }
                int pass = totals.getOrDefault(UnifiedTestRunner.Status.PASS, 0);
                int fail = totals.getOrDefault(UnifiedTestRunner.Status.FAIL, 0);
                applicable += pass + fail;
                report.append(String.format("TOTAL %s: applicable %d, pass %d, fail %d; not applicable %d, runner gap %d%n",
                        mode, pass + fail, pass, fail, totals.getOrDefault(UnifiedTestRunner.Status.NOT_APPLICABLE, 0),
                        totals.getOrDefault(UnifiedTestRunner.Status.RUNNER_GAP, 0)));
            }
        } finally {
            internal.forEach(MongoClient::close);
            cluster.stopAndDeleteData();
        }
        System.out.print(report);
        Path out = Path.of("target", name + "-report.txt");
        Files.createDirectories(out.getParent());
        Files.writeString(out, report);
        return applicable;
    }
}
