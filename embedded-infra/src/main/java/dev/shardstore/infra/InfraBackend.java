package dev.shardstore.infra;

/**
 * What a test's infrastructure offers: PostgreSQL databases created on demand and one Kafka broker. Implemented by the
 * embedded servers (the default) and by Testcontainers' containers ({@link ContainerBackend}).
 */
interface InfraBackend {
    /** Creates {@code database} unless it exists (idempotent, safe concurrently). */
    void createDatabase(String database);

    /** The JDBC URL of {@code database}, without credentials (user/password {@code postgres}). */
    String jdbcUrl(String database);

    /** The broker's bootstrap servers. */
    String bootstrapServers();

    /** Stops the broker. */
    void closeBroker();

    /** Stops PostgreSQL. */
    void closeDatabase();
}
