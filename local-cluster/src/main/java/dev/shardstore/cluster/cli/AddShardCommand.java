package dev.shardstore.cluster.cli;

import dev.shardstore.cluster.Component;
import dev.shardstore.cluster.LocalCluster;
import dev.shardstore.cluster.router.RouterClient;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.DelegatingProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code add-shard [--no-watch] [--timeout SECONDS]}: starts one more shard process and adds it ({@link LocalCluster#addShard}),
 * then follows the balancer: a progress bar of the chunks the new shard owns against its ideal share (each sharded
 * collection's chunks divided by the number of shards in {@code listShards}), until {@code balancerCollectionStatus} is compliant for every
 * sharded collection, and finally each collection's distribution table ({@link DistributionTable}). On a terminal the bar
 * is redrawn in place, otherwise a plain line every few seconds (see {@link ProgressBarListener}).
 */
@Command(name = "add-shard", mixinStandardHelpOptions = true,
        description = "Start one more shard, add it to the running cluster and show the balancer spreading the data onto it.")
final class AddShardCommand implements Callable<Integer> {
    private static final Duration POLL = Duration.ofSeconds(2);

    @Mixin
    HomeOption home;

    @Option(names = "--no-watch", description = "only add the shard; do not follow the balancer")
    boolean noWatch;

    @Option(names = "--timeout", defaultValue = "3600", paramLabel = "SECONDS",
            description = "how long to follow the balancer before giving up (default: ${DEFAULT-VALUE})")
    int timeoutSeconds;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        LocalCluster cluster = home.requireRunning();
        Component shard = cluster.addShard();
        out.printf("%s added: %s%n", shard.name(), shard.url());
        out.flush();
        if (noWatch) {
            return 0;
        }
        RouterClient router = cluster.routerClient(Duration.ofSeconds(60));
        List<String> namespaces = DistributionTable.shardedCollections(router);
        if (namespaces.isEmpty()) {
            out.println("no sharded collection: nothing to balance");
            return 0;
        }
        boolean compliant = follow(router, namespaces, shard.name());
        for (String namespace : namespaces) {
            DistributionTable.print(router, namespace, out);
        }
        return compliant ? 0 : 1;
    }

    /** Polls until every collection is compliant or the timeout passes; whether they all became compliant. */
    private boolean follow(RouterClient router, List<String> namespaces, String shard) throws InterruptedException {
        boolean terminal = ProgressBarListener.isTerminal(System.getProperty("shardstore.progress"), System.console() != null);
        long deadline = System.nanoTime() + Duration.ofSeconds(timeoutSeconds).toNanos();
        try (ProgressBar bar = new ProgressBarBuilder().setTaskName("balancing onto " + shard).setInitialMax(1).setUnit(" chunks", 1)
                .setStyle(ProgressBarStyle.ASCII).setUpdateIntervalMillis(terminal ? 250 : 5_000)
                .setConsumer(terminal ? new ConsoleProgressBarConsumer(System.err) : new DelegatingProgressBarConsumer(System.err::println))
                .build()) {
            while (true) {
                int shards = DistributionTable.shardCount(router);
                long owned = 0;
                long ideal = 0;
                int compliant = 0;
                for (String namespace : namespaces) {
                    Map<String, Long> chunks = DistributionTable.chunksPerShard(router, namespace);
                    long total = chunks.values().stream().mapToLong(Long::longValue).sum();
                    owned += chunks.getOrDefault(shard, 0L);
                    ideal += Math.max(1, total / shards);
                    compliant += DistributionTable.compliant(router, namespace) ? 1 : 0;
                }
                bar.maxHint(Math.max(ideal, owned));
                bar.stepTo(owned);
                bar.setExtraMessage("%d of %d collection(s) balanced".formatted(compliant, namespaces.size()));
                if (compliant == namespaces.size()) {
                    return true;
                }
                if (System.nanoTime() > deadline) {
                    return false;
                }
                Thread.sleep(POLL);
            }
        }
    }
}
