package dev.shardstore.shard.bench;

import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.keystring.KeyString;
import dev.shardstore.infra.EmbeddedInfra;
import dev.shardstore.infra.EmbeddedPostgresServer;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.postgresql.PGConnection;

/**
 * Not part of the suite (runs only with {@code -Dshardstore.bench=true}): how a migration recipient should write a clone
 * page, timed against embedded PostgreSQL (docs/benchmarks.md "Chunk migration", "Recipient writes"). It writes 100,000
 * flight-like documents (about 120 bytes of BSON each) into tables shaped like the shard's: a collection table
 * {@code (id bytea PRIMARY KEY, doc bytea)}, one secondary index table {@code (key bytea, id bytea)} and an oplog-like table
 * (one entry with the document per insert), in pages of several sizes, by
 * <ul>
 *   <li>{@code insert}: per page, one multi-row {@code INSERT … SELECT FROM unnest(…) ON CONFLICT (id) DO NOTHING} whose
 *       CTE also appends the oplog entries (the shape of {@code Oplog.changeStatement}), and one multi-row insert of the
 *       index entries (the shape of {@code IndexEntries});</li>
 *   <li>{@code copy+merge}: per page, a binary {@code COPY} into a temporary staging table, then the same two inserts
 *       reading the staging table instead of the arrays;</li>
 *   <li>{@code raw copy}: the floor, one binary {@code COPY} of every row into the collection table alone;</li>
 *   <li>{@code insert documents only}: the multi-row insert without oplog and index entries (where the time goes).</li>
 * </ul>
 * Each variant runs twice on emptied tables; the faster run is printed. A second test times range deletion of the same
 * documents in batches of several sizes, each batch as the range deleter runs it: the next documents in index order, locked
 * by id, deleted with one oplog entry each in one statement, and their index entries deleted by id, in one transaction.
 *
 * <pre>
 * ./mvnw -B -q -o -pl shard-service -am test -Dtest=MigrationWriteTimingTest -Dsurefire.failIfNoSpecifiedTests=false -Dshardstore.bench=true
 * </pre>
 */
@EnabledIfSystemProperty(named = "shardstore.bench", matches = "true")
class MigrationWriteTimingTest {
    private static final int DOCUMENTS = 100_000;
    private static final byte[] COPY_HEADER = {'P', 'G', 'C', 'O', 'P', 'Y', '\n', (byte) 0xff, '\r', '\n', 0};

    private record Row(byte[] id, byte[] doc, byte[] key) {}

    @Test
    void insertAgainstCopyIntoStaging() throws Exception {
        List<Row> rows = rows();
        long bytes = rows.stream().mapToLong(r -> r.doc().length).sum();
        System.out.printf("%d documents, %.1f MB of BSON%n", rows.size(), bytes / 1e6);
        try (Connection connection = connectToFreshTables()) {
            try (Statement ddl = connection.createStatement()) {
                ddl.execute("CREATE TEMP TABLE staging (id bytea, doc bytea, key bytea, n bigint) ON COMMIT DELETE ROWS");
            }
            connection.commit();
            report("raw copy", bytes, best(connection, () -> rawCopy(connection, rows)));
            report("insert documents only, 10000", bytes, best(connection, () -> insertDocumentsOnly(connection, rows, 10_000)));
            for (int page : new int[] {1_000, 10_000, 35_000}) {
                report("insert, pages of " + page, bytes, best(connection, () -> insertPages(connection, rows, page)));
                report("copy+merge, pages of " + page, bytes, best(connection, () -> copyPages(connection, rows, page)));
            }
        }
    }

    @Test
    void rangeDeletionBatchSizes() throws Exception {
        List<Row> rows = rows();
        try (Connection connection = connectToFreshTables()) {
            for (int batch : new int[] {100, 1_000, 5_000, 20_000}) {
                long best = Long.MAX_VALUE;
                for (int attempt = 0; attempt < 2; attempt++) {
                    try (Statement truncate = connection.createStatement()) {
                        truncate.execute("TRUNCATE t, t_idx, t_oplog");
                    }
                    connection.commit();
                    insertPages(connection, rows, 10_000);
                    try (Statement prepare = connection.createStatement()) {
                        prepare.execute("TRUNCATE t_oplog");
                        prepare.execute("ANALYZE t, t_idx");
                    }
                    connection.commit();
                    long start = System.nanoTime();
                    deleteInBatches(connection, batch);
                    best = Math.min(best, System.nanoTime() - start);
                }
                System.out.printf("range deletion, batches of %-6d %7.2f s  %9.0f documents/s%n", batch, best / 1e9,
                        DOCUMENTS / (best / 1e9));
            }
        }
    }

    /** Deletes every document as the range deleter does, {@code batch} at a time, until none is left. */
    private static void deleteInBatches(Connection connection, int batch) throws SQLException {
        String page = "SELECT d.id FROM t_idx i JOIN t d ON d.id = i.id WHERE (i.key, i.id) > (?, ?) ORDER BY i.key, i.id LIMIT ?";
        String lock = "SELECT id, doc FROM t WHERE id = ANY(?::bytea[]) ORDER BY id FOR UPDATE";
        String delete = "WITH src AS (SELECT * FROM unnest(?::bytea[]) WITH ORDINALITY AS s(id, n)),"
                + " changed AS (DELETE FROM t d USING src WHERE d.id = src.id RETURNING d.id)"
                + " INSERT INTO t_oplog (ts_key, o2) SELECT ?::bigint + src.n, src.id FROM src JOIN changed USING (id)";
        String entries = "DELETE FROM t_idx WHERE id = ANY(?::bytea[])";
        long ts = 0;
        while (true) {
            List<byte[]> ids = new ArrayList<>();
            try (PreparedStatement read = connection.prepareStatement(page)) {
                read.setBytes(1, new byte[0]);
                read.setBytes(2, new byte[0]);
                read.setInt(3, batch);
                try (var rs = read.executeQuery()) {
                    while (rs.next()) {
                        ids.add(rs.getBytes(1));
                    }
                }
            }
            connection.commit();
            if (ids.isEmpty()) {
                return;
            }
            byte[][] array = ids.toArray(byte[][]::new);
            try (PreparedStatement locked = connection.prepareStatement(lock); PreparedStatement gone = connection.prepareStatement(delete);
                    PreparedStatement unindexed = connection.prepareStatement(entries)) {
                locked.setObject(1, array);
                locked.executeQuery().close();
                gone.setObject(1, array);
                gone.setLong(2, ts);
                gone.executeUpdate();
                unindexed.setObject(1, array);
                unindexed.executeUpdate();
            }
            connection.commit();
            ts += ids.size();
        }
    }

    /**
     * A connection (autocommit off) to a database holding new, empty tables of the shard's shapes: the collection table,
     * an index table with its {@code (id)} index as {@code IndexCatalog} creates them, an oplog-like table.
     */
    private static Connection connectToFreshTables() throws SQLException {
        Connection connection = DriverManager.getConnection(EmbeddedInfra.shared().jdbcUrl("clone_timing"),
                EmbeddedPostgresServer.USERNAME, EmbeddedPostgresServer.PASSWORD);
        connection.setAutoCommit(false);
        try (Statement ddl = connection.createStatement()) {
            ddl.execute("DROP TABLE IF EXISTS t, t_idx, t_oplog");
            ddl.execute("CREATE TABLE t (id bytea PRIMARY KEY, doc bytea)");
            ddl.execute("CREATE TABLE t_idx (key bytea NOT NULL, id bytea NOT NULL, PRIMARY KEY (key, id))");
            ddl.execute("CREATE INDEX t_idx_id ON t_idx (id)");
            ddl.execute("CREATE TABLE t_oplog (ts_key bigint PRIMARY KEY, o2 bytea, o bytea)");
        }
        connection.commit();
        return connection;
    }

    private interface Run {
        void run() throws SQLException, IOException;
    }

    /** The faster of two runs on emptied tables, in nanoseconds. */
    private static long best(Connection connection, Run run) throws SQLException, IOException {
        long best = Long.MAX_VALUE;
        for (int attempt = 0; attempt < 2; attempt++) {
            try (Statement truncate = connection.createStatement()) {
                truncate.execute("TRUNCATE t, t_idx, t_oplog");
            }
            connection.commit();
            long start = System.nanoTime();
            run.run();
            best = Math.min(best, System.nanoTime() - start);
        }
        return best;
    }

    private static void report(String variant, long bytes, long nanos) {
        System.out.printf("%-28s %7.2f s  %9.0f documents/s  %6.1f MB/s%n", variant, nanos / 1e9, DOCUMENTS / (nanos / 1e9),
                bytes / 1e6 / (nanos / 1e9));
    }

    private static void rawCopy(Connection connection, List<Row> rows) throws SQLException, IOException {
        copy(connection, "COPY t (id, doc) FROM STDIN (FORMAT binary)", rows, false);
        connection.commit();
    }

    private static void insertPages(Connection connection, List<Row> rows, int page) throws SQLException {
        String documents = "WITH src AS (SELECT * FROM unnest(?::bytea[], ?::bytea[]) WITH ORDINALITY AS s(id, doc, n)),"
                + " changed AS (INSERT INTO t (id, doc) SELECT id, doc FROM src ORDER BY n ON CONFLICT (id) DO NOTHING RETURNING id)"
                + " INSERT INTO t_oplog (ts_key, o2, o) SELECT ?::bigint + src.n, src.id, src.doc FROM src JOIN changed USING (id)";
        String index = "INSERT INTO t_idx (key, id) SELECT k, i FROM unnest(?::bytea[], ?::bytea[]) AS s(k, i) ON CONFLICT DO NOTHING";
        for (int from = 0; from < rows.size(); from += page) {
            List<Row> slice = rows.subList(from, Math.min(rows.size(), from + page));
            try (PreparedStatement write = connection.prepareStatement(documents);
                    PreparedStatement entries = connection.prepareStatement(index)) {
                write.setObject(1, slice.stream().map(Row::id).toArray(byte[][]::new));
                write.setObject(2, slice.stream().map(Row::doc).toArray(byte[][]::new));
                write.setLong(3, from);
                write.executeUpdate();
                entries.setObject(1, slice.stream().map(Row::key).toArray(byte[][]::new));
                entries.setObject(2, slice.stream().map(Row::id).toArray(byte[][]::new));
                entries.executeUpdate();
            }
            connection.commit();
        }
    }

    /** Where the time goes: the documents' multi-row insert alone, without oplog entries and index entries. */
    private static void insertDocumentsOnly(Connection connection, List<Row> rows, int page) throws SQLException {
        String documents = "INSERT INTO t (id, doc) SELECT id, doc FROM unnest(?::bytea[], ?::bytea[]) AS s(id, doc) ON CONFLICT (id) DO NOTHING";
        for (int from = 0; from < rows.size(); from += page) {
            List<Row> slice = rows.subList(from, Math.min(rows.size(), from + page));
            try (PreparedStatement write = connection.prepareStatement(documents)) {
                write.setObject(1, slice.stream().map(Row::id).toArray(byte[][]::new));
                write.setObject(2, slice.stream().map(Row::doc).toArray(byte[][]::new));
                write.executeUpdate();
            }
            connection.commit();
        }
    }

    private static void copyPages(Connection connection, List<Row> rows, int page) throws SQLException, IOException {
        String merge = "WITH changed AS (INSERT INTO t (id, doc) SELECT id, doc FROM staging ORDER BY n ON CONFLICT (id) DO NOTHING"
                + " RETURNING id) INSERT INTO t_oplog (ts_key, o2, o) SELECT ?::bigint + s.n, s.id, s.doc FROM staging s JOIN changed USING (id)";
        String index = "INSERT INTO t_idx (key, id) SELECT key, id FROM staging ON CONFLICT DO NOTHING";
        for (int from = 0; from < rows.size(); from += page) {
            copy(connection, "COPY staging (id, doc, key, n) FROM STDIN (FORMAT binary)", rows.subList(from, Math.min(rows.size(), from + page)),
                    true);
            try (PreparedStatement write = connection.prepareStatement(merge); Statement entries = connection.createStatement()) {
                write.setLong(1, from);
                write.executeUpdate();
                entries.executeUpdate(index);
            }
            connection.commit(); // ON COMMIT DELETE ROWS empties the staging table
        }
    }

    /** One binary COPY of {@code rows}: {@code (id, doc)}, or {@code (id, doc, key, n)} with {@code staging}. */
    private static void copy(Connection connection, String sql, List<Row> rows, boolean staging) throws SQLException, IOException {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(buffer);
        out.write(COPY_HEADER);
        out.writeInt(0);
        out.writeInt(0);
        long n = 0;
        for (Row row : rows) {
            out.writeShort(staging ? 4 : 2);
            field(out, row.id());
            field(out, row.doc());
            if (staging) {
                field(out, row.key());
                out.writeInt(Long.BYTES);
                out.writeLong(++n);
            }
        }
        out.writeShort(-1);
        connection.unwrap(PGConnection.class).getCopyAPI().copyIn(sql, new java.io.ByteArrayInputStream(buffer.toByteArray()));
    }

    private static void field(DataOutputStream out, byte[] value) throws IOException {
        out.writeInt(value.length);
        out.write(value);
    }

    /** Flight-like documents with their {@code _id} KeyStrings and the KeyString of {@code date} as the index key. */
    private static List<Row> rows() {
        SplittableRandom random = new SplittableRandom(37);
        String[] airports = {"ATL", "ORD", "DFW", "DEN", "LAX", "SFO", "SEA", "JFK", "BOS", "MIA"};
        List<Row> rows = new ArrayList<>(DOCUMENTS);
        long day = 86_400_000L;
        for (int i = 0; i < DOCUMENTS; i++) {
            BsonDateTime date = new BsonDateTime(1_230_768_000_000L + (long) i / 300 * day);
            BsonDocument flight = new BsonDocument("_id", new BsonObjectId(new ObjectId()))
                    .append("date", date)
                    .append("carrier", new BsonString("C" + random.nextInt(20)))
                    .append("flight", new BsonInt32(random.nextInt(9000)))
                    .append("origin", new BsonString(airports[random.nextInt(airports.length)]))
                    .append("dest", new BsonString(airports[random.nextInt(airports.length)]))
                    .append("depDelay", new BsonInt32(random.nextInt(-10, 120)))
                    .append("arrDelay", new BsonInt32(random.nextInt(-10, 120)))
                    .append("distance", new BsonInt32(random.nextInt(100, 3000)));
            rows.add(new Row(KeyString.encode(flight.get("_id")), BsonBytes.encode(flight), KeyString.encode(date)));
        }
        return rows;
    }
}
