package dev.shardstore.cluster.crudspec;

import static org.assertj.core.api.Assertions.assertThat;
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
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Opt-in measurement: MongoDB's driver CRUD specification tests (unified format) against the router's wire
 * protocol, on a 2-shard, 1-router cluster (ports offset by 1600), once with the tests' collections unsharded and
 * once with each sharded on {@code {_id: "hashed"}}. Skipped unless {@code -Dcrudspec.dir=DIR} names a directory
 * of the spec's {@code source/crud/tests/unified/*.json} files (they are not part of this repository; see
 * docs/crud-spec.md); {@code -Dcrudspec.only=TEXT} keeps the files whose name contains TEXT. Prints a table
 * (mode, file, test, verdict, reason) and the totals, and writes them to {@code target/crudspec-report.txt}.
 * It fails only when no test was applicable, i.e. the directory held no usable spec file.
 */
class CrudSpecIT {

    @Test
    void runsTheCrudSpecificationTests() throws IOException {
        String dir = System.getProperty("crudspec.dir");
        assumeTrue(dir != null && !dir.isBlank(),
                "CrudSpecIT is opt-in: pass -Dcrudspec.dir=<directory of mongodb/specifications source/crud/tests/unified/*.json>");
        String only = System.getProperty("crudspec.only", "");
        List<Path> files;
        try (Stream<Path> listing = Files.list(Path.of(dir))) {
            files = listing.filter(p -> p.getFileName().toString().endsWith(".json"))
                    .filter(p -> p.getFileName().toString().contains(only)).sorted().toList();
        }
        Path home = Files.createTempDirectory("shardstore-crudspec-");
        LocalCluster cluster = LocalCluster.start(ClusterOptions.defaults(RepoLayout.detect())
                .withHome(home).withShards(2).withRouters(1).withPortOffset(1600), line -> System.out.println("[cluster] " + line));
        StringBuilder report = new StringBuilder();
        int applicable = 0;
        try (MongoClient setup = MongoClients.create(cluster.connectionString(1) + "/?appName=crudspec-setup")) {
            for (boolean sharded : new boolean[] {false, true}) {
                String mode = sharded ? "hashed" : "unsharded";
                UnifiedTestRunner runner = new UnifiedTestRunner(cluster.connectionString(1), setup, sharded);
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
            cluster.stopAndDeleteData();
        }
        System.out.print(report);
        Path out = Path.of("target", "crudspec-report.txt");
        Files.createDirectories(out.getParent());
        Files.writeString(out, report);
        assertThat(applicable).as("applicable CRUD spec tests found in " + dir).isPositive();
    }
}
