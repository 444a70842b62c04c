package dev.shardstore.cluster.bench;

import dev.shardstore.cluster.router.RouterClient;
import dev.shardstore.contracts.bson.ExtendedJson;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;

/**
 * Targeted versus scatter-gather reads through the router on the sharded cities sample (docs/benchmarks.md,
 * issue 4): on {@code geo.cities} as {@code ./cluster demo} leaves it (sharded on a hashed {@code _id}, chunks on
 * every shard), {@code clients} concurrent clients run for {@code seconds} each:
 * <ol>
 *   <li>targeted point reads {@code find {_id: <random city>}} — one shard each,</li>
 *   <li>scatter-gather finds {@code find {country: <random>, admin1: <its admin1>}, limit 20} — every shard
 *       (through the index {@code {country: 1, admin1: 1}}, created first), merged by the router.</li>
 * </ol>
 * A benchmark, not a test: it prints operations per second and mean latency, after a warm-up of the same length.
 *
 * <pre>
 * ./cluster demo
 * ./mvnw -q -o -pl local-cluster test-compile
 * java -cp "local-cluster/target/test-classes:local-cluster/target/local-cluster.jar:local-cluster/target/lib/*" \
 *   dev.shardstore.cluster.bench.ShardedQueryBenchmark http://localhost:8080 8 10
 * </pre>
 */
public final class ShardedQueryBenchmark {
    private ShardedQueryBenchmark() {}

    public static void main(String[] args) throws Exception {
        RouterClient router = new RouterClient(args.length > 0 ? args[0] : "http://localhost:8080", Duration.ofMinutes(1));
        int clients = args.length > 1 ? Integer.parseInt(args[1]) : 8;
        int seconds = args.length > 2 ? Integer.parseInt(args[2]) : 10;
        String index = "{\"createIndexes\": \"cities\", \"indexes\": [{\"key\": {\"country\": 1, \"admin1\": 1}, \"name\": \"country_1_admin1_1\"}]}";
        RouterClient.requireOk(index, router.run("geo", ExtendedJson.parse(index)));
        List<BsonDocument> sample = sample(router, 2000);

        measure("targeted find {_id}", clients, seconds, router, i -> {
            BsonDocument city = sample.get(i % sample.size());
            return new BsonDocument("find", new BsonString("cities")).append("filter", new BsonDocument("_id", city.get("_id")));
        });
        measure("scatter-gather find {country, admin1}", clients, seconds, router, i -> {
            BsonDocument city = sample.get(i % sample.size());
            return new BsonDocument("find", new BsonString("cities"))
                    .append("filter", new BsonDocument("country", city.get("country")).append("admin1", city.get("admin1")))
                    .append("limit", new BsonInt32(20));
        });
    }

    private static void measure(String name, int clients, int seconds, RouterClient router, IntFunction<BsonDocument> command)
            throws Exception {
        for (boolean warmUp : new boolean[] {true, false}) {
            AtomicLong ops = new AtomicLong();
            AtomicLong nanos = new AtomicLong();
            long end = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
            try (ExecutorService pool = Executors.newFixedThreadPool(clients)) {
                List<Future<?>> running = new ArrayList<>();
                for (int c = 0; c < clients; c++) {
                    int offset = c * 7919;
                    running.add(pool.submit(() -> {
                        for (int i = offset; System.nanoTime() < end; i++) {
                            long start = System.nanoTime();
                            RouterClient.requireOk(name, router.run("geo", command.apply(i)));
                            nanos.addAndGet(System.nanoTime() - start);
                            ops.incrementAndGet();
                        }
                        return null;
                    }));
                }
                for (Future<?> f : running) {
                    f.get();
                }
            }
            if (!warmUp) {
                System.out.printf("%-40s %8.0f ops/s  %6.2f ms mean latency  (%d clients, %d s)%n", name, ops.get() / (double) seconds,
                        nanos.get() / 1e6 / ops.get(), clients, seconds);
            }
        }
    }

    /** {_id, country, admin1} of random cities. */
    private static List<BsonDocument> sample(RouterClient router, int n) {
        String json = "{\"aggregate\": \"cities\", \"cursor\": {\"batchSize\": " + n + "}, \"pipeline\": [{\"$sample\": {\"size\": " + n
                + "}}, {\"$project\": {\"_id\": 1, \"country\": 1, \"admin1\": 1}}]}";
        List<BsonDocument> out = new ArrayList<>();
        for (BsonValue v : RouterClient.requireOk(json, router.run("geo", ExtendedJson.parse(json))).getDocument("cursor").getArray("firstBatch")) {
            out.add(v.asDocument());
        }
        return out;
    }
}
