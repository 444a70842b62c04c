package dev.shardstore.infra;

import org.testcontainers.DockerClientFactory;
import org.testcontainers.kafka.KafkaContainer;
import org.testcontainers.postgresql.PostgreSQLContainer;

/**
 * PostgreSQL 17 and Apache Kafka 4.1 (the images {@code docker-compose.yml} runs) in Testcontainers' containers, for test
 * runs with {@code -Dshardstore.infra=testcontainers} (the Maven profile {@code testcontainers}) on a machine with a Docker
 * engine. Testcontainers is an optional dependency of this module: only that profile puts it on a test classpath.
 */
final class ContainerBackend implements InfraBackend {
    static final String POSTGRES_IMAGE = "postgres:17";
    static final String KAFKA_IMAGE = "apache/kafka:4.1.0";

    private final PostgreSQLContainer postgres;
    private final KafkaContainer kafka;

    private ContainerBackend(PostgreSQLContainer postgres, KafkaContainer kafka) {
        this.postgres = postgres;
        this.kafka = kafka;
    }

    /** Whether a Docker engine answers (Testcontainers' own probe). */
    static boolean dockerAvailable() {
        return DockerClientFactory.instance().isDockerAvailable();
    }

    /**
     * Starts both containers (pulling the images the first time).
     *
     * @throws IllegalStateException when no Docker engine answers, naming the profile to leave out
     */
    static ContainerBackend start() {
        if (!dockerAvailable()) {
            throw new IllegalStateException("-Dshardstore.infra=testcontainers needs a Docker engine and none answers; "
                    + "run without the testcontainers profile to use embedded PostgreSQL and Kafka");
        }
        PostgreSQLContainer postgres = new PostgreSQLContainer(POSTGRES_IMAGE)
                .withUsername(EmbeddedPostgresServer.USERNAME).withPassword(EmbeddedPostgresServer.PASSWORD);
        postgres.start();
        KafkaContainer kafka = new KafkaContainer(KAFKA_IMAGE);
        try {
            kafka.start();
        } catch (RuntimeException e) {
            postgres.stop();
            throw e;
        }
        return new ContainerBackend(postgres, kafka);
    }

    @Override
    public void createDatabase(String database) {
        EmbeddedPostgresServer.createDatabaseAt(jdbcUrl("postgres"), database);
    }

    @Override
    public String jdbcUrl(String database) {
        return "jdbc:postgresql://" + postgres.getHost() + ":" + postgres.getMappedPort(5432) + "/" + EmbeddedPostgresServer.requireValidName(database);
    }

    @Override
    public String bootstrapServers() {
        return kafka.getBootstrapServers();
    }

    @Override
    public void closeBroker() {
        kafka.stop();
    }

    @Override
    public void closeDatabase() {
        postgres.stop();
    }
}
