package dev.shardstore.cluster.cli;

import dev.shardstore.cluster.ClusterOptions;
import dev.shardstore.cluster.LocalCluster;
import dev.shardstore.cluster.RepoLayout;
import dev.shardstore.cluster.demo.Demo;
import dev.shardstore.cluster.router.RouterClient;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code demo}: starts the cluster if needed, loads the bundled cities and queries them. */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = "Start the cluster if it is not up, load data/cities.json.gz into geo.cities and run a few queries.")
final class DemoCommand implements Callable<Integer> {
    @Mixin
    HomeOption home;

    @Mixin
    DurabilityOption durability;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        RepoLayout repo = RepoLayout.detect();
        Path cities = repo.root().resolve("data").resolve("cities.json.gz");
        Path weather = repo.root().resolve("data").resolve("weather.csv");
        for (Path data : new Path[] {cities, weather}) {
            if (!Files.isRegularFile(data)) {
                throw new IllegalStateException("the demo data set is missing: " + data);
            }
        }
        Optional<LocalCluster> existing = home.running(out);
        LocalCluster cluster;
        if (existing.isPresent()) {
            cluster = existing.get();
            out.println("using the running cluster in " + cluster.home().dir());
        } else {
            out.println("starting the local cluster (3 shards, 1 router)...");
            out.flush();
            cluster = UpCommand.start(ClusterOptions.defaults(repo).withHome(home.dir()).withDurability(durability.durability), out);
        }
        out.flush();
        RouterClient router = cluster.routerClient(Duration.ofMinutes(2));
        new Demo(router, cluster.connectionString(1), cities, weather, new ProgressBarListener(), new PrintStream(System.out, true)).run();
        System.out.println();
        System.out.println("the cluster keeps running: ./cluster status, ./cluster down");
        return 0;
    }
}
