package dev.shardstore.cluster.cli;

import dev.shardstore.cluster.LocalCluster;
import java.io.PrintWriter;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code status}: each component's pid, whether it runs, its port and health. Exit status 1 unless all are healthy. */
@Command(name = "status", mixinStandardHelpOptions = true,
        description = "Show each component: pid, running, port, health. Exits 1 unless every component is healthy.")
final class StatusCommand implements Callable<Integer> {
    @Mixin
    HomeOption home;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        Optional<LocalCluster> cluster = home.attach(out);
        if (cluster.isEmpty()) {
            out.println("no cluster is recorded in " + home.dir() + " (start one with ./cluster up)");
            return 1;
        }
        var statuses = cluster.get().status();
        StatusTable.print(statuses, out);
        return statuses.stream().allMatch(s -> s.health().up()) ? 0 : 1;
    }
}
