package dev.shardstore.cluster.bench;

import static org.awaitility.Awaitility.await;

import dev.shardstore.cluster.ClusterOptions;
import dev.shardstore.cluster.LocalCluster;
import dev.shardstore.cluster.RepoLayout;
import dev.shardstore.cluster.load.BulkLoader;
import dev.shardstore.cluster.load.LoadListener;
import dev.shardstore.cluster.load.LoadReport;
import dev.shardstore.cluster.router.RouterClient;
import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.namespace.Namespace;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.bson.BsonDocument;
import org.bson.BsonString;

/**
 * Issue 38's goal: {@code reshardCollection} of the flights on 3 shards from a hashed {@code _id} to
 * {@code {origin: 1, date: 1}} while clients write, against a raw binary {@code COPY} of every donor's rows into another
 * shard's database (the three copies at once, as the three recipients clone at once). It
 * <ol>
 *   <li>starts its own cluster (3 shards, 1 router, balancer stopped), shards {@code bench.flights} on {@code {_id:
 *       "hashed"}} (chunks on every shard from the start) and loads the data file through the router;</li>
 *   <li>times the three {@code COPY}s (each shard's collection table into a scratch table of the next shard);</li>
 *   <li>runs {@code writers} clients inserting one flight at a time (origin BEN, a random date; a failed write stops
 *       the run), each write's latency recorded, until 10,000 are acknowledged, then reshards while they go on, and
 *       after the command returns lets them write 5,000 more;</li>
 *   <li>prints the resharding's wall time against the copy's, the write latencies before and during (the write block
 *       is the longest wait of a write that arrived in it), and checks the count: every loaded and acknowledged
 *       document exactly once.</li>
 * </ol>
 * Arguments: {@code [port offset, default 3400] [data file, default data/flights-300k.csv.gz] [writers, default 4]}.
 * Needs nothing else running on the machine for a figure (docs/benchmarks.md); Awaitility and Hamcrest are test
 * dependencies, not in {@code target/lib}, so their jars come from the local Maven repository:
 * <pre>
 * ./mvnw -q -o install -DskipTests &amp;&amp; ./mvnw -q -o -pl local-cluster test-compile
 * AW=~/.m2/repository/org/awaitility/awaitility/4.3.0/awaitility-4.3.0.jar:~/.m2/repository/org/hamcrest/hamcrest/3.0/hamcrest-3.0.jar
 * java -cp "local-cluster/target/test-classes:local-cluster/target/local-cluster.jar:local-cluster/target/lib/*:$AW" \
 *   dev.shardstore.cluster.bench.ReshardingBenchmark 3400 ../shared/datasets/flights-3m.csv.gz
 * </pre>
 */
public final class ReshardingBenchmark {
    private static final String NS = "bench.flights";
    private static final List<String> SHARDS = List.of("shard1", "shard2", "shard3");
    /** Acknowledged writes before the resharding starts (half as many after it ends). */
    private static final long BASELINE_WRITES = 10_000;

    private ReshardingBenchmark() {}

    public static void main(String[] args) throws Exception {
        int offset = args.length > 0 ? Integer.parseInt(args[0]) : 3400;
        Path data = args.length > 1 ? Path.of(args[1]) : RepoLayout.detect().root().resolve("data/flights-300k.csv.gz");
        int writers = args.length > 2 ? Integer.parseInt(args[2]) : 4;
        LocalCluster cluster = LocalCluster.start(ClusterOptions.defaults(RepoLayout.detect()).withShards(SHARDS.size()).withRouters(1)
                .withPortOffset(offset).withHome(Files.createTempDirectory("shardstore-resharding-bench-")), line -> System.out.println("[cluster] " + line));
        try {
            RouterClient router = new RouterClient(cluster.routerUrl(1), Duration.ofHours(2));
            MigrationBenchmark.ok(router, "admin", "{\"balancerStop\": 1}");
            MigrationBenchmark.ok(router, "admin", "{\"shardCollection\": \"" + NS + "\", \"key\": {\"_id\": \"hashed\"}}");
            LoadReport load = new BulkLoader(router, 1000, 4).load(data, Namespace.parse(NS), LoadListener.NONE);
            System.out.printf("loaded %,d flights through the router in %.1f s%n", load.inserted(), load.elapsed().toMillis() / 1000.0);

            long copyStart = System.nanoTime();
            List<CompletableFuture<MigrationBenchmark.Copy>> copies = new ArrayList<>();
            for (int i = 0; i < SHARDS.size(); i++) {
                String from = SHARDS.get(i);
                String to = SHARDS.get((i + 1) % SHARDS.size());
                copies.add(CompletableFuture.supplyAsync(() -> MigrationBenchmark.copyRows(cluster, NS, from, to, Long.MAX_VALUE, "bench_copy_" + from),
                        Thread.ofVirtual()::start));
            }
            long rows = copies.stream().map(CompletableFuture::join).mapToLong(MigrationBenchmark.Copy::rows).sum();
            long bytes = copies.stream().map(CompletableFuture::join).mapToLong(MigrationBenchmark.Copy::bytes).sum();
            double copySeconds = (System.nanoTime() - copyStart) / 1e9;
            System.out.printf("COPY baseline, the 3 donors' rows into the next shard at once: %,d rows, %.1f MB in %.1f s (%.1f MB/s)%n",
                    rows, bytes / 1e6, copySeconds, bytes / 1e6 / copySeconds);

            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong acknowledged = new AtomicLong();
            ConcurrentLinkedQueue<long[]> latencies = new ConcurrentLinkedQueue<>(); // {end nanos, latency nanos}
            List<CompletableFuture<Void>> clients = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                int seed = w;
                clients.add(CompletableFuture.runAsync(() -> MigrationBenchmark.write(router, seed, stop, acknowledged,
                        (end, nanos) -> latencies.add(new long[] {end, nanos})), Thread.ofVirtual()::start));
            }
            long before = System.nanoTime();
            await().atMost(Duration.ofMinutes(10)).pollInterval(Duration.ofMillis(100)).until(() -> acknowledged.get() >= BASELINE_WRITES);
            long reshardStart = System.nanoTime();
            BsonDocument reply = router.run("admin", new BsonDocument("reshardCollection", new BsonString(NS))
                    .append("key", ExtendedJson.parse("{\"origin\": 1, \"date\": 1}")));
            long reshardEnd = System.nanoTime();
            long atEnd = acknowledged.get();
            await().atMost(Duration.ofMinutes(10)).pollInterval(Duration.ofMillis(100)).until(() -> acknowledged.get() >= atEnd + BASELINE_WRITES / 2);
            stop.set(true);
            clients.forEach(CompletableFuture::join);
            RouterClient.requireOk("reshardCollection", reply);

            double reshardSeconds = (reshardEnd - reshardStart) / 1e9;
            System.out.printf("reshardCollection to {origin: 1, date: 1}: %.1f s, %.2f x the COPY baseline%n", reshardSeconds, reshardSeconds / copySeconds);
            report("writes before", latencies, before, reshardStart);
            report("writes while resharding", latencies, reshardStart, reshardEnd);
            report("writes after", latencies, reshardEnd, Long.MAX_VALUE);
            long count = MigrationBenchmark.ok(router, "bench", "{\"count\": \"flights\"}").getNumber("n").longValue();
            System.out.printf("count %,d = %,d loaded + %,d acknowledged writes: %s%n", count, load.inserted(), acknowledged.get(),
                    count == load.inserted() + acknowledged.get() ? "every document exactly once" : "MISMATCH");
            System.out.println(MigrationBenchmark.ok(router, "bench", "{\"explain\": {\"find\": \"flights\", \"filter\": {\"origin\": \"BEN\"}}}")
                    .getDocument("queryPlanner").getDocument("winningPlan").getArray("shards").size() + " shard(s) targeted by {origin: 'BEN'}");
        } finally {
            cluster.stopAndDeleteData(); // the 3M flights are about 3 GB on disk: not to be left in the temp dir
        }
    }

    /** The rate and latency percentiles of the writes that ended in [from, to). */
    private static void report(String phase, ConcurrentLinkedQueue<long[]> latencies, long from, long to) {
        List<Long> millis = latencies.stream().filter(l -> l[0] >= from && l[0] < to).map(l -> l[1] / 1_000_000).sorted().toList();
        if (millis.isEmpty()) {
            System.out.printf("%s: no writes%n", phase);
            return;
        }
        long end = Math.min(to, latencies.stream().mapToLong(l -> l[0]).max().orElse(to));
        System.out.printf("%s: %,d writes, %,.0f/s, p50 %d ms, p99 %d ms, max %d ms%n", phase, millis.size(),
                millis.size() / Math.max(1e-9, (end - from) / 1e9), millis.get(millis.size() / 2),
                millis.get((int) Math.min(millis.size() - 1, Math.round(millis.size() * 0.99))), millis.getLast());
    }
}
