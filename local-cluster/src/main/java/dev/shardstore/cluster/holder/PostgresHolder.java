package dev.shardstore.cluster.holder;

import dev.shardstore.infra.EmbeddedPostgresServer;
import dev.shardstore.infra.PostgresDurability;
import dev.shardstore.infra.PostgresOptions;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The process that holds the local cluster's PostgreSQL server: starts it on a fixed port with a
 * persistent data directory, creates the databases, writes the ready file, and stops the server when
 * it receives SIGTERM. Its output (including PostgreSQL's own log) is the component's log file.
 */
@Command(name = "postgres-holder", mixinStandardHelpOptions = true,
        description = "Runs the local cluster's embedded PostgreSQL server until terminated.")
public final class PostgresHolder implements Callable<Integer> {
    @Option(names = "--port", required = true, description = "TCP port on localhost")
    int port;

    @Option(names = "--data", required = true, description = "data directory, kept across restarts")
    Path data;

    @Option(names = "--ready-file", required = true, description = "written once the databases exist")
    Path readyFile;

    @Option(names = "--binaries", description = "where PostgreSQL's binaries are unpacked (default: $java.io.tmpdir/embedded-pg)")
    Path binaries;

    @Option(names = "--databases", split = ",", description = "databases to create if missing")
    List<String> databases = List.of();

    @Option(names = "--durability", defaultValue = "durable", converter = DurabilityConverter.class,
            description = "durable (fsync and synchronous_commit on, the default) or fast (not crash-safe)")
    PostgresDurability durability = PostgresDurability.DURABLE;

    public static void main(String[] args) {
        System.exit(new CommandLine(new PostgresHolder()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        PostgresOptions options = PostgresOptions.persistent(port, data).withServerOutputInherited().withDurability(durability);
        System.out.println(durability.describe());
        EmbeddedPostgresServer server = EmbeddedPostgresServer.start(binaries == null ? options : options.withBinariesDirectory(binaries));
        databases.forEach(server::createDatabase);
        Holder.serveUntilSignalled("PostgreSQL", server, readyFile, "jdbc:postgresql://localhost:" + port + "/ databases=" + String.join(",", databases));
        return 0;
    }
}
