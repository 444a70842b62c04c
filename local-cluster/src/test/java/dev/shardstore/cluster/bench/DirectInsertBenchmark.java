package dev.shardstore.cluster.bench;

import dev.shardstore.cluster.load.DocumentReader;
import dev.shardstore.cluster.load.InputFile;
import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.keystring.KeyString;
import java.io.StringWriter;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonObjectId;
import tools.jackson.core.JsonGenerator;
import tools.jackson.databind.json.JsonMapper;

/**
 * The baseline of the routed-load benchmark (README "Performance"): inserts a file's documents with
 * batched JDBC straight into PostgreSQL, doing the storage work a shard does per batch and nothing
 * else — one statement that inserts {@code (KeyString _id, BSON document)} rows into a collection-shaped
 * table and the matching rows into an oplog-shaped table. Documents are parsed and encoded before the
 * clock starts, so the figure is the database's insert rate. A benchmark, not a test: it prints figures.
 *
 * <pre>
 * ./cluster up
 * ./mvnw -q -o -pl local-cluster test-compile
 * java -cp "local-cluster/target/test-classes:local-cluster/target/local-cluster.jar:local-cluster/target/lib/*" \
 *   dev.shardstore.cluster.bench.DirectInsertBenchmark jdbc:postgresql://localhost:25432/shard1 data/cities.json.gz 1000
 * </pre>
 */
public final class DirectInsertBenchmark {
    private static final String INSERT = "WITH src AS (SELECT * FROM unnest(?::bytea[], ?::bytea[], ?::bytea[]) WITH ORDINALITY AS s(id, doc, o2, n)), "
            + "ins AS (INSERT INTO bench_direct_docs (id, doc) SELECT id, doc FROM src ORDER BY n ON CONFLICT (id) DO NOTHING RETURNING id) "
            + "INSERT INTO bench_direct_oplog (ts, op, ns, o2, o) SELECT ?::bigint + src.n, 'i', 'bench.direct', src.o2, src.doc "
            + "FROM src JOIN ins USING (id) ORDER BY src.n";

    private DirectInsertBenchmark() {}

    private record Encoded(byte[] id, byte[] doc, byte[] key) {}

    public static void main(String[] args) throws Exception {
        String jdbcUrl = args.length > 0 ? args[0] : "jdbc:postgresql://localhost:25432/shard1";
        Path file = Path.of(args.length > 1 ? args[1] : "data/cities.json.gz");
        int batchSize = args.length > 2 ? Integer.parseInt(args[2]) : 1000;

        List<Encoded> documents = encode(file);
        try (Connection c = DriverManager.getConnection(jdbcUrl, "postgres", "postgres")) {
            try (Statement s = c.createStatement()) {
                s.execute("DROP TABLE IF EXISTS bench_direct_docs, bench_direct_oplog");
                s.execute("CREATE TABLE bench_direct_docs (id bytea PRIMARY KEY, doc bytea NOT NULL)");
                s.execute("CREATE TABLE bench_direct_oplog (seq bigserial PRIMARY KEY, ts bigint NOT NULL UNIQUE, op char(1) NOT NULL,"
                        + " ns text NOT NULL, o2 bytea, o bytea)");
            }
            long start = System.nanoTime();
            try (PreparedStatement insert = c.prepareStatement(INSERT)) {
                for (int from = 0; from < documents.size(); from += batchSize) {
                    List<Encoded> batch = documents.subList(from, Math.min(from + batchSize, documents.size()));
                    insert.setArray(1, c.createArrayOf("bytea", batch.stream().map(Encoded::id).toArray(byte[][]::new)));
                    insert.setArray(2, c.createArrayOf("bytea", batch.stream().map(Encoded::doc).toArray(byte[][]::new)));
                    insert.setArray(3, c.createArrayOf("bytea", batch.stream().map(Encoded::key).toArray(byte[][]::new)));
                    insert.setLong(4, from);
                    insert.executeUpdate();
                }
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            System.out.printf("direct JDBC: %,d documents in %.2f s = %,.0f documents/s (batches of %d, %s)%n",
                    documents.size(), seconds, documents.size() / seconds, batchSize, jdbcUrl);
            try (Statement s = c.createStatement()) {
                s.execute("DROP TABLE bench_direct_docs, bench_direct_oplog");
            }
        }
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
                out.add(new Encoded(KeyString.encode(withId.get("_id")), BsonBytes.encode(withId),
                        BsonBytes.encode(new BsonDocument("_id", withId.get("_id")))));
            }
        }
    }
}
