package dev.shardstore.infra;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real PostgreSQL server (zonky's binaries from Maven Central) on localhost. Trust authentication:
 * connect as {@link #USERNAME} with any password. One server holds many databases; create them with
 * {@link #createDatabase}.
 *
 * <p>With a persistent data directory the server keeps its databases across restarts; a postmaster
 * left running on that directory by a killed JVM is stopped first. Thread-safe.
 */
public final class EmbeddedPostgresServer implements AutoCloseable {
    /** The superuser every connection uses. */
    public static final String USERNAME = "postgres";
    /** Ignored by trust authentication; given so that clients that insist on one have it. */
    public static final String PASSWORD = "postgres";

    private static final Logger log = LoggerFactory.getLogger(EmbeddedPostgresServer.class);
    private static final Pattern DATABASE_NAME = Pattern.compile("[a-z_][a-z0-9_]{0,62}");
    private static final Duration STARTUP_WAIT = Duration.ofSeconds(60);

    private final EmbeddedPostgres postgres;

    private EmbeddedPostgresServer(EmbeddedPostgres postgres) {
        this.postgres = postgres;
    }

    /**
     * Starts a server and waits until it accepts connections (initialising the data directory the
     * first time, which takes a few seconds). The first start on a machine unpacks the binaries (about
     * 150 MB of heap for the xz stream); an unpack that a dead process left half done is redone
     * ({@link PostgresBinaries#discardPartialUnpacks}).
     *
     * @throws Ports.PortInUseException when the fixed port is taken
     * @throws UncheckedIOException     when the binaries cannot be unpacked or the server does not start
     *                                  within 60 s
     */
    public static EmbeddedPostgresServer start(PostgresOptions options) {
        if (options.port() != 0) {
            Ports.requireFree(options.port(), "PostgreSQL");
        }
        Path binaries = PostgresBinaries.workingDirectory(options.binariesDirectory());
        PostgresBinaries.discardPartialUnpacks(binaries);
        EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
                .setPort(options.port())
                .setPGStartupWait(STARTUP_WAIT)
                .setOverrideWorkingDirectory(binaries.toFile())
                .setRegisterShutdownHook(options.stopAtJvmExit());
        serverSettings(options).forEach(builder::setServerConfig);
        if (options.dataDirectory().isPresent()) {
            Path dataDirectory = options.dataDirectory().get().toAbsolutePath();
            Postmaster.stop(dataDirectory, Duration.ofSeconds(30));
            try {
                Files.createDirectories(dataDirectory);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot create the PostgreSQL data directory " + dataDirectory, e);
            }
            builder.setDataDirectory(dataDirectory).setCleanDataDirectory(false);
        }
        if (options.inheritServerOutput()) {
            builder.setOutputRedirector(ProcessBuilder.Redirect.INHERIT).setErrorRedirector(ProcessBuilder.Redirect.INHERIT);
        }
        if (options.durability().crashSafe()) {
            log.info(options.durability().describe());
        } else {
            log.warn(options.durability().describe());
        }
        try {
            return new EmbeddedPostgresServer(builder.start());
        } catch (IOException e) {
            throw new UncheckedIOException("PostgreSQL did not start on port " + options.port()
                    + options.dataDirectory().map(d -> " with data in " + d).orElse(""), e);
        }
    }

    /**
     * Every setting this project gives the postmaster beyond zonky's defaults, name to value, in one place: the
     * durability's ({@link PostgresDurability#serverSettings()}) and {@code max_prepared_transactions}.
     */
    static Map<String, String> serverSettings(PostgresOptions options) {
        Map<String, String> settings = new TreeMap<>(options.durability().serverSettings());
        // two-phase commit: each shard's transactions are prepared here (PREPARE TRANSACTION); 0, the default, refuses
        // them. At least the transactions a shard may have open at once (shardstore.shard.transactions.max-open, 32),
        // for a few shards on one server
        settings.put("max_prepared_transactions", "128");
        return settings;
    }

    /** The port the server listens on. */
    public int port() {
        return postgres.getPort();
    }

    /**
     * The JDBC URL of {@code database} (without credentials: use {@link #USERNAME} / {@link #PASSWORD}),
     * e.g. {@code jdbc:postgresql://localhost:25432/shard1}.
     */
    public String jdbcUrl(String database) {
        return "jdbc:postgresql://localhost:" + port() + "/" + requireValidName(database);
    }

    /**
     * Creates {@code database} unless it exists. Safe to call concurrently and repeatedly.
     *
     * @param database lower-case letters, digits and underscores, starting with a letter or underscore,
     *                 at most 63 characters (PostgreSQL's identifier limit)
     * @throws IllegalArgumentException for any other name
     * @throws IllegalStateException    when the server refuses
     */
    public void createDatabase(String database) {
        createDatabaseAt(jdbcUrl("postgres"), database);
    }

    /**
     * Creates {@code database} on the server whose {@code postgres} database is at {@code adminUrl}, unless it exists.
     * Shared with the Testcontainers backend: one rule for names, races and errors.
     */
    public static void createDatabaseAt(String adminUrl, String database) {
        requireValidName(database);
        try (Connection connection = DriverManager.getConnection(adminUrl, USERNAME, PASSWORD)) {
            if (exists(connection, database)) {
                return;
            }
            try (Statement statement = connection.createStatement()) {
                statement.execute("CREATE DATABASE \"" + database + "\"");
            }
        } catch (SQLException e) {
            if (!"42P04".equals(e.getSQLState())) { // duplicate_database: created concurrently by another caller
                throw new IllegalStateException("cannot create PostgreSQL database " + database + " at " + adminUrl + ": " + e.getMessage(), e);
            }
        }
    }

    /** Stops the server; its data stays when the data directory is persistent. Idempotent. */
    @Override
    public void close() {
        try {
            postgres.close();
        } catch (IOException e) {
            throw new UncheckedIOException("stopping PostgreSQL on port " + port() + " failed", e);
        }
    }

    private static boolean exists(Connection connection, String database) throws SQLException {
        try (PreparedStatement query = connection.prepareStatement("SELECT 1 FROM pg_database WHERE datname = ?")) {
            query.setString(1, database);
            try (ResultSet rows = query.executeQuery()) {
                return rows.next();
            }
        }
    }

    static String requireValidName(String database) {
        if (database == null || !DATABASE_NAME.matcher(database).matches()) {
            throw new IllegalArgumentException("invalid PostgreSQL database name '" + database
                    + "': use lower-case letters, digits and underscores, starting with a letter or underscore, at most 63 characters");
        }
        return database;
    }
}
