package dev.shardstore.infra;

import java.util.Map;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/**
 * One Apache Kafka broker in KRaft mode (combined broker and controller) inside this JVM, on
 * localhost, without authentication. Topics are created on first use. Its log directories are
 * temporary: they live under {@code java.io.tmpdir} and are deleted on close.
 *
 * <p>A fixed port is served by an extra listener named {@code LOCAL}: the test kit behind
 * {@link EmbeddedKafkaKraftBroker} binds its own listeners to random ports and ignores configured
 * ones, so the fixed port is added beside them and is the one {@link #bootstrapServers()} names.
 */
public final class EmbeddedKafkaServer implements AutoCloseable {
    private static final String FIXED_LISTENER = "LOCAL";

    private final EmbeddedKafkaKraftBroker broker;
    private final String bootstrapServers;

    private EmbeddedKafkaServer(EmbeddedKafkaKraftBroker broker, String bootstrapServers) {
        this.broker = broker;
        this.bootstrapServers = bootstrapServers;
    }

    /**
     * Starts a broker and waits until it is ready.
     *
     * @param port       the client port on localhost, or 0 for a random one
     * @param partitions the partition count of automatically created topics, at least 1
     * @throws Ports.PortInUseException when the fixed port is taken
     * @throws IllegalStateException    when the broker does not start
     */
    public static EmbeddedKafkaServer start(int port, int partitions) {
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("Kafka port must be 0..65535, was " + port);
        }
        if (partitions < 1) {
            throw new IllegalArgumentException("partitions must be at least 1, was " + partitions);
        }
        EmbeddedKafkaKraftBroker broker = new EmbeddedKafkaKraftBroker(1, partitions);
        // The broker publishes its address as a JVM-wide system property, by default spring.kafka.bootstrap-servers,
        // which would leak into every Spring context of the JVM; give it a name nothing reads.
        broker.brokerListProperty("shardstore.embedded-kafka.brokers");
        broker.brokerProperties(Map.of("auto.create.topics.enable", "true"));
        if (port != 0) {
            Ports.requireFree(port, "Kafka");
            broker.brokerProperties(Map.of(
                    "listeners", "EXTERNAL://localhost:0,CONTROLLER://localhost:0," + FIXED_LISTENER + "://localhost:" + port,
                    "listener.security.protocol.map", "EXTERNAL:PLAINTEXT,CONTROLLER:PLAINTEXT," + FIXED_LISTENER + ":PLAINTEXT"));
        }
        broker.afterPropertiesSet();
        return new EmbeddedKafkaServer(broker, port != 0 ? "localhost:" + port : broker.getBrokersAsString());
    }

    /** The value for {@code bootstrap.servers} / {@code spring.kafka.bootstrap-servers}, e.g. {@code localhost:29092}. */
    public String bootstrapServers() {
        return bootstrapServers;
    }

    /** Stops the broker and deletes its log directories. */
    @Override
    public void close() {
        broker.destroy();
    }
}
