package dev.shardstore.cluster.ycsb;

import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.keystring.KeyString;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.Vector;
import org.bson.BsonDocument;
import org.bson.BsonString;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;

/**
 * The direct-PostgreSQL baseline for YCSB: the same operations as plain SQL on one shard's database,
 * in the shard storage's own layout ({@code id bytea PRIMARY KEY} holding the {@code _id} KeyString,
 * {@code doc bytea} holding the document's BSON, docs/architecture.md "Shard storage and the oplog"), over one JDBC connection per YCSB
 * thread with prepared statements. A read decodes the BSON; an update reads the row {@code FOR UPDATE},
 * applies the fields and writes it back in one transaction, as a document store must. No oplog, no
 * routing, no HTTP: this is the floor the router's figures are compared with. Properties:
 * {@code shardstore.jdbc} (URL; user and password {@code postgres}); the table is
 * {@link YcsbSetup#baselineTable}, created by {@link YcsbSetup}.
 */
public final class PostgresBinding extends DB {
    /** Property naming the JDBC URL of the database holding the baseline table. */
    public static final String JDBC_PROPERTY = "shardstore.jdbc";

    private Connection connection;
    private PreparedStatement read;
    private PreparedStatement scan;
    private PreparedStatement lock;
    private PreparedStatement update;
    private PreparedStatement insert;
    private PreparedStatement delete;

    @Override
    public void init() throws DBException {
        Properties p = getProperties();
        String url = p.getProperty(JDBC_PROPERTY);
        if (url == null) {
            throw new DBException("property " + JDBC_PROPERTY + " (the baseline's JDBC URL) is required");
        }
        String table = YcsbSetup.baselineTable(p.getProperty("table", "usertable"));
        try {
            connection = DriverManager.getConnection(url, "postgres", "postgres");
            read = connection.prepareStatement("SELECT doc FROM " + table + " WHERE id = ?");
            scan = connection.prepareStatement("SELECT doc FROM " + table + " WHERE id >= ? ORDER BY id LIMIT ?");
            lock = connection.prepareStatement("SELECT doc FROM " + table + " WHERE id = ? FOR UPDATE");
            update = connection.prepareStatement("UPDATE " + table + " SET doc = ? WHERE id = ?");
            insert = connection.prepareStatement("INSERT INTO " + table + " (id, doc) VALUES (?, ?)");
            delete = connection.prepareStatement("DELETE FROM " + table + " WHERE id = ?");
        } catch (SQLException e) {
            throw new DBException("connecting the baseline to " + url + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void cleanup() throws DBException {
        try {
            if (connection != null) {
                connection.close();
            }
        } catch (SQLException e) {
            throw new DBException(e);
        }
    }

    @Override
    public Status read(String table, String key, Set<String> fields, Map<String, ByteIterator> result) {
        try {
            read.setBytes(1, id(key));
            try (ResultSet rs = read.executeQuery()) {
                if (!rs.next()) {
                    return Status.NOT_FOUND;
                }
                YcsbRecords.read(BsonBytes.decode(rs.getBytes(1)), fields, result);
                return Status.OK;
            }
        } catch (SQLException e) {
            return Status.ERROR;
        }
    }

    @Override
    public Status scan(String table, String startkey, int recordcount, Set<String> fields,
                       Vector<HashMap<String, ByteIterator>> result) {
        try {
            scan.setBytes(1, id(startkey));
            scan.setInt(2, recordcount);
            try (ResultSet rs = scan.executeQuery()) {
                while (rs.next()) {
                    result.add(YcsbRecords.row(BsonBytes.decode(rs.getBytes(1)), fields));
                }
            }
            return Status.OK;
        } catch (SQLException e) {
            return Status.ERROR;
        }
    }

    @Override
    public Status update(String table, String key, Map<String, ByteIterator> values) {
        byte[] id = id(key);
        try {
            connection.setAutoCommit(false);
            try {
                lock.setBytes(1, id);
                BsonDocument doc;
                try (ResultSet rs = lock.executeQuery()) {
                    if (!rs.next()) {
                        connection.rollback();
                        return Status.NOT_FOUND;
                    }
                    doc = BsonBytes.decode(rs.getBytes(1));
                }
                update.setBytes(1, BsonBytes.encode(YcsbRecords.fields(values, doc)));
                update.setBytes(2, id);
                update.executeUpdate();
                connection.commit();
                return Status.OK;
            } catch (SQLException e) {
                connection.rollback();
                return Status.ERROR;
            } finally {
                connection.setAutoCommit(true);
            }
        } catch (SQLException e) {
            return Status.ERROR;
        }
    }

    @Override
    public Status insert(String table, String key, Map<String, ByteIterator> values) {
        try {
            insert.setBytes(1, id(key));
            insert.setBytes(2, BsonBytes.encode(YcsbRecords.document(key, values)));
            insert.executeUpdate();
            return Status.OK;
        } catch (SQLException e) {
            return Status.ERROR;
        }
    }

    @Override
    public Status delete(String table, String key) {
        try {
            delete.setBytes(1, id(key));
            return delete.executeUpdate() == 1 ? Status.OK : Status.NOT_FOUND;
        } catch (SQLException e) {
            return Status.ERROR;
        }
    }

    private static byte[] id(String key) {
        return KeyString.encode(new BsonString(key));
    }
}
