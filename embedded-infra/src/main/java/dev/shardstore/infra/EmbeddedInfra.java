package dev.shardstore.infra;

import java.util.Map;

/**
 * One PostgreSQL server and one Kafka broker shared by every test in a JVM, started on first use on
 * free ports and stopped by a shutdown hook. Each test class asks for its own database, so tests
 * never see each other's tables; Kafka topics are shared, so tests name theirs uniquely.
 *
 * <p>In a Spring Boot service test:
 *
 * <pre>{@code
 * @DynamicPropertySource
 * static void infra(DynamicPropertyRegistry registry) {
 *     EmbeddedInfra.shared().springProperties("config_it").forEach((name, value) -> registry.add(name, () -> value));
 * }
 * }</pre>
 *
 * Thread-safe.
 */
public final class EmbeddedInfra {
    private static final int KAFKA_PARTITIONS = 1;
    private static volatile EmbeddedInfra shared;

    private final EmbeddedPostgresServer postgres;
    private final EmbeddedKafkaServer kafka;

    private EmbeddedInfra(EmbeddedPostgresServer postgres, EmbeddedKafkaServer kafka) {
        this.postgres = postgres;
        this.kafka = kafka;
    }

    /**
     * The JVM-wide instance, starting PostgreSQL and Kafka the first time (about 5–15 s).
     *
     * @throws IllegalStateException or {@link java.io.UncheckedIOException} when either fails to start
     */
    public static EmbeddedInfra shared() {
        EmbeddedInfra infra = shared;
        if (infra == null) {
            synchronized (EmbeddedInfra.class) {
                infra = shared;
                if (infra == null) {
                    infra = startBoth();
                    shared = infra;
                }
            }
        }
        return infra;
    }

    private static EmbeddedInfra startBoth() {
        EmbeddedPostgresServer postgres = EmbeddedPostgresServer.start(PostgresOptions.ephemeral());
        EmbeddedKafkaServer kafka;
        try {
            kafka = EmbeddedKafkaServer.start(0, KAFKA_PARTITIONS);
        } catch (RuntimeException e) {
            postgres.close();
            throw e;
        }
        EmbeddedInfra infra = new EmbeddedInfra(postgres, kafka);
        Runtime.getRuntime().addShutdownHook(new Thread(infra::stop, "embedded-infra-shutdown"));
        return infra;
    }

    /**
     * Creates {@code database} if needed and returns the Spring Boot properties that point a service
     * at it and at the broker: {@code spring.datasource.url}, {@code spring.datasource.username},
     * {@code spring.datasource.password} and {@code spring.kafka.bootstrap-servers}.
     *
     * @param database see {@link EmbeddedPostgresServer#createDatabase} for the allowed names
     */
    public Map<String, String> springProperties(String database) {
        postgres.createDatabase(database);
        return Map.of(
                "spring.datasource.url", postgres.jdbcUrl(database),
                "spring.datasource.username", EmbeddedPostgresServer.USERNAME,
                "spring.datasource.password", EmbeddedPostgresServer.PASSWORD,
                "spring.kafka.bootstrap-servers", kafka.bootstrapServers());
    }

    /** The JDBC URL of {@code database}, creating it if needed. */
    public String jdbcUrl(String database) {
        postgres.createDatabase(database);
        return postgres.jdbcUrl(database);
    }

    /** The broker's bootstrap servers, e.g. {@code localhost:41234}. */
    public String bootstrapServers() {
        return kafka.bootstrapServers();
    }

    private void stop() {
        try {
            kafka.close();
        } finally {
            postgres.close();
        }
    }
}
