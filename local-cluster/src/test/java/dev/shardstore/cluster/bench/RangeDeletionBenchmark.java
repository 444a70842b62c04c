package dev.shardstore.cluster.bench;

import static dev.shardstore.cluster.bench.MigrationBenchmark.ok;
import static org.awaitility.Awaitility.await;

import dev.shardstore.cluster.ClusterOptions;
import dev.shardstore.cluster.LocalCluster;
import dev.shardstore.cluster.RepoLayout;
import dev.shardstore.cluster.load.BulkLoader;
import dev.shardstore.cluster.load.LoadListener;
import dev.shardstore.cluster.load.LoadReport;
import dev.shardstore.cluster.router.RouterClient;
import dev.shardstore.contracts.namespace.Namespace;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;

/**
 * Range deletion of a million documents while the same shard serves point reads (issue 37, docs/benchmarks.md "Chunk
 * migration"). Starts its own local cluster (2 shards, 1 router, ports offset by {@code args[0]}, default 3650),
 * loads {@code args[1]} (the shared datasets' {@code flights-3m.csv.gz}) into {@code bench.flights} sharded on
 * {@code {date: 1}}, splits it at its 1,000,000th and 2,000,000th dates, and then
 * <ol>
 *   <li>runs 4 clients reading one flight at a time by a {@code date} of the donor's first third (a point read
 *       targeted to the donor) until they have made 25,000 reads: the baseline rate and p50/p99;</li>
 *   <li>moves the middle third (about 1,000,000 flights, in the chunks the auto-splitter cut during the load) to the
 *       other shard, and reads as before from the end of the
 *       move until {@code cleanupOrphaned} returns (the donor's range deletion of the moved documents is done, after
 *       the local cluster's 5 s {@code orphanCleanupDelaySecs}): the rate and p50/p99 meanwhile, the deletion's
 *       documents/s ({@code shardstore.shard.range.deletion.rate}) and its wall time.</li>
 * </ol>
 * Its data is deleted at the end. A benchmark, not a test: it prints figures and fails on nothing but errors.
 *
 * <pre>
 * ./mvnw -q -o -DskipTests install &amp;&amp; ./mvnw -q -o -pl local-cluster test-compile
 * AW=~/.m2/repository/org/awaitility/awaitility/4.3.0/awaitility-4.3.0.jar:~/.m2/repository/org/hamcrest/hamcrest/3.0/hamcrest-3.0.jar
 * java -cp "local-cluster/target/test-classes:local-cluster/target/local-cluster.jar:local-cluster/target/lib/*:$AW" \
 *   dev.shardstore.cluster.bench.RangeDeletionBenchmark 3650 ../shared/datasets/flights-3m.csv.gz
 * </pre>
 */
public final class RangeDeletionBenchmark {
    private static final String NS = "bench.flights";
    private static final int READERS = 4;
    private static final int THIRD = 1_000_000;
    /** Reads of the baseline phase: about 20 s of the 4 readers on 2 cores. */
    private static final int BASELINE_READS = 25_000;

    private RangeDeletionBenchmark() {}

    public static void main(String[] args) throws Exception {
        int offset = args.length > 0 ? Integer.parseInt(args[0]) : 3650;
        Path data = Path.of(args.length > 1 ? args[1] : "../shared/datasets/flights-3m.csv.gz");
        LocalCluster cluster = LocalCluster.start(ClusterOptions.defaults(RepoLayout.detect()).withShards(2).withRouters(1)
                .withPortOffset(offset).withHome(Files.createTempDirectory("shardstore-range-deletion-bench-")),
                line -> System.out.println("[cluster] " + line));
        try {
            RouterClient router = new RouterClient(cluster.routerUrl(1), Duration.ofHours(1));
            ok(router, "admin", "{\"balancerStop\": 1}");
            ok(router, "admin", "{\"shardCollection\": \"" + NS + "\", \"key\": {\"date\": 1}}");
            LoadReport load = new BulkLoader(router, 1000, 4).load(data, Namespace.parse(NS), LoadListener.NONE);
            System.out.printf("loaded %,d flights in %.1f s%n", load.inserted(), load.elapsed().toMillis() / 1000.0);
            List<BsonValue> bounds = MigrationBenchmark.datesAt(data, List.of(THIRD, 2 * THIRD));
            for (BsonValue date : bounds) {
                ok(router, "admin", new BsonDocument("split", new BsonString(NS)).append("middle", new BsonDocument("date", date)));
            }
            String donor = MigrationBenchmark.ownerOf(router, bounds.get(0));
            String recipient = donor.equals("shard1") ? "shard2" : "shard1";
            List<Integer> ranks = new ArrayList<>();
            Random random = new Random(37);
            for (int i = 0; i < 2_000; i++) {
                ranks.add(random.nextInt(THIRD));
            }
            List<BsonValue> readDates = MigrationBenchmark.datesAt(data, ranks.stream().sorted().distinct().toList());

            Phase baseline = reads(router, readDates, done -> await().atMost(Duration.ofMinutes(5)).pollInterval(Duration.ofMillis(100))
                    .until(() -> done.getAsInt() >= BASELINE_READS));
            System.out.println("point reads on " + donor + ", no deletion: " + baseline);

            List<BsonDocument> middle = chunksBetween(router, bounds.get(0).asString().getValue(), bounds.get(1).asString().getValue());
            long moved = ok(router, "bench", new BsonDocument("count", new BsonString("flights")).append("query", new BsonDocument("date",
                    new BsonDocument("$gte", bounds.get(0)).append("$lt", bounds.get(1))))).getNumber("n").longValue();
            long moveStart = System.nanoTime();
            for (BsonDocument chunk : middle) { // the auto-splitter cut the load into chunks of at most the chunk size
                ok(router, "admin", new BsonDocument("moveChunk", new BsonString(NS))
                        .append("bounds", new BsonArray(List.of(chunk.getDocument("min"), chunk.getDocument("max"))))
                        .append("to", new BsonString(recipient)));
            }
            System.out.printf("moveChunk of the middle third (%d chunks, %,d documents) to %s: %.1f s%n", middle.size(), moved, recipient,
                    (System.nanoTime() - moveStart) / 1e9);
            long[] deletion = new long[1];
            Phase during = reads(router, readDates, done -> {
                long begin = System.nanoTime();
                ok(router, "admin", new BsonDocument("cleanupOrphaned", new BsonString(NS))); // returns once the deleter is done
                deletion[0] = System.nanoTime() - begin;
            });
            System.out.println("point reads on " + donor + " while it deletes the moved range: " + during);
            System.out.printf("range deletion on %s: %,.0f documents/s (its task's rate); cleanupOrphaned returned after %.1f s"
                    + " (including the %s orphanCleanupDelaySecs)%n", donor, MigrationBenchmark.firstRangeDeletionRate(cluster.url(donor)),
                    deletion[0] / 1e9, "5 s");
        } finally {
            cluster.stopAndDeleteData();
        }
    }

    /** The chunks of {@code bench.flights} from the one starting at {@code min} up to {@code max}, by {@code date}. */
    private static List<BsonDocument> chunksBetween(RouterClient router, String min, String max) {
        return MigrationBenchmark.chunks(router).stream()
                .filter(c -> c.getDocument("min").isString("date") && c.getDocument("min").getString("date").getValue().compareTo(min) >= 0
                        && c.getDocument("min").getString("date").getValue().compareTo(max) < 0)
                .toList();
    }

    /** What the readers saw over one phase. */
    private record Phase(long reads, double seconds, double p50Millis, double p99Millis) {
        @Override
        public String toString() {
            return String.format("%,d reads in %.1f s (%,.0f/s), p50 %.2f ms, p99 %.2f ms", reads, seconds, reads / seconds, p50Millis, p99Millis);
        }
    }

    /** What runs while the readers read; {@code done} counts their finished reads so far. */
    private interface Action {
        void run(IntSupplier done) throws Exception;
    }

    /** Runs {@link #READERS} point readers while {@code action} runs, and their latencies' percentiles. */
    private static Phase reads(RouterClient router, List<BsonValue> dates, Action action) throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        ConcurrentLinkedQueue<Long> nanos = new ConcurrentLinkedQueue<>();
        AtomicInteger done = new AtomicInteger(); // the queue's size() walks it
        List<CompletableFuture<Void>> readers = new ArrayList<>();
        for (int r = 0; r < READERS; r++) {
            Random random = new Random(r);
            readers.add(CompletableFuture.runAsync(() -> {
                while (!stop.get()) {
                    BsonDocument find = new BsonDocument("find", new BsonString("flights"))
                            .append("filter", new BsonDocument("date", dates.get(random.nextInt(dates.size()))))
                            .append("limit", new BsonInt32(1));
                    long begin = System.nanoTime();
                    ok(router, "bench", find);
                    nanos.add(System.nanoTime() - begin);
                    done.incrementAndGet();
                }
            }, Thread.ofVirtual()::start)); // the common pool runs one task at a time on 2 cores
        }
        long begin = System.nanoTime();
        try {
            action.run(done::get);
        } finally {
            stop.set(true);
        }
        double seconds = (System.nanoTime() - begin) / 1e9;
        readers.forEach(CompletableFuture::join);
        long[] sorted = nanos.stream().mapToLong(Long::longValue).sorted().toArray();
        return new Phase(sorted.length, seconds, percentile(sorted, 0.50), percentile(sorted, 0.99));
    }

    private static double percentile(long[] sorted, double q) {
        return sorted.length == 0 ? 0 : sorted[Math.min(sorted.length - 1, (int) Math.ceil(q * sorted.length) - 1)] / 1e6;
    }
}
