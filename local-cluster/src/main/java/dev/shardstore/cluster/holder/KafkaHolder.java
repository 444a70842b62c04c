package dev.shardstore.cluster.holder;

import dev.shardstore.infra.EmbeddedKafkaServer;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The process that holds the local cluster's Kafka broker (KRaft, one node): starts it on a fixed
 * port, writes the ready file, and stops it when it receives SIGTERM. The broker's files live under
 * this JVM's {@code java.io.tmpdir}, which the launcher points into the cluster's home.
 */
@Command(name = "kafka-holder", mixinStandardHelpOptions = true,
        description = "Runs the local cluster's embedded Kafka broker until terminated.")
public final class KafkaHolder implements Callable<Integer> {
    @Option(names = "--port", required = true, description = "client port on localhost")
    int port;

    @Option(names = "--partitions", defaultValue = "1", description = "partitions of automatically created topics (default: ${DEFAULT-VALUE})")
    int partitions;

    @Option(names = "--ready-file", required = true, description = "written once the broker serves")
    Path readyFile;

    public static void main(String[] args) {
        System.exit(new CommandLine(new KafkaHolder()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        EmbeddedKafkaServer server = EmbeddedKafkaServer.start(port, partitions);
        Holder.serveUntilSignalled("Kafka", server, readyFile, server.bootstrapServers());
        return 0;
    }
}
