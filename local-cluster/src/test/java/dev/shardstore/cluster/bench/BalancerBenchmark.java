package dev.shardstore.cluster.bench;

import static org.awaitility.Awaitility.await;

import dev.shardstore.cluster.ClusterOptions;
import dev.shardstore.cluster.LocalCluster;
import dev.shardstore.cluster.RepoLayout;
import dev.shardstore.cluster.bench.MigrationTimeline.Migration;
import dev.shardstore.cluster.load.BulkLoader;
import dev.shardstore.cluster.load.LoadListener;
import dev.shardstore.cluster.load.LoadReport;
import dev.shardstore.cluster.router.RouterClient;
import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.namespace.Namespace;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.bson.BsonDocument;

/**
 * Adding a shard under a write load (docs/benchmarks.md, "Balancer: adding a shard"). Starts its own local cluster (3
 * shards, 1 router, ports offset by {@code args[0]}, default 3300, a balancer round every second), sets the chunk size
 * ({@code args[2]} MiB, default 1), loads {@code args[1]} (default {@code data/flights-300k.csv.gz}; the issue's figure
 * uses the full {@code flights-3m.csv.gz} of the shared datasets) with the balancer stopped into {@code bench.flights} sharded on the ranged key
 * {@code {date: 1}}, lets the balancer spread it over the 3 shards, and then
 * <ol>
 *   <li>runs 4 clients inserting one flight at a time at random dates until 36,000 are acknowledged (about a minute) with the balancer stopped: the baseline
 *       write throughput;</li>
 *   <li>adds a 4th shard, starts the balancer and runs the same clients until {@code balancerCollectionStatus} is compliant:
 *       the time to balance, the write throughput meanwhile, the migrations after the add and how many ran at once
 *       ({@link MigrationTimeline}).</li>
 * </ol>
 * A benchmark, not a test: it prints figures and fails on nothing but errors.
 *
 * <pre>
 * ./mvnw -q -o -DskipTests package
 * ./mvnw -q -o -pl local-cluster test-compile
 * java -cp "local-cluster/target/test-classes:local-cluster/target/local-cluster.jar:local-cluster/target/lib/*" \
 *   dev.shardstore.cluster.bench.BalancerBenchmark 3300 [flights.csv.gz [chunk MiB]]
 * </pre>
 */
public final class BalancerBenchmark {
    private static final String NS = "bench.flights";
    private static final int WRITERS = 4;
    /** Inserts of the balancer-off baseline: about a minute of them at the rate measured on the 3M flights (611/s). */
    private static final long BASELINE_WRITES = 36_000;

    private BalancerBenchmark() {}

    public static void main(String[] args) throws Exception {
        int offset = args.length > 0 ? Integer.parseInt(args[0]) : 3300;
        Path data = args.length > 1 ? Path.of(args[1]) : RepoLayout.detect().root().resolve("data/flights-300k.csv.gz");
        int chunkSizeMegabytes = args.length > 2 ? Integer.parseInt(args[2]) : 1;
        LocalCluster cluster = LocalCluster.start(ClusterOptions.defaults(RepoLayout.detect())
                .withShards(3).withRouters(1).withPortOffset(offset).withHome(Files.createTempDirectory("shardstore-balancer-bench-"))
                .withServiceJvmOptions(withFastRounds()), line -> System.out.println("[cluster] " + line));
        try {
            RouterClient router = new RouterClient(cluster.routerUrl(1), Duration.ofHours(1));
            ok(router, "config", "{\"update\": \"settings\", \"updates\": [{\"q\": {\"_id\": \"chunksize\"}, \"u\": {\"$set\": {\"value\": " + chunkSizeMegabytes + "}}, \"upsert\": true}]}");
            ok(router, "admin", "{\"balancerStop\": 1}");
            ok(router, "admin", "{\"shardCollection\": \"" + NS + "\", \"key\": {\"date\": 1}}");
            LoadReport load = new BulkLoader(router, 1000, 4).load(data, Namespace.parse(NS), LoadListener.NONE);
            System.out.printf("loaded %,d flights in %.1f s%n", load.inserted(), load.elapsed().toMillis() / 1000.0);

            Instant started = Instant.now();
            ok(router, "admin", "{\"balancerStart\": 1}");
            awaitCompliant(router);
            report("3 shards from one", router, started);

            ok(router, "admin", "{\"balancerStop\": 1}");
            double baseline = writesPerSecond(router, writes -> await().atMost(Duration.ofMinutes(30)).pollInterval(Duration.ofMillis(100))
                    .until(() -> writes.get() >= BASELINE_WRITES));
            System.out.printf("balancer stopped: %,.0f inserts/s from %d clients%n", baseline, WRITERS);

            cluster.addShard();
            Instant added = Instant.now();
            double during = writesPerSecond(router, writes -> {
                ok(router, "admin", "{\"balancerStart\": 1}");
                awaitCompliant(router);
            });
            System.out.printf("while balancing onto shard4: %,.0f inserts/s (%.2f x the baseline)%n", during, during / baseline);
            report("shard4 added", router, added);
            System.out.println(ok(router, "bench", "{\"count\": \"flights\"}").toJson());
        } finally {
            cluster.stopAndDeleteData(); // not to be left in the temp dir
        }
    }

    private static List<String> withFastRounds() {
        List<String> jvm = new ArrayList<>(ClusterOptions.DEFAULT_SERVICE_JVM_OPTIONS);
        jvm.add("-Dshardstore.balancer.round-interval=1s");
        return jvm;
    }

    /** What runs while the clients write; {@code writes} counts their acknowledged inserts so far. */
    private interface Phase {
        void run(AtomicLong writes) throws Exception;
    }

    /** Runs {@code phase} while {@value #WRITERS} clients insert; their inserts per second over it. */
    private static double writesPerSecond(RouterClient router, Phase phase) throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong writes = new AtomicLong();
        List<CompletableFuture<Void>> writers = new ArrayList<>();
        for (int w = 0; w < WRITERS; w++) {
            int seed = (int) System.nanoTime() + w;
            writers.add(CompletableFuture.runAsync(() -> MigrationBenchmark.write(router, seed, stop, writes), Thread.ofVirtual()::start));
        }
        long begin = System.nanoTime();
        try {
            phase.run(writes);
        } finally {
            stop.set(true);
        }
        double seconds = (System.nanoTime() - begin) / 1e9;
        writers.forEach(CompletableFuture::join);
        return writes.get() / seconds;
    }

    private static void awaitCompliant(RouterClient router) {
        await().forever().pollInterval(Duration.ofSeconds(2))
                .until(() -> ok(router, "admin", "{\"balancerCollectionStatus\": \"" + NS + "\"}").getBoolean("balancerCompliant").getValue());
    }

    private static void report(String phase, RouterClient router, Instant since) {
        List<Migration> migrations = MigrationTimeline.read(router).stream().filter(m -> m.start().isAfter(since)).toList();
        long seconds = Duration.between(since, Instant.now()).toSeconds();
        MigrationTimeline.DonorReport donors = MigrationTimeline.donors(router, since);
        double megabytes = donors.bytesCloned() / 1e6;
        System.out.printf("%s: compliant after %d s, %d migrations, at most %d at once, %.1f MB cloned (%.2f MB/s)%n", phase,
                seconds, migrations.size(), MigrationTimeline.maxOverlap(migrations), megabytes, megabytes / Math.max(1, seconds));
        System.out.printf("  per migration, the donor's steps (mean ms): %s; between one migration's end and the next one's start: %.0f ms%n",
                donors.meanStepMillis().entrySet().stream().map(e -> String.format("%s %.0f", e.getKey(), e.getValue())).collect(Collectors.joining(", ")),
                MigrationTimeline.meanGapMillis(migrations));
    }

    private static BsonDocument ok(RouterClient router, String db, String json) {
        return RouterClient.requireOk(json, router.run(db, ExtendedJson.parse(json)));
    }
}
