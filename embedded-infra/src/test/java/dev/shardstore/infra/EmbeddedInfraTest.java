package dev.shardstore.infra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EmbeddedInfraTest {

    @Test
    void sharedInfraServesADatabaseAndATopic() throws Exception {
        EmbeddedInfra infra = EmbeddedInfra.shared();
        Map<String, String> props = infra.springProperties("infra_test");

        assertThat(props).containsKeys("spring.datasource.url", "spring.datasource.username",
                "spring.datasource.password", "spring.kafka.bootstrap-servers");
        assertThat(props.get("spring.datasource.url")).endsWith("/infra_test");
        assertThat(EmbeddedInfra.shared()).isSameAs(infra);
        try (Connection c = connect(props.get("spring.datasource.url")); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE greeting (text varchar)");
            s.execute("INSERT INTO greeting VALUES ('hello')");
            assertThat(single(s, "SELECT text FROM greeting")).isEqualTo("hello");
        }
        assertThat(roundTrip(props.get("spring.kafka.bootstrap-servers"))).isEqualTo("hello kafka");
    }

    @Test
    void persistentPostgresKeepsDatabasesAcrossRestarts(@TempDir Path dir) throws Exception {
        int port = freePort();
        PostgresOptions options = PostgresOptions.persistent(port, dir.resolve("pg"));
        try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(options)) {
            pg.createDatabase("kept");
            pg.createDatabase("kept"); // idempotent
            assertThat(pg.jdbcUrl("kept")).isEqualTo("jdbc:postgresql://localhost:" + port + "/kept");
            try (Connection c = connect(pg.jdbcUrl("kept")); Statement s = c.createStatement()) {
                s.execute("CREATE TABLE t (n int)");
                s.execute("INSERT INTO t VALUES (42)");
            }
        }
        assertThat(Ports.isListening(port, Duration.ofMillis(200))).isFalse();
        try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(options);
             Connection c = connect(pg.jdbcUrl("kept")); Statement s = c.createStatement()) {
            assertThat(single(s, "SELECT n FROM t")).isEqualTo("42");
        }
    }

    @Test
    void kafkaOnAFixedPortIsReachableThere() throws Exception {
        int port = freePort();
        try (EmbeddedKafkaServer kafka = EmbeddedKafkaServer.start(port, 1)) {
            assertThat(kafka.bootstrapServers()).isEqualTo("localhost:" + port);
            assertThat(roundTrip(kafka.bootstrapServers())).isEqualTo("hello kafka");
        }
    }

    @Test
    void aTakenPortIsNamedInTheError() throws Exception {
        try (ServerSocket taken = new ServerSocket(0)) {
            assertThatThrownBy(() -> EmbeddedPostgresServer.start(PostgresOptions.persistent(taken.getLocalPort(), Path.of("unused"))))
                    .isInstanceOf(Ports.PortInUseException.class)
                    .hasMessageContaining("port " + taken.getLocalPort() + " for PostgreSQL is already in use");
        }
    }

    @Test
    void databaseNamesAreValidated() {
        assertThatThrownBy(() -> EmbeddedInfra.shared().jdbcUrl("bad\"; DROP"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("invalid PostgreSQL database name");
    }

    private static Connection connect(String url) throws SQLException {
        return DriverManager.getConnection(url, EmbeddedPostgresServer.USERNAME, EmbeddedPostgresServer.PASSWORD);
    }

    private static String single(Statement s, String sql) throws SQLException {
        try (ResultSet rows = s.executeQuery(sql)) {
            assertThat(rows.next()).isTrue();
            return rows.getString(1);
        }
    }

    private static String roundTrip(String bootstrapServers) throws Exception {
        String topic = "test-" + UUID.randomUUID();
        Map<String, Object> producerConfig = Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerConfig)) {
            producer.send(new ProducerRecord<>(topic, "k", "hello kafka")).get();
        }
        Map<String, Object> consumerConfig = Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ConsumerConfig.GROUP_ID_CONFIG, "test",
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(consumerConfig)) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(500))) {
                    return record.value();
                }
            }
        }
        throw new AssertionError("no record arrived on " + topic + " within 30 s");
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
