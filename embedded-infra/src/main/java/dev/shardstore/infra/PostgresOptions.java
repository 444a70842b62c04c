package dev.shardstore.infra;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * How to run an {@link EmbeddedPostgresServer}.
 *
 * @param port                the TCP port on localhost, or 0 for a free one picked at start
 * @param dataDirectory       where the cluster's files live; empty for a temporary directory that is
 *                            deleted on close. A given directory is kept: initialised on first use and
 *                            reused (with its databases) on every later start
 * @param inheritServerOutput true to let the postmaster write its log to this JVM's stdout/stderr
 *                            (for a holder process whose output is a log file); false to relay it
 *                            through SLF4J
 * @param binariesDirectory   where PostgreSQL's binaries are unpacked (zonky's working directory); empty for zonky's
 *                            default, {@link PostgresBinaries#workingDirectory}
 * @param stopAtJvmExit       true to have zonky stop the server in a JVM shutdown hook of its own; false when its owner
 *                            stops it ({@link EmbeddedInfra}: after Spring Boot has closed the test contexts using it)
 * @param durability          whether commits survive a crash of the machine; {@link PostgresDurability#DURABLE} unless
 *                            asked otherwise
 */
public record PostgresOptions(int port, Optional<Path> dataDirectory, boolean inheritServerOutput, Optional<Path> binariesDirectory,
        boolean stopAtJvmExit, PostgresDurability durability) {

    public PostgresOptions {
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("PostgreSQL port must be 0..65535, was " + port);
        }
        Objects.requireNonNull(durability, "durability");
    }

    /**
     * A throw-away server on a free port with a temporary data directory: for tests. Its durability is
     * {@link PostgresDurability#fromSystemProperty()}: durable unless the run asks for the fast setting.
     */
    public static PostgresOptions ephemeral() {
        return new PostgresOptions(0, Optional.empty(), false, Optional.empty(), true, PostgresDurability.fromSystemProperty());
    }

    /** A durable server on {@code port} whose data survives restarts in {@code dataDirectory}. */
    public static PostgresOptions persistent(int port, Path dataDirectory) {
        return new PostgresOptions(port, Optional.of(dataDirectory), false, Optional.empty(), true, PostgresDurability.DURABLE);
    }

    /** The same options with another durability. */
    public PostgresOptions withDurability(PostgresDurability newDurability) {
        return new PostgresOptions(port, dataDirectory, inheritServerOutput, binariesDirectory, stopAtJvmExit, newDurability);
    }

    /** The same options with the postmaster's output going to this JVM's stdout/stderr. */
    public PostgresOptions withServerOutputInherited() {
        return new PostgresOptions(port, dataDirectory, true, binariesDirectory, stopAtJvmExit, durability);
    }

    /** The same options with PostgreSQL's binaries unpacked under {@code directory}. */
    public PostgresOptions withBinariesDirectory(Path directory) {
        return new PostgresOptions(port, dataDirectory, inheritServerOutput, Optional.of(directory), stopAtJvmExit, durability);
    }

    /** The same options with the server left for its owner to stop: no shutdown hook of zonky's. */
    public PostgresOptions withoutStopAtJvmExit() {
        return new PostgresOptions(port, dataDirectory, inheritServerOutput, binariesDirectory, false, durability);
    }
}
