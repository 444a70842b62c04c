package dev.shardstore.cluster.bench;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoCursor;
import com.mongodb.client.model.InsertManyOptions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;

/**
 * Issue 40's spilling-sort goal (docs/benchmarks.md "Round 20"): a blocking {@code $sort} of about 1 GB through the
 * router, with the shard over its {@code internalQueryMaxBlockingSortMemoryUsageBytes} budget and spilling, against
 * PostgreSQL's own {@code ORDER BY} of the same rows in the shard's database with {@code work_mem} at the same budget.
 * Both read every sorted document to the client (the driver over the wire; JDBC with a fetch size) and check the order.
 *
 * <p>The documents are {@code {_id: i, k: <random long>, pad: <string>}}, {@code docBytes} of BSON each, in an
 * unsharded collection, so one shard sorts all of them, as the one PostgreSQL server does. The baseline table holds
 * the very same BSON bytes beside their {@code k}: {@code (k bigint, doc bytea)}.
 *
 * <pre>
 * ./cluster up --shards 1 --jvm-opts "-Xms192m -Xmx256m -Xmn96m -XX:+UseSerialGC"
 * ./mvnw -q -o -pl local-cluster -am test-compile
 * java -cp "local-cluster/target/test-classes:local-cluster/target/local-cluster.jar:local-cluster/target/lib/*" \
 *   dev.shardstore.cluster.bench.SortSpillBenchmark mongodb://localhost:27017 jdbc:postgresql://localhost:25432/shard1 \
 *   1000000 1000 104857600 2
 * </pre>
 * Arguments: the router's URI, the shard's JDBC URL, documents, bytes per document, the budget in bytes (the
 * shard's default is MongoDB's 100 MB; {@code work_mem} is set to it), rounds. A benchmark, not a test.
 */
public final class SortSpillBenchmark {
    private static final String DB = "bench";
    private static final String COLLECTION = "sortspill";

    private SortSpillBenchmark() {}

    public static void main(String[] args) throws Exception {
        String mongoUri = args.length > 0 ? args[0] : "mongodb://localhost:27017";
        String jdbcUrl = args.length > 1 ? args[1] : "jdbc:postgresql://localhost:25432/shard1";
        int documents = args.length > 2 ? Integer.parseInt(args[2]) : 1_000_000;
        int docBytes = args.length > 3 ? Integer.parseInt(args[3]) : 1000;
        long budget = args.length > 4 ? Long.parseLong(args[4]) : 100L * 1024 * 1024;
        int rounds = args.length > 5 ? Integer.parseInt(args[5]) : 2;

        try (MongoClient client = MongoClients.create(mongoUri);
                Connection c = DriverManager.getConnection(jdbcUrl, "postgres", "postgres")) {
            MongoCollection<RawBsonDocument> coll = client.getDatabase(DB).getCollection(COLLECTION, RawBsonDocument.class);
            coll.drop();
            long loadStart = System.nanoTime();
            long totalBytes = load(coll, c, documents, docBytes);
            System.out.printf("loaded %,d documents, %,d bytes of BSON (%.2f GiB), into the collection and the baseline table in %.1f s%n",
                    documents, totalBytes, totalBytes / (1024.0 * 1024 * 1024), (System.nanoTime() - loadStart) / 1e9);
            client.getDatabase("admin").runCommand(new BsonDocument("setParameter", new BsonInt32(1))
                    .append("internalQueryMaxBlockingSortMemoryUsageBytes", new BsonInt64(budget)));
            System.out.printf("budget %,d bytes: the shard's sort parameter and PostgreSQL's work_mem%n", budget);
            for (int round = 1; round <= rounds; round++) {
                double routed = routedSort(coll, documents);
                double postgres = postgresSort(c, documents, budget);
                System.out.printf("round %d: $sort through the router %.1f s (%,.0f documents/s), PostgreSQL ORDER BY %.1f s"
                        + " (%,.0f documents/s): the router takes %.2f× PostgreSQL's time%n",
                        round, routed, documents / routed, postgres, documents / postgres, routed / postgres);
            }
            coll.drop();
            try (Statement s = c.createStatement()) {
                s.execute("DROP TABLE IF EXISTS bench_sortspill");
            }
        }
    }

    /**
     * Inserts the documents through the router (4 client threads, ordered batches of 1,000) and the same bytes into the
     * baseline table; returns their total BSON size.
     */
    private static long load(MongoCollection<RawBsonDocument> coll, Connection c, int documents, int docBytes) throws Exception {
        try (Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS bench_sortspill");
            s.execute("CREATE TABLE bench_sortspill (k bigint NOT NULL, doc bytea NOT NULL)");
        }
        int batch = 1000;
        int batches = (documents + batch - 1) / batch;
        AtomicInteger next = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        List<Future<Long>> loaders = new ArrayList<>();
        String url = c.getMetaData().getURL();
        for (int t = 0; t < 4; t++) {
            loaders.add(pool.submit(() -> {
                long bytes = 0;
                try (Connection own = DriverManager.getConnection(url, "postgres", "postgres");
                        PreparedStatement insert = own.prepareStatement(
                                "INSERT INTO bench_sortspill (k, doc) SELECT * FROM unnest(?::bigint[], ?::bytea[])")) {
                    for (int b = next.getAndIncrement(); b < batches; b = next.getAndIncrement()) {
                        SplittableRandom random = new SplittableRandom(b);
                        List<RawBsonDocument> docs = new ArrayList<>(batch);
                        List<Long> keys = new ArrayList<>(batch);
                        for (int i = b * batch; i < Math.min(documents, (b + 1) * batch); i++) {
                            long k = random.nextLong();
                            BsonDocument doc = new BsonDocument("_id", new BsonInt32(i)).append("k", new BsonInt64(k));
                            int padding = Math.max(0, docBytes - 40);
                            doc.append("pad", new BsonString("x".repeat(padding)));
                            RawBsonDocument raw = new RawBsonDocument(doc, new BsonDocumentCodec());
                            docs.add(raw);
                            keys.add(k);
                            bytes += raw.getByteBuffer().remaining();
                        }
                        coll.insertMany(docs, new InsertManyOptions().ordered(true));
                        insert.setArray(1, own.createArrayOf("bigint", keys.toArray()));
                        byte[][] bsons = new byte[docs.size()][];
                        for (int i = 0; i < bsons.length; i++) {
                            bsons[i] = new byte[docs.get(i).getByteBuffer().remaining()];
                            docs.get(i).getByteBuffer().get(bsons[i]);
                        }
                        insert.setArray(2, own.createArrayOf("bytea", bsons));
                        insert.executeUpdate();
                    }
                }
                return bytes;
            }));
        }
        long total = 0;
        try {
            for (Future<Long> loader : loaders) {
                total += loader.get();
            }
        } finally {
            pool.shutdownNow(); // a failed loader ends the run instead of leaving the others' threads alive
        }
        try (Statement s = c.createStatement()) {
            s.execute("VACUUM ANALYZE bench_sortspill");
        }
        return total;
    }

    /** Seconds for the router's {@code $sort} on {@code k}, read to the end, the order checked. */
    private static double routedSort(MongoCollection<RawBsonDocument> coll, int documents) {
        long start = System.nanoTime();
        long count = 0;
        long previous = Long.MIN_VALUE;
        try (MongoCursor<RawBsonDocument> cursor = coll.aggregate(List.of(new BsonDocument("$sort", new BsonDocument("k", new BsonInt32(1)))))
                .allowDiskUse(true).batchSize(10_000).iterator()) {
            while (cursor.hasNext()) {
                long k = cursor.next().getInt64("k").getValue();
                if (k < previous) {
                    throw new IllegalStateException("out of order at document " + count);
                }
                previous = k;
                count++;
            }
        }
        if (count != documents) {
            throw new IllegalStateException("the router's sort returned " + count + " documents, expected " + documents);
        }
        return (System.nanoTime() - start) / 1e9;
    }

    /** Seconds for PostgreSQL's {@code ORDER BY k} of the same rows with {@code work_mem} at the budget, read through a cursor. */
    private static double postgresSort(Connection c, int documents, long budget) throws Exception {
        long start = System.nanoTime();
        long count = 0;
        long previous = Long.MIN_VALUE;
        c.setAutoCommit(false); // a fetch size streams only inside a transaction
        try (Statement s = c.createStatement()) {
            s.execute("SET LOCAL work_mem = '" + (budget / 1024) + "kB'");
            s.setFetchSize(10_000);
            try (ResultSet rows = s.executeQuery("SELECT k, doc FROM bench_sortspill ORDER BY k")) {
                while (rows.next()) {
                    long k = rows.getLong(1);
                    if (rows.getBytes(2).length == 0 || k < previous) {
                        throw new IllegalStateException("out of order at row " + count);
                    }
                    previous = k;
                    count++;
                }
            }
        } finally {
            c.commit();
            c.setAutoCommit(true);
        }
        if (count != documents) {
            throw new IllegalStateException("ORDER BY returned " + count + " rows, expected " + documents);
        }
        return (System.nanoTime() - start) / 1e9;
    }
}
