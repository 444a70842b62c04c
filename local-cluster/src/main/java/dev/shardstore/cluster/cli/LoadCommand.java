package dev.shardstore.cluster.cli;

import dev.shardstore.cluster.ClusterHome;
import dev.shardstore.cluster.LocalCluster;
import dev.shardstore.cluster.load.BulkLoader;
import dev.shardstore.cluster.load.LoadReport;
import dev.shardstore.cluster.router.RouterClient;
import dev.shardstore.contracts.namespace.Namespace;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code load FILE --ns DB.COLL}: bulk-inserts a JSON, JSON Lines or CSV file through a router. */
@Command(name = "load", mixinStandardHelpOptions = true,
        description = "Load a JSON array, JSON Lines or CSV (with a header) file, optionally .gz, into a collection through a router.")
final class LoadCommand implements Callable<Integer> {
    @Mixin
    HomeOption home;

    @Parameters(paramLabel = "FILE", description = "*.json, *.jsonl, *.ndjson or *.csv, optionally .gz")
    Path file;

    @Option(names = "--ns", required = true, paramLabel = "DB.COLL", description = "target collection, e.g. geo.cities")
    String namespace;

    @Option(names = "--batch-size", defaultValue = "1000", description = "documents per insert command (default: ${DEFAULT-VALUE})")
    int batchSize;

    @Option(names = "--in-flight", defaultValue = "4", description = "insert commands sent concurrently (default: ${DEFAULT-VALUE})")
    int inFlight;

    @Option(names = "--router", paramLabel = "URL", description = "router URL (default: router1 of the recorded cluster, else http://localhost:8080)")
    String router;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        Namespace target = Namespace.parse(namespace, "--ns");
        Optional<String> adminPassword = new ClusterHome(home.dir()).adminPassword();
        RouterClient client = new RouterClient(routerUrl(), Duration.ofMinutes(2), adminPassword.isPresent() ? LocalCluster.ADMIN_USER : null,
                adminPassword.orElse(null));
        LoadReport report = new BulkLoader(client, batchSize, inFlight).load(file, target, new ProgressBarListener());
        out.printf("%,d documents read, %,d inserted into %s, %,d failed, in %.1f s: %,.0f documents/s%n",
                report.documents(), report.inserted(), target, report.failed(),
                report.elapsed().toMillis() / 1000.0, report.documentsPerSecond());
        report.errorSamples().forEach(e -> out.println("  error: " + e));
        if (report.failed() > report.errorSamples().size()) {
            out.printf("  … and %,d more errors%n", report.failed() - report.errorSamples().size());
        }
        return report.failed() == 0 ? 0 : 1;
    }

    private String routerUrl() {
        if (router != null) {
            return router;
        }
        return home.attach(new PrintWriter(System.err, true)).map(c -> c.routerUrl(1)).orElse("http://localhost:8080");
    }
}
