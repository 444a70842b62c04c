package dev.shardstore.cluster.bench;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.InsertManyOptions;
import dev.shardstore.cluster.load.DocumentReader;
import dev.shardstore.cluster.load.InputFile;
import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.keystring.KeyString;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.bson.BsonBinary;
import org.bson.BsonDocument;
import org.bson.BsonObjectId;
import org.bson.RawBsonDocument;
import tools.jackson.core.JsonGenerator;
import tools.jackson.databind.json.JsonMapper;

/**
 * The routed bulk load against batched JDBC into one shard's PostgreSQL (docs/benchmarks.md, issue 10), in one run on
 * the same documents: a file's documents are parsed, given an ObjectId {@code _id} first and encoded before any clock
 * starts, so each figure is what the path below the client costs. Per round it times
 * <ol>
 *   <li><b>direct, simple oplog</b>: one JDBC connection, one statement per batch inserting {@code (KeyString _id,
 *       BSON)} rows into a collection-shaped table and {@code (ts, op, ns, o2, o)} rows into a small oplog-shaped table
 *       (the baseline of earlier rounds);</li>
 *   <li><b>direct, shard's oplog</b>: the same, but the oplog table is created {@code LIKE} the shard's own
 *       {@code oplog} (every column and index) and written with the columns the shard writes ({@code ts_key, op, ns,
 *       ui, o2, shard_key, pre_shard_key, from_migrate, o}): the storage work a shard does per batch and nothing
 *       else;</li>
 *   <li><b>direct, with session fields</b>: as the shard writes a retryable write (a transaction per batch, the
 *       session's {@code transactions} row read and upserted), over one connection and over {@code threads}
 *       connections, each a session of its own taking the next batch: what PostgreSQL alone pays for concurrent
 *       writers;</li>
 *   <li><b>routed</b>: the official Java driver over the router's wire protocol, ordered {@code insertMany} of the
 *       same batches into an unsharded collection (so all go to the primary shard), with 1 and with {@code threads}
 *       client threads each taking the next batch.</li>
 * </ol>
 * A benchmark, not a test: it prints documents/s and the ratios.
 *
 * <pre>
 * ./cluster up --shards 2
 * ./mvnw -q -o -pl local-cluster -am test-compile
 * java -cp "local-cluster/target/test-classes:local-cluster/target/local-cluster.jar:local-cluster/target/lib/*" \
 *   dev.shardstore.cluster.bench.BulkLoadBenchmark jdbc:postgresql://localhost:25432/shard1 mongodb://localhost:27017 \
 *   data/cities.json.gz 1000 4 3
 * </pre>
 * Arguments: shard1's JDBC URL, the router's MongoDB URI, the file, the batch size, the routed client threads, rounds,
 * and which paths: {@code all} (the default), {@code routed} or {@code direct} (the three direct loads against the shard's
 * oplog table), for profiling.
 */
public final class BulkLoadBenchmark {
    private static final String SIMPLE_INSERT = "WITH src AS (SELECT * FROM unnest(?::bytea[], ?::bytea[], ?::bytea[]) WITH ORDINALITY AS s(id, doc, o2, n)), "
            + "ins AS (INSERT INTO bench_direct_docs (id, doc) SELECT id, doc FROM src ORDER BY n ON CONFLICT (id) DO NOTHING RETURNING id) "
            + "INSERT INTO bench_direct_oplog (ts, op, ns, o2, o) SELECT ?::bigint + src.n, 'i', 'bench.direct', src.o2, src.doc "
            + "FROM src JOIN ins USING (id) ORDER BY src.n";
    /** The shard's insert (DocumentStore.insert inside Oplog.changeStatement), on the benchmark's tables. */
    private static final String SHARD_INSERT = "WITH src AS (SELECT * FROM unnest(?::bytea[], ?::bytea[], ?::bytea[], ?::bytea[], ?::bytea[])"
            + " WITH ORDINALITY AS s(id, doc, o2, skey, pskey, n)), "
            + "changed AS (INSERT INTO bench_direct_docs (id, doc) SELECT id, doc FROM src ORDER BY n ON CONFLICT (id) DO NOTHING RETURNING id) "
            + "INSERT INTO bench_direct_oplog (ts_key, op, ns, ui, o2, shard_key, pre_shard_key, from_migrate, o) "
            + "SELECT ?::bigint + src.n - 1, 'i', ?, ?::uuid, src.o2, src.skey, src.pskey, ?, src.doc"
            + " FROM src JOIN changed USING (id) ORDER BY src.n RETURNING ts_key";
    /**
     * {@link #SHARD_INSERT} with a retryable write's session fields, as {@code Oplog.changeStatement} writes them: the
     * lsid, the txnNumber, each row's stmtId and the chain to the previous row.
     */
    private static final String SESSION_INSERT = replaceOnce(replaceOnce(SHARD_INSERT, "from_migrate, o)",
            "from_migrate, o, lsid, txn_number, stmt_id, prev_op_time)"),
            "src.doc FROM", "src.doc, ?::bytea, ?::bigint, (?::int[])[src.n], CASE WHEN src.n = 1 THEN NULL ELSE ?::bigint + src.n - 2 END FROM");
    /** What the shard reads and writes of the session's {@code transactions} row per batch ({@code SessionHistory}). */
    private static final String SESSION_FIND = "SELECT txn_num, last_write_op_time FROM bench_direct_transactions WHERE lsid = ?";
    private static final String SESSION_UPSERT = "INSERT INTO bench_direct_transactions (lsid, txn_num, last_write_op_time, last_write_date)"
            + " VALUES (?, ?, ?, now()) ON CONFLICT (lsid) DO UPDATE SET txn_num = excluded.txn_num,"
            + " last_write_op_time = excluded.last_write_op_time, last_write_date = excluded.last_write_date, state = NULL";

    /** {@code sql} with its one occurrence of {@code target} replaced: an edit of {@link #SHARD_INSERT} cannot silently leave it out. */
    private static String replaceOnce(String sql, String target, String replacement) {
        int at = sql.indexOf(target);
        if (at < 0 || sql.indexOf(target, at + 1) >= 0) {
            throw new IllegalStateException("expected exactly one \"" + target + "\" in " + sql);
        }
        return sql.substring(0, at) + replacement + sql.substring(at + target.length());
    }

    /** What a direct load writes. */
    private enum Direct {
        /** The collection table and a small oplog-shaped table. */
        SIMPLE,
        /** The collection table and a table shaped like the shard's oplog. */
        SHARD,
        /** As {@link #SHARD}, with a retryable write's session fields and its transactions row, one transaction per batch. */
        SESSION
    }

    private BulkLoadBenchmark() {}

    /**
     * One document ready for either path: its {@code _id} KeyString, its BSON and its documentKey {@code {_id}}; the
     * driver sends {@link #doc()}, a view of the same bytes, so neither path copies inside its timed loop.
     */
    private record Encoded(byte[] id, byte[] bytes, byte[] key) {
        RawBsonDocument doc() {
            return new RawBsonDocument(bytes);
        }
    }

    public static void main(String[] args) throws Exception {
        String jdbcUrl = args.length > 0 ? args[0] : "jdbc:postgresql://localhost:25432/shard1";
        String mongoUri = args.length > 1 ? args[1] : "mongodb://localhost:27017";
        Path file = Path.of(args.length > 2 ? args[2] : "data/cities.json.gz");
        int batchSize = args.length > 3 ? Integer.parseInt(args[3]) : 1000;
        int threads = args.length > 4 ? Integer.parseInt(args[4]) : 4;
        int rounds = args.length > 5 ? Integer.parseInt(args[5]) : 3;
        String paths = args.length > 6 ? args[6] : "all";

        List<Encoded> documents = encode(file);
        List<List<Encoded>> batches = new ArrayList<>();
        for (int from = 0; from < documents.size(); from += batchSize) {
            batches.add(documents.subList(from, Math.min(from + batchSize, documents.size())));
        }
        System.out.printf("%,d documents from %s, batches of %d%n", documents.size(), file, batchSize);
        try (Connection c = DriverManager.getConnection(jdbcUrl, "postgres", "postgres");
                MongoClient client = MongoClients.create(mongoUri)) {
            for (int round = 1; round <= rounds; round++) {
                if (!paths.equals("all")) {
                    if (paths.equals("routed")) {
                        report(round, "routed, wire, 1 thread", documents.size(), () -> routed(c, client, batches, 1));
                        report(round, "routed, wire, " + threads + " threads", documents.size(), () -> routed(c, client, batches, threads));
                    } else {
                        report(round, "direct JDBC, the shard's oplog", documents.size(), () -> direct(jdbcUrl, c, batches, Direct.SHARD, 1));
                        report(round, "direct JDBC, + session fields", documents.size(), () -> direct(jdbcUrl, c, batches, Direct.SESSION, 1));
                        report(round, "direct JDBC, + session, " + threads + " conns", documents.size(),
                                () -> direct(jdbcUrl, c, batches, Direct.SESSION, threads));
                    }
                    continue;
                }
                double one = report(round, "routed, wire, 1 thread", documents.size(), () -> routed(c, client, batches, 1));
                double many = report(round, "routed, wire, " + threads + " threads", documents.size(), () -> routed(c, client, batches, threads));
                double simple = report(round, "direct JDBC, simple oplog", documents.size(), () -> direct(jdbcUrl, c, batches, Direct.SIMPLE, 1));
                double shard = report(round, "direct JDBC, the shard's oplog", documents.size(), () -> direct(jdbcUrl, c, batches, Direct.SHARD, 1));
                double session = report(round, "direct JDBC, + session fields", documents.size(), () -> direct(jdbcUrl, c, batches, Direct.SESSION, 1));
                double sessions = report(round, "direct JDBC, + session, " + threads + " conns", documents.size(),
                        () -> direct(jdbcUrl, c, batches, Direct.SESSION, threads));
                System.out.printf("round %d ratios (routed 1 thread / %d threads): against the simple oplog %.2f / %.2f, "
                        + "against the shard's oplog %.2f / %.2f, against it with session fields %.2f / %.2f; "
                        + "%d threads against %d connections with session fields %.2f%n",
                        round, threads, one / simple, many / simple, one / shard, many / shard, one / session, many / session,
                        threads, threads, many / sessions);
            }
        }
    }

    /**
     * One timed load: its wall time, and the CPU that the cluster's PostgreSQL client backends spent meanwhile (from
     * {@code /proc/<pid>/stat}: the primary shard's pool for a routed load, this benchmark's own connection for a direct
     * one, plus whatever the other services' pools do meanwhile; autovacuum and PostgreSQL's background processes are
     * not counted for either).
     */
    private record Measured(double seconds, double backendCpu) {
        static Measured since(Connection c, long startNanos, double cpuBefore) throws Exception {
            return new Measured((System.nanoTime() - startNanos) / 1e9, backendsCpuSeconds(c) - cpuBefore);
        }
    }

    /** Something timed. */
    private interface Phase {
        Measured run() throws Exception;
    }

    private static double report(int round, String what, int documents, Phase phase) throws Exception {
        Measured m = phase.run();
        double rate = documents / m.seconds();
        System.out.printf("round %d  %-34s %,d documents in %.2f s = %,.0f documents/s; PostgreSQL backends %.2f CPU s%n",
                round, what, documents, m.seconds(), rate, m.backendCpu());
        return rate;
    }

    private static double backendsCpuSeconds(Connection c) throws Exception {
        long ticks = 0;
        try (Statement s = c.createStatement();
                ResultSet pids = s.executeQuery("SELECT pid FROM pg_stat_activity WHERE backend_type = 'client backend'")) {
            while (pids.next()) {
                Path stat = Path.of("/proc", String.valueOf(pids.getInt(1)), "stat");
                if (Files.isReadable(stat)) {
                    String text = Files.readString(stat);
                    String[] fields = text.substring(text.lastIndexOf(')') + 2).split(" ");
                    ticks += Long.parseLong(fields[11]) + Long.parseLong(fields[12]); // utime, stime
                }
            }
        }
        return ticks / 100.0; // USER_HZ
    }

    /**
     * Every batch written over {@code connections} JDBC connections of their own, each taking the next batch, into fresh
     * tables dropped afterwards. Batch {@code i} takes the times from {@code i × (the first batch's size)}, so
     * concurrent batches never share one; each connection is a session of its own for {@link Direct#SESSION}.
     */
    private static Measured direct(String jdbcUrl, Connection c, List<List<Encoded>> batches, Direct what, int connections) throws Exception {
        try (Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS bench_direct_docs, bench_direct_oplog, bench_direct_transactions");
            s.execute("CREATE TABLE bench_direct_docs (id bytea PRIMARY KEY, doc bytea NOT NULL)");
            s.execute(what != Direct.SIMPLE ? "CREATE TABLE bench_direct_oplog (LIKE oplog INCLUDING ALL)"
                    : "CREATE TABLE bench_direct_oplog (seq bigserial PRIMARY KEY, ts bigint NOT NULL UNIQUE, op char(1) NOT NULL,"
                            + " ns text NOT NULL, o2 bytea, o bytea)");
            s.execute("CREATE TABLE bench_direct_transactions (LIKE transactions INCLUDING ALL)");
        }
        UUID ui = UUID.randomUUID();
        List<Connection> writers = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(connections);
        try {
            for (int i = 0; i < connections; i++) {
                writers.add(DriverManager.getConnection(jdbcUrl, "postgres", "postgres"));
            }
            AtomicInteger next = new AtomicInteger();
            // measured while the writers' backends are still open: a closed backend's CPU no longer shows in /proc
            double cpu = backendsCpuSeconds(c);
            long start = System.nanoTime();
            List<Future<?>> running = new ArrayList<>();
            for (Connection writer : writers) {
                running.add(pool.submit(() -> {
                    write(writer, batches, next, what, ui);
                    return null;
                }));
            }
            for (Future<?> f : running) {
                f.get();
            }
            Measured measured = Measured.since(c, start, cpu);
            try (Statement s = c.createStatement()) {
                s.execute("DROP TABLE bench_direct_docs, bench_direct_oplog, bench_direct_transactions");
            }
            return measured;
        } finally {
            pool.shutdown();
            for (Connection writer : writers) {
                writer.close();
            }
        }
    }

    /** One direct writer: the next batch, until none is left. */
    private static void write(Connection c, List<List<Encoded>> batches, AtomicInteger next, Direct what, UUID ui) throws Exception {
        byte[] lsid = BsonBytes.encode(new BsonDocument("id", new BsonBinary(UUID.randomUUID())));
        long stride = batches.get(0).size();
        try (PreparedStatement insert = c.prepareStatement(switch (what) {
                    case SIMPLE -> SIMPLE_INSERT;
                    case SHARD -> SHARD_INSERT;
                    case SESSION -> SESSION_INSERT;
                });
                PreparedStatement find = c.prepareStatement(SESSION_FIND);
                PreparedStatement upsert = c.prepareStatement(SESSION_UPSERT)) {
            long txnNumber = 0;
            c.setAutoCommit(what != Direct.SESSION);
            for (int i = next.getAndIncrement(); i < batches.size(); i = next.getAndIncrement()) {
                List<Encoded> batch = batches.get(i);
                long ts = i * stride;
                insert.setArray(1, c.createArrayOf("bytea", batch.stream().map(Encoded::id).toArray(byte[][]::new)));
                insert.setArray(2, c.createArrayOf("bytea", batch.stream().map(Encoded::bytes).toArray(byte[][]::new)));
                insert.setArray(3, c.createArrayOf("bytea", batch.stream().map(Encoded::key).toArray(byte[][]::new)));
                if (what == Direct.SIMPLE) {
                    insert.setLong(4, ts);
                    insert.executeUpdate();
                    continue;
                }
                long first = ts ^ Long.MIN_VALUE;
                insert.setArray(4, c.createArrayOf("bytea", new byte[batch.size()][]));
                insert.setArray(5, c.createArrayOf("bytea", new byte[batch.size()][]));
                insert.setLong(6, first);
                insert.setString(7, "bench.direct");
                insert.setObject(8, ui);
                insert.setBoolean(9, false);
                if (what == Direct.SESSION) {
                    find.setBytes(1, lsid);
                    find.executeQuery().close();
                    insert.setBytes(10, lsid);
                    insert.setLong(11, ++txnNumber);
                    insert.setArray(12, c.createArrayOf("integer", IntStream.range(0, batch.size()).boxed().toArray()));
                    insert.setLong(13, first);
                }
                insert.executeQuery().close();
                if (what == Direct.SESSION) {
                    upsert.setBytes(1, lsid);
                    upsert.setLong(2, txnNumber);
                    upsert.setLong(3, first + batch.size() - 1);
                    upsert.executeUpdate();
                    c.commit();
                }
            }
        }
    }

    /** Every batch inserted through the router with {@code threads} clients, into a fresh collection. */
    private static Measured routed(Connection c, MongoClient client, List<List<Encoded>> batches, int threads) throws Exception {
        MongoCollection<RawBsonDocument> collection = client.getDatabase("bench").getCollection("bulkload", RawBsonDocument.class);
        collection.drop();
        List<List<RawBsonDocument>> raw = batches.stream().map(b -> b.stream().map(Encoded::doc).toList()).toList();
        AtomicInteger next = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        double cpu = backendsCpuSeconds(c);
        long start = System.nanoTime();
        try {
            List<Future<?>> clients = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                clients.add(pool.submit(() -> {
                    for (int i = next.getAndIncrement(); i < raw.size(); i = next.getAndIncrement()) {
                        collection.insertMany(raw.get(i), new InsertManyOptions().ordered(true));
                    }
                    return null;
                }));
            }
            for (Future<?> f : clients) {
                f.get();
            }
        } finally {
            pool.shutdown();
        }
        Measured measured = Measured.since(c, start, cpu);
        long count = collection.estimatedDocumentCount();
        if (count != batches.stream().mapToLong(List::size).sum()) {
            throw new IllegalStateException("the routed load left " + count + " documents");
        }
        collection.drop();
        return measured;
    }

    private static List<Encoded> encode(Path path) throws Exception {
        List<Encoded> out = new ArrayList<>();
        JsonMapper json = JsonMapper.builder().build();
        try (InputFile file = InputFile.open(path)) {
            DocumentReader reader = DocumentReader.of(file);
            while (true) {
                StringWriter text = new StringWriter();
                boolean more;
                try (JsonGenerator generator = json.createGenerator(text)) {
                    more = reader.writeNext(generator);
                }
                if (!more) {
                    return out;
                }
                BsonDocument doc = ExtendedJson.parse(text.toString());
                BsonDocument withId = new BsonDocument("_id", new BsonObjectId());
                withId.putAll(doc);
                byte[] bytes = BsonBytes.encode(withId);
                out.add(new Encoded(KeyString.encode(withId.get("_id")), bytes, BsonBytes.idDocument(bytes)));
            }
        }
    }
}
