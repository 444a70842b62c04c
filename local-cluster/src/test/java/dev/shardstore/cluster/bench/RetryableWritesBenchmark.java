package dev.shardstore.cluster.bench;

import dev.shardstore.cluster.router.RouterClient;
import dev.shardstore.contracts.session.LogicalSessionId;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;

/**
 * Insert throughput through the router with retryable writes off and on (moved out of {@code RetryableWritesIT}):
 * 10 documents per command over the shards from 4 client threads, in alternating rounds of the same load, into
 * {@code bench.retryable} (dropped first, then sharded on {@code {x: 1}}); prints documents per second of each and
 * the ratio. A benchmark, not a test: it prints figures and fails on nothing but errors.
 *
 * <pre>
 * ./cluster up --shards 2
 * ./mvnw -q -o -pl local-cluster test-compile
 * java -cp "local-cluster/target/test-classes:local-cluster/target/local-cluster.jar:local-cluster/target/lib/*" \
 *   dev.shardstore.cluster.bench.RetryableWritesBenchmark http://localhost:8080
 * </pre>
 */
public final class RetryableWritesBenchmark {
    /** Documents one {@link #insertLoad} inserts: 4 threads × 100 commands × 10 documents. */
    public static final int LOAD_DOCUMENTS = 4_000;
    private static final String DB = "bench";
    private static final String COLLECTION = "retryable";

    private RetryableWritesBenchmark() {}

    public static void main(String[] args) throws Exception {
        RouterClient router = new RouterClient(args.length > 0 ? args[0] : "http://localhost:8080", Duration.ofMinutes(5));
        router.run(DB, new BsonDocument("drop", new BsonString(COLLECTION)));
        RouterClient.requireOk("shardCollection", router.run("admin", new BsonDocument("shardCollection", new BsonString(DB + "." + COLLECTION))
                .append("key", new BsonDocument("x", new BsonInt32(1)))));
        long[] docs = new long[2];
        long[] nanos = new long[2];
        int base = 10_000_000;
        for (int round = 0; round < 4; round++) {
            int mode = round % 2; // 0 off, 1 on
            long start = System.nanoTime();
            docs[mode] += insertLoad(router, DB, COLLECTION, base + round * 1_000_000, mode == 1);
            nanos[mode] += System.nanoTime() - start;
        }
        double off = docs[0] / (nanos[0] / 1e9);
        double on = docs[1] / (nanos[1] / 1e9);
        System.out.printf("insert throughput through the router, 10 docs/command, 4 clients:"
                + " retryable off %.0f docs/s, on %.0f docs/s, ratio %.2f (2 rounds each, alternating)%n", off, on, on / off);
    }

    /**
     * 4 threads × 100 insert commands of 10 documents {@code {_id: n, x: n % 800}}, from {@code _id: firstId} on, into
     * {@code db.collection}; each thread's commands are retryable writes of one session ({@code txnNumber} 1, 2, …) when
     * {@code retryable}.
     *
     * @return the documents the replies say were inserted ({@link #LOAD_DOCUMENTS} when every insert succeeded)
     */
    public static long insertLoad(RouterClient router, String db, String collection, int firstId, boolean retryable) throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(4);
        try {
            List<Future<Long>> done = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int thread = t;
                done.add(threads.submit(() -> {
                    LogicalSessionId lsid = LogicalSessionId.random();
                    long inserted = 0;
                    for (int command = 0; command < 100; command++) {
                        BsonArray documents = new BsonArray();
                        for (int d = 0; d < 10; d++) {
                            int id = firstId + (thread * 100 + command) * 10 + d;
                            documents.add(new BsonDocument("_id", new BsonInt32(id)).append("x", new BsonInt32(id % 800)));
                        }
                        BsonDocument insert = new BsonDocument("insert", new BsonString(collection)).append("documents", documents);
                        if (retryable) {
                            insert.append("lsid", lsid.toBson()).append("txnNumber", new BsonInt64(command + 1));
                        }
                        inserted += router.run(db, insert).getNumber("n").longValue();
                    }
                    return inserted;
                }));
            }
            long total = 0;
            for (Future<Long> f : done) {
                total += f.get(10, TimeUnit.MINUTES);
            }
            return total;
        } finally {
            threads.shutdownNow();
        }
    }
}
