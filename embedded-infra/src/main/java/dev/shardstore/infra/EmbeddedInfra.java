package dev.shardstore.infra;

import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * One PostgreSQL server and one Kafka broker shared by every test in a JVM, started on first use on
 * free ports and stopped when the JVM exits (PostgreSQL after Spring Boot's test contexts). Each test class asks for its own database, so tests
 * never see each other's tables; Kafka topics are shared, so tests name theirs uniquely.
 *
 * <p>By default both are embedded (zonky's PostgreSQL binaries, a KRaft broker in this JVM). With
 * {@code -Dshardstore.infra=testcontainers} (the Maven profile {@code testcontainers}) they are Testcontainers'
 * PostgreSQL 17 and Apache Kafka containers, the images {@code docker-compose.yml} runs; that needs a Docker
 * engine, and without one {@link DockerRequiredForContainers} skips the tests with a message.
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
    private static volatile @Nullable EmbeddedInfra shared;

    /** The system property that selects the backend: {@code embedded} (default) or {@code testcontainers}. */
    public static final String BACKEND_PROPERTY = "shardstore.infra";

    private final InfraBackend backend;
    /** Whether Spring Boot's shutdown handlers, not this class's hook, stop PostgreSQL. */
    private final AtomicBoolean databaseClosedBySpringBoot = new AtomicBoolean();

    private EmbeddedInfra(InfraBackend backend) {
        this.backend = backend;
    }

    /** Whether this run asked for Testcontainers instead of the embedded servers. */
    public static boolean containersRequested() {
        return "testcontainers".equals(System.getProperty(BACKEND_PROPERTY));
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
        InfraBackend backend = containersRequested() ? ContainerBackend.start() : EmbeddedBackend.start();
        EmbeddedInfra infra = new EmbeddedInfra(backend);
        infra.closeAtExit();
        return infra;
    }

    /**
     * Stops the backend when the JVM exits. The broker stops in a shutdown hook of its own: the Kafka test kit deletes its
     * log directories in another hook, and a broker that outlived them would not shut down. PostgreSQL stops in a hook of
     * its own too, unless a starting Spring Boot test context took its properties ({@link #springProperties}): then in one of
     * Spring Boot's shutdown handlers, which run once every application context is closed. Stopped alongside the
     * contexts, it went away under one still closing, whose scheduled task (the config service's outbox relay, every
     * 100 ms) then waited 30 s for a pooled connection, and Surefire killed the fork JVM 30 s after its
     * {@code System.exit}.
     */
    private void closeAtExit() {
        Runtime.getRuntime().addShutdownHook(new Thread(backend::closeBroker, "embedded-infra-broker-shutdown"));
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (!databaseClosedBySpringBoot.get()) {
                backend.closeDatabase();
            }
        }, "embedded-infra-database-shutdown"));
    }

    /** Leaves stopping PostgreSQL to Spring Boot's shutdown handlers, which run after the test contexts closed (once). */
    private void closeDatabaseAfterSpringContexts() {
        if (databaseClosedBySpringBoot.compareAndSet(false, true)) {
            SpringBootShutdown.afterContextsClose(backend::closeDatabase);
        }
    }

    /** Spring Boot's shutdown handlers, touched only when Spring Boot is on the class path. */
    private static final class SpringBootShutdown {
        static final boolean AVAILABLE = present("org.springframework.boot.SpringApplication");

        private SpringBootShutdown() {}

        static void afterContextsClose(Runnable action) {
            org.springframework.boot.SpringApplication.getShutdownHandlers().add(action);
        }

        /** Whether the caller runs inside {@code SpringApplication.run}, which enables Spring Boot's shutdown hook. */
        static boolean insideApplicationRun() {
            return AVAILABLE && StackWalker.getInstance().walk(frames -> frames.anyMatch(
                    f -> f.getClassName().equals("org.springframework.boot.SpringApplication") && f.getMethodName().equals("run")));
        }

        private static boolean present(String className) {
            try {
                Class.forName(className, false, EmbeddedInfra.class.getClassLoader());
                return true;
            } catch (ClassNotFoundException e) {
                return false;
            }
        }
    }

    /** The embedded servers: zonky's PostgreSQL and a KRaft broker. */
    private record EmbeddedBackend(EmbeddedPostgresServer postgres, EmbeddedKafkaServer kafka) implements InfraBackend {
        static EmbeddedBackend start() {
            // stopped by closeAtExit, once the contexts using it are closed
            EmbeddedPostgresServer postgres = EmbeddedPostgresServer.start(PostgresOptions.ephemeral().withoutStopAtJvmExit());
            try {
                return new EmbeddedBackend(postgres, EmbeddedKafkaServer.start(0, KAFKA_PARTITIONS));
            } catch (RuntimeException e) {
                postgres.close();
                throw e;
            }
        }

        @Override
        public void createDatabase(String database) {
            postgres.createDatabase(database);
        }

        @Override
        public String jdbcUrl(String database) {
            return postgres.jdbcUrl(database);
        }

        @Override
        public String bootstrapServers() {
            return kafka.bootstrapServers();
        }

        @Override
        public void closeBroker() {
            kafka.close();
        }

        @Override
        public void closeDatabase() {
            postgres.close();
        }
    }

    /**
     * Creates {@code database} if needed and returns the Spring Boot properties that point a service
     * at it and at the broker: {@code spring.datasource.url}, {@code spring.datasource.username},
     * {@code spring.datasource.password} and {@code spring.kafka.bootstrap-servers}.
     *
     * @param database see {@link EmbeddedPostgresServer#createDatabase} for the allowed names
     */
    public Map<String, String> springProperties(String database) {
        if (SpringBootShutdown.insideApplicationRun()) { // a test context starting: Spring Boot's hook will close it
            closeDatabaseAfterSpringContexts();
        }
        backend.createDatabase(database);
        return Map.of(
                "spring.datasource.url", backend.jdbcUrl(database),
                "spring.datasource.username", EmbeddedPostgresServer.USERNAME,
                "spring.datasource.password", EmbeddedPostgresServer.PASSWORD,
                "spring.kafka.bootstrap-servers", backend.bootstrapServers());
    }

    /** The JDBC URL of {@code database}, creating it if needed. */
    public String jdbcUrl(String database) {
        backend.createDatabase(database);
        return backend.jdbcUrl(database);
    }

    /** The broker's bootstrap servers, e.g. {@code localhost:41234}. */
    public String bootstrapServers() {
        return backend.bootstrapServers();
    }
}
