package dev.shardstore.cluster.bench;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import dev.shardstore.cluster.router.RouterClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;

/**
 * The same operations through the router's two front ends (docs/benchmarks.md, wire protocol issue): the official
 * Java sync driver over the wire protocol versus {@link RouterClient} over REST, with the same number of client
 * threads, on {@code bench.points} (dropped, then 10,000 documents, sharded on a hashed {@code _id} when the
 * collection is new):
 * <ol>
 *   <li>point reads {@code find {_id: k}} of a random loaded document,</li>
 *   <li>inserts of one new document each.</li>
 * </ol>
 * Each runs for {@code seconds} after a warm-up of the same length; prints operations per second and the 50th and
 * 99th percentile latency. A benchmark, not a test.
 *
 * <pre>
 * ./cluster up --shards 2
 * ./mvnw -q -o -pl local-cluster test-compile
 * java -cp "local-cluster/target/test-classes:local-cluster/target/local-cluster.jar:local-cluster/target/lib/*:$(cat cp.txt)" \
 *   dev.shardstore.cluster.bench.WireVersusRestBenchmark http://localhost:8080 mongodb://localhost:27017 8 10
 * </pre>
 * ({@code cp.txt}: the test classpath, {@code ./mvnw -q -o -pl local-cluster dependency:build-classpath -Dmdep.outputFile=cp.txt}.)
 */
public final class WireVersusRestBenchmark {
    private static final int DOCUMENTS = 10_000;
    private static final AtomicInteger NEXT_ID = new AtomicInteger(1_000_000);

    private WireVersusRestBenchmark() {}

    /** One client operation; {@code i} varies per call. */
    private interface Operation {
        void run(int i);
    }

    public static void main(String[] args) throws Exception {
        RouterClient rest = new RouterClient(args.length > 0 ? args[0] : "http://localhost:8080", Duration.ofMinutes(1));
        String uri = args.length > 1 ? args[1] : "mongodb://localhost:27017";
        int threads = args.length > 2 ? Integer.parseInt(args[2]) : 8;
        int seconds = args.length > 3 ? Integer.parseInt(args[3]) : 10;
        try (MongoClient client = MongoClients.create(uri)) {
            MongoCollection<BsonDocument> points = client.getDatabase("bench").getCollection("points", BsonDocument.class);
            points.drop();
            client.getDatabase("admin").runCommand(new BsonDocument("shardCollection", new BsonString("bench.points"))
                    .append("key", new BsonDocument("_id", new BsonString("hashed"))));
            List<BsonDocument> batch = new ArrayList<>();
            for (int i = 0; i < DOCUMENTS; i++) {
                batch.add(point(i));
                if (batch.size() == 1000) {
                    points.insertMany(batch);
                    batch.clear();
                }
            }

            measure("point read {_id}, driver (wire)", threads, seconds,
                    i -> require(points.find(Filters.eq("_id", Math.floorMod(i * 7919, DOCUMENTS))).first() != null));
            measure("point read {_id}, REST", threads, seconds, i -> require(RouterClient.isOk(rest.run("bench",
                    new BsonDocument("find", new BsonString("points")).append("filter",
                            new BsonDocument("_id", new BsonInt32(Math.floorMod(i * 7919, DOCUMENTS))))))));
            measure("insert one, driver (wire)", threads, seconds, i -> points.insertOne(point(NEXT_ID.incrementAndGet())));
            measure("insert one, REST", threads, seconds, i -> require(RouterClient.isOk(rest.run("bench",
                    new BsonDocument("insert", new BsonString("points")).append("documents",
                            new BsonArray(List.of(point(NEXT_ID.incrementAndGet()))))))));
        }
    }

    private static BsonDocument point(int id) {
        return new BsonDocument("_id", new BsonInt32(id)).append("name", new BsonString("point" + id))
                .append("x", new BsonInt32(id % 977)).append("tags", new BsonArray(List.of(new BsonString("a"), new BsonString("b"))));
    }

    private static void require(boolean ok) {
        if (!ok) {
            throw new IllegalStateException("an operation failed");
        }
    }

    private static void measure(String name, int threads, int seconds, Operation operation) throws Exception {
        for (boolean warmUp : new boolean[] {true, false}) {
            long end = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
            List<Future<long[]>> running = new ArrayList<>();
            try (ExecutorService pool = Executors.newFixedThreadPool(threads)) {
                for (int t = 0; t < threads; t++) {
                    int offset = t * 100_003;
                    running.add(pool.submit(() -> {
                        long[] latencies = new long[1024];
                        int n = 0;
                        for (int i = offset; System.nanoTime() < end; i++) {
                            long start = System.nanoTime();
                            operation.run(i);
                            if (n == latencies.length) {
                                latencies = Arrays.copyOf(latencies, n * 2);
                            }
                            latencies[n++] = System.nanoTime() - start;
                        }
                        return Arrays.copyOf(latencies, n);
                    }));
                }
            }
            if (!warmUp) {
                long[] all = running.stream().map(WireVersusRestBenchmark::result).flatMapToLong(Arrays::stream).sorted().toArray();
                System.out.printf("%-34s %8.0f ops/s  p50 %6.2f ms  p99 %6.2f ms  (%d threads, %d s)%n", name, all.length / (double) seconds,
                        all[all.length / 2] / 1e6, all[(int) (all.length * 0.99)] / 1e6, threads, seconds);
            }
        }
    }

    private static long[] result(Future<long[]> future) {
        try {
            return future.get();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
