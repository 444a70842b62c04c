package dev.shardstore.cluster.bench;

import dev.shardstore.cluster.ClusterOptions;
import dev.shardstore.cluster.LocalCluster;
import dev.shardstore.cluster.RepoLayout;
import dev.shardstore.cluster.load.BulkLoader;
import dev.shardstore.cluster.load.LoadListener;
import dev.shardstore.cluster.load.LoadReport;
import dev.shardstore.cluster.router.RouterClient;
import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.namespace.Namespace;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.postgresql.PGConnection;

/**
 * Chunk migration throughput and critical section length (docs/benchmarks.md, "Chunk migration"). Starts its own local
 * cluster (2 shards, 1 router, ports offset by {@code args[0]}, default 2500; {@code args[1]}, when given, is the shards'
 * {@code clone-batch-bytes}, such as {@code 4MB}, and {@code args[2]} their {@code clone-writers}); its data is deleted at the end, loads {@code data/flights-300k.csv.gz}
 * through the router into {@code bench.flights} sharded on the ranged key {@code {date: 1}}, splits it at the 100,000th
 * and 200,000th date and then
 * <ol>
 *   <li>copies as many rows of the donor's collection table to a scratch table of the other shard's database with
 *       {@code COPY (SELECT id, doc …) TO STDOUT (FORMAT binary)} piped into {@code COPY … FROM STDIN} over JDBC: the raw
 *       floor of moving those bytes between the two PostgreSQL databases;</li>
 *   <li>moves the middle chunk (about 100,000 flights) with {@code moveChunk} and reads the donor's {@code moveChunk.from}
 *       changelog entry: documents and bytes cloned, step timings, the critical section; then waits for the donor's range
 *       deletion of those orphans and prints its rate ({@code shardstore.shard.range.deletion.rate} on the donor's
 *       {@code /actuator/prometheus});</li>
 *   <li>splits the last chunk into 20 chunks of about 5,000 flights and moves them one by one while 4 clients write
 *       through the router (inserts and updates all over the key range), and reports the critical section's duration
 *       (p50, p99 = max of 20) from the changelog, with the writers' throughput.</li>
 * </ol>
 * A benchmark, not a test: it prints figures and fails on nothing but errors.
 *
 * <pre>
 * ./mvnw -q -o -DskipTests package
 * ./mvnw -q -o -pl local-cluster test-compile
 * java -cp "local-cluster/target/test-classes:local-cluster/target/local-cluster.jar:local-cluster/target/lib/*" \
 *   dev.shardstore.cluster.bench.MigrationBenchmark 2500 [1MB [2]]
 * </pre>
 */
public final class MigrationBenchmark {
    private static final String NS = "bench.flights";
    private static final int SMALL_CHUNKS = 20;
    private static final Path DATA = RepoLayout.detect().root().resolve("data/flights-300k.csv.gz");

    private MigrationBenchmark() {}

    public static void main(String[] args) throws Exception {
        int offset = args.length > 0 ? Integer.parseInt(args[0]) : 2500;
        List<String> jvm = new ArrayList<>(ClusterOptions.DEFAULT_SERVICE_JVM_OPTIONS);
        if (args.length > 1) {
            jvm.add("-Dshardstore.shard.migration.clone-batch-bytes=" + args[1]); // the shards refuse a size they cannot parse
        }
        if (args.length > 2) {
            jvm.add("-Dshardstore.shard.migration.clone-writers=" + args[2]);
        }
        LocalCluster cluster = LocalCluster.start(ClusterOptions.defaults(RepoLayout.detect()).withShards(2).withRouters(1)
                .withPortOffset(offset).withServiceJvmOptions(jvm).withHome(Files.createTempDirectory("shardstore-migration-bench-")), line -> System.out.println("[cluster] " + line));
        try {
            RouterClient router = new RouterClient(cluster.routerUrl(1), Duration.ofHours(1));
            ok(router, "admin", "{\"shardCollection\": \"" + NS + "\", \"key\": {\"date\": 1}}");
            LoadReport load = new BulkLoader(router, 1000, 4).load(DATA, Namespace.parse(NS), LoadListener.NONE);
            System.out.printf("loaded %,d flights through the router in %.1f s (%,.0f documents/s)%n", load.inserted(),
                    load.elapsed().toMillis() / 1000.0, load.documentsPerSecond());
            List<BsonValue> dates = datesAt(DATA, List.of(100_000, 200_000));
            for (BsonValue date : dates) {
                ok(router, "admin", new BsonDocument("split", new BsonString(NS)).append("middle", new BsonDocument("date", date)));
            }
            String donor = ownerOf(router, dates.get(0));
            String recipient = donor.equals("shard1") ? "shard2" : "shard1";

            long rows = 100_000;
            copyBaseline(cluster, donor, recipient, rows);

            long start = System.nanoTime();
            ok(router, "admin", new BsonDocument("moveChunk", new BsonString(NS)).append("find", new BsonDocument("date", dates.get(0)))
                    .append("to", new BsonString(recipient)));
            double seconds = (System.nanoTime() - start) / 1e9;
            BsonDocument from = lastFrom(router, 1).getFirst();
            long documents = from.getNumber("documentsCloned").longValue();
            double megabytes = from.getNumber("bytesCloned").longValue() / 1e6;
            System.out.printf("moveChunk: %,d documents, %.1f MB in %.1f s: %,.0f documents/s, %.1f MB/s (steps ms: %s, critical section %d ms)%n",
                    documents, megabytes, seconds, documents / seconds, megabytes / seconds, from.getDocument("steps").toJson(),
                    from.getNumber("criticalSectionMillis").longValue());
            ok(router, "admin", new BsonDocument("cleanupOrphaned", new BsonString(NS))); // returns once the range deleter is done
            System.out.printf("range deletion of the donor's %,d orphans: %,.0f documents/s%n", documents,
                    firstRangeDeletionRate(cluster.url(donor)));

            criticalSectionsUnderLoad(router, donor, recipient);
        } finally {
            cluster.stopAndDeleteData(); // about 1.3 GB, not to be left in the temp dir
        }
    }

    /**
     * The documents/s of the first range deletion task the shard at {@code shardUrl} finished, from its Prometheus summary
     * {@code shardstore_shard_range_deletion_rate…} ({@code _sum / _count}); call once {@code cleanupOrphaned} returned.
     */
    static double firstRangeDeletionRate(String shardUrl) throws Exception {
        java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
        java.net.http.HttpRequest scrape = java.net.http.HttpRequest.newBuilder(java.net.URI.create(shardUrl + "/actuator/prometheus")).build();
        double count = 0;
        double sum = 0;
        for (String line : http.send(scrape, java.net.http.HttpResponse.BodyHandlers.ofString()).body().split("\n")) {
            if (line.startsWith("shardstore_shard_range_deletion_rate")) {
                String name = line.substring(0, line.indexOf(line.contains("{") ? '{' : ' '));
                double value = Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
                count = name.endsWith("_count") ? value : count;
                sum = name.endsWith("_sum") ? value : sum;
            }
        }
        if (count < 1) {
            throw new IllegalStateException("the donor at " + shardUrl + " reports no finished range deletion after cleanupOrphaned");
        }
        return sum / count;
    }

    /** COPY of {@code rows} rows of the donor's collection table into a scratch table of the recipient's database. */
    private static void copyBaseline(LocalCluster cluster, String donor, String recipient, long rows) {
        Copy copy = copyRows(cluster, NS, donor, recipient, rows, "bench_copy");
        System.out.printf("COPY baseline: %,d rows, %.1f MB of documents in %.1f s: %,.0f rows/s, %.1f MB/s%n", copy.rows(), copy.bytes() / 1e6,
                copy.seconds(), copy.rows() / copy.seconds(), copy.bytes() / 1e6 / copy.seconds());
    }

    /** What {@link #copyRows} copied: rows, bytes of documents, seconds. */
    record Copy(long rows, long bytes, double seconds) {}

    /**
     * The raw copy a migration is measured against: {@code COPY (SELECT id, doc … ORDER BY id LIMIT rows) TO STDOUT (FORMAT
     * binary)} of {@code ns}'s table on {@code donor} piped into {@code COPY scratch FROM STDIN} on {@code recipient}; the
     * scratch table is dropped after.
     */
    static Copy copyRows(LocalCluster cluster, String ns, String donor, String recipient, long rows, String scratch) {
        try (Connection from = DriverManager.getConnection(cluster.jdbcUrl(donor), "postgres", "postgres");
                Connection to = DriverManager.getConnection(cluster.jdbcUrl(recipient), "postgres", "postgres")) {
            String table;
            try (ResultSet rs = from.createStatement().executeQuery("SELECT table_name FROM collections WHERE namespace = '" + ns + "'")) {
                rs.next();
                table = rs.getString(1);
            }
            to.createStatement().execute("DROP TABLE IF EXISTS " + scratch);
            to.createStatement().execute("CREATE TABLE " + scratch + " (id bytea PRIMARY KEY, doc bytea NOT NULL)");
            PipedInputStream in = new PipedInputStream(1 << 20);
            PipedOutputStream out = new PipedOutputStream(in);
            long start = System.nanoTime();
            // a thread of its own, not the common pool: copies run side by side, each blocked on its pipe
            CompletableFuture<Long> copiedOut = CompletableFuture.supplyAsync(() -> {
                try (out) {
                    return from.unwrap(PGConnection.class).getCopyAPI().copyOut("COPY (SELECT id, doc FROM " + table + " ORDER BY id LIMIT "
                            + rows + ") TO STDOUT (FORMAT binary)", out);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }, Thread.ofVirtual()::start);
            long copiedIn = to.unwrap(PGConnection.class).getCopyAPI().copyIn("COPY " + scratch + " FROM STDIN (FORMAT binary)", in);
            copiedOut.join();
            double seconds = (System.nanoTime() - start) / 1e9;
            long bytes;
            try (ResultSet rs = to.createStatement().executeQuery("SELECT coalesce(sum(octet_length(doc)), 0) FROM " + scratch)) {
                rs.next();
                bytes = rs.getLong(1);
            }
            to.createStatement().execute("DROP TABLE " + scratch);
            return new Copy(copiedIn, bytes, seconds);
        } catch (java.sql.SQLException | java.io.IOException e) {
            throw new IllegalStateException("the COPY baseline from " + donor + " to " + recipient + " failed", e);
        }
    }

    /** 20 moves of ~5,000-flight chunks while 4 clients write; the critical section's p50 and p99 from the changelog. */
    private static void criticalSectionsUnderLoad(RouterClient router, String donor, String recipient) throws Exception {
        List<Integer> ranks = new ArrayList<>();
        for (int i = 1; i < SMALL_CHUNKS; i++) {
            ranks.add(200_000 + i * 5_000);
        }
        List<BsonValue> splits = datesAt(DATA, ranks);
        for (BsonValue date : splits) {
            ok(router, "admin", new BsonDocument("split", new BsonString(NS)).append("middle", new BsonDocument("date", date)));
        }
        List<BsonValue> starts = new ArrayList<>(datesAt(DATA, List.of(200_000)));
        starts.addAll(splits);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong writes = new AtomicLong();
        List<CompletableFuture<Void>> writers = new ArrayList<>();
        for (int w = 0; w < 4; w++) {
            int seed = w;
            writers.add(CompletableFuture.runAsync(() -> write(router, seed, stop, writes), Thread.ofVirtual()::start));
        }
        long begin = System.nanoTime();
        long writesBefore = writes.get();
        for (BsonValue start : starts) {
            ok(router, "admin", new BsonDocument("moveChunk", new BsonString(NS)).append("find", new BsonDocument("date", start))
                    .append("to", new BsonString(recipient)));
        }
        double seconds = (System.nanoTime() - begin) / 1e9;
        long written = writes.get() - writesBefore;
        stop.set(true);
        writers.forEach(CompletableFuture::join);
        List<Long> sections = lastFrom(router, starts.size()).stream().map(d -> d.getNumber("criticalSectionMillis").longValue()).sorted().toList();
        System.out.printf("critical section over %d moves of ~5,000 flights under 4 writing clients (%,.0f writes/s): p50 %d ms, p99 %d ms,"
                + " min %d ms (all: %s)%n", sections.size(), written / seconds, sections.get(sections.size() / 2),
                sections.get(sections.size() - 1), sections.getFirst(), sections);
    }

    /** Inserts one flight at a time at random dates of the sample's range until {@code stop}, counting {@code writes}. */
    static void write(RouterClient router, int seed, AtomicBoolean stop, AtomicLong writes) {
        write(router, seed, stop, writes, (end, nanos) -> {});
    }

    /** Told of each acknowledged write: when it ended ({@link System#nanoTime}) and how long it took, in nanoseconds. */
    interface Latencies {
        void record(long endNanos, long latencyNanos);
    }

    /** {@link #write(RouterClient, int, AtomicBoolean, AtomicLong)}, telling {@code latencies} of each write. */
    static void write(RouterClient router, int seed, AtomicBoolean stop, AtomicLong writes, Latencies latencies) {
        Random random = new Random(seed);
        int n = 0;
        while (!stop.get()) {
            String date = "2001-0" + (1 + random.nextInt(6)) + "-1" + random.nextInt(10) + "T12:00:00Z";
            BsonDocument doc = new BsonDocument("_id", new BsonString("w" + seed + "-" + n++)).append("date", new BsonString(date))
                    .append("delay", new BsonInt32(random.nextInt(60))).append("distance", new BsonInt32(100 + random.nextInt(2000)))
                    .append("origin", new BsonString("BEN")).append("destination", new BsonString("CH"));
            long start = System.nanoTime();
            ok(router, "bench", new BsonDocument("insert", new BsonString("flights")).append("documents", new BsonArray(List.of(doc))));
            long end = System.nanoTime();
            writes.incrementAndGet();
            latencies.record(end, end - start);
        }
    }

    /**
     * The {@code date} of the rows of {@code data} at {@code ranks} (ascending, 0-based, after the header): the shard key
     * values at these ranks, read from the file, which is sorted by date and loaded whole (a sorted, skipped find through
     * the router would sort hundreds of thousands of documents per bound).
     */
    static List<BsonValue> datesAt(Path data, List<Integer> ranks) throws java.io.IOException {
        List<BsonValue> out = new ArrayList<>();
        try (var lines = new java.io.BufferedReader(new java.io.InputStreamReader(new java.util.zip.GZIPInputStream(
                Files.newInputStream(data)), java.nio.charset.StandardCharsets.UTF_8))) {
            lines.readLine(); // header
            int rank = 0;
            for (String line = lines.readLine(); line != null && out.size() < ranks.size(); line = lines.readLine(), rank++) {
                if (rank == ranks.get(out.size())) {
                    out.add(new BsonString(line.substring(0, line.indexOf(','))));
                }
            }
        }
        return out;
    }

    /** The shard owning the chunk of {@code bench.flights} that starts at {@code date}. */
    static String ownerOf(RouterClient router, BsonValue date) {
        return chunks(router).stream().filter(chunk -> chunk.getDocument("min").get("date").equals(date)).findFirst()
                .orElseThrow(() -> new IllegalStateException("no chunk starts at " + date)).getString("shard").getValue();
    }

    /** Every {@code config.chunks} document of {@code bench.flights}, in one batch. */
    static List<BsonDocument> chunks(RouterClient router) {
        BsonDocument collection = ok(router, "config", "{\"find\": \"collections\", \"filter\": {\"_id\": \"" + NS + "\"}}")
                .getDocument("cursor").getArray("firstBatch").get(0).asDocument();
        return ok(router, "config", new BsonDocument("find", new BsonString("chunks")).append("filter", new BsonDocument("uuid", collection.get("uuid")))
                        .append("batchSize", new BsonInt32(100_000)))
                .getDocument("cursor").getArray("firstBatch").stream().map(BsonValue::asDocument).toList();
    }

    /** The details of the last {@code n} {@code moveChunk.from} entries of the namespace. */
    private static List<BsonDocument> lastFrom(RouterClient router, int n) {
        List<BsonDocument> all = ok(router, "config", "{\"find\": \"changelog\", \"filter\": {\"ns\": \"" + NS + "\", \"what\": \"moveChunk.from\"}}")
                .getDocument("cursor").getArray("firstBatch").stream().map(v -> v.asDocument().getDocument("details")).toList();
        return all.subList(all.size() - n, all.size());
    }

    static BsonDocument ok(RouterClient router, String db, String json) {
        return RouterClient.requireOk(json, router.run(db, ExtendedJson.parse(json)));
    }

    static BsonDocument ok(RouterClient router, String db, BsonDocument command) {
        return RouterClient.requireOk(command.toJson(), router.run(db, command));
    }
}
