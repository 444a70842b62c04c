package dev.shardstore.cluster.cli;

import dev.shardstore.cluster.ClusterHome;
import dev.shardstore.cluster.LocalCluster;
import java.io.PrintWriter;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code down}: stops every recorded process (services, then Kafka, then PostgreSQL). */
@Command(name = "down", mixinStandardHelpOptions = true,
        description = "Stop the local cluster: services first, then Kafka, then PostgreSQL. Data and logs stay unless --purge.")
final class DownCommand implements Callable<Integer> {
    @Mixin
    HomeOption home;

    @Option(names = "--purge", description = "also delete the cluster's data, logs and state (the next up starts afresh)")
    boolean purge;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        Optional<LocalCluster> cluster = home.attach(out);
        if (cluster.isEmpty()) {
            out.println("no cluster is recorded in " + home.dir() + "; nothing to stop");
        } else {
            cluster.get().stop();
            out.println("the cluster is down");
        }
        if (purge) {
            new ClusterHome(home.dir()).purge();
            out.println("deleted " + home.dir() + " (data, logs and state)");
        }
        return 0;
    }
}
