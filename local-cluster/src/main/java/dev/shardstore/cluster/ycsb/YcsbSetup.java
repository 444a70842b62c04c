package dev.shardstore.cluster.ycsb;

import dev.shardstore.cluster.router.RouterClient;
import dev.shardstore.contracts.bson.ExtendedJson;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Empties a target before YCSB's load phase: through the router, drops database {@code db} and shards
 * {@code db.table} on {@code {_id: "hashed"}} (so records spread over every shard, as MongoDB's hashed
 * sharding would; scans become scatter-gather); on PostgreSQL, recreates {@link #baselineTable} in the
 * storage layout of a shard's collection table.
 */
public final class YcsbSetup {
    private YcsbSetup() {
    }

    /** The baseline's table for YCSB table {@code table}: {@code ycsb_<table>}. */
    public static String baselineTable(String table) {
        if (!table.matches("[A-Za-z0-9_]+")) {
            throw new IllegalArgumentException("YCSB table name must be letters, digits and _; was " + table);
        }
        return "ycsb_" + table;
    }

    /** Drops and re-shards {@code db.table} through {@code router} (authenticated as admin on a cluster with authentication). */
    public static void router(RouterClient router, String db, String table) {
        RouterClient.requireOk("dropDatabase " + db, router.run(db, ExtendedJson.parse("{\"dropDatabase\": 1}")));
        RouterClient.requireOk("shardCollection " + db + "." + table, router.run("admin",
                ExtendedJson.parse("{\"shardCollection\": \"" + db + "." + table + "\", \"key\": {\"_id\": \"hashed\"}}")));
    }

    /** Recreates the baseline table for {@code table} in the database at {@code jdbcUrl}. */
    public static void postgres(String jdbcUrl, String table) {
        String name = baselineTable(table);
        try (Connection c = DriverManager.getConnection(jdbcUrl, "postgres", "postgres"); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS " + name);
            s.execute("CREATE TABLE " + name + " (id bytea PRIMARY KEY, doc bytea NOT NULL)");
        } catch (SQLException e) {
            throw new IllegalStateException("preparing the baseline table " + name + " at " + jdbcUrl + ": " + e.getMessage(), e);
        }
    }
}
