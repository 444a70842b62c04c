package dev.shardstore.cluster.cli;

import dev.shardstore.cluster.LocalCluster;
import dev.shardstore.cluster.router.RouterClient;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code balance DB.COLL [--watch]}: the collection's distribution per shard (chunks from {@code config.chunks}, owned
 * documents and bytes from {@code $shardedDataDistribution}, a bar of each shard's share of the bytes) and the balancer's
 * view ({@code balancerStatus}, {@code balancerCollectionStatus}); with {@code --watch}, again every 2 s until compliant.
 */
@Command(name = "balance", mixinStandardHelpOptions = true,
        description = "Show a sharded collection's distribution per shard and whether the balancer considers it balanced.")
final class BalanceCommand implements Callable<Integer> {
    private static final Duration POLL = Duration.ofSeconds(2);

    @Mixin
    HomeOption home;

    @Parameters(paramLabel = "DB.COLL", description = "the sharded collection, e.g. geo.cities")
    String namespace;

    @Option(names = "--watch", description = "repeat every 2 s until balancerCollectionStatus is compliant")
    boolean watch;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        LocalCluster cluster = home.requireRunning();
        RouterClient router = cluster.routerClient(Duration.ofSeconds(60));
        while (true) {
            boolean compliant = DistributionTable.print(router, namespace, out);
            if (!watch || compliant) {
                return compliant ? 0 : 1;
            }
            Thread.sleep(POLL);
        }
    }
}
