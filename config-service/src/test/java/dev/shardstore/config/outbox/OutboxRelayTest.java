package dev.shardstore.config.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.infra.EmbeddedInfra;
import dev.shardstore.support.failpoint.FailPointAction;
import dev.shardstore.support.failpoint.FailPoints;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The relay against a real PostgreSQL and Kafka, with a row that commits between the relay's read and its delete: it
 * must stay in the outbox and go out with the next batch (deleting {@code seq <= last read} lost it).
 */
@SpringBootTest(properties = "shardstore.outbox.poll-interval=1h")
class OutboxRelayTest {
    private static final String DATABASE = "config_outbox_relay_test";

    @Autowired
    OutboxRelay relay;

    @Autowired
    JdbcClient jdbc;

    @Autowired
    FailPoints failPoints;

    @DynamicPropertySource
    static void infra(DynamicPropertyRegistry registry) {
        EmbeddedInfra.shared().springProperties(DATABASE).forEach((k, v) -> registry.add(k, () -> v));
    }

    @Test
    void aRowThatCommitsWhileTheRelayPublishesIsNotDeletedUnpublished() throws Exception {
        while (relay.relay() > 0) {
            // drain what the context's start left (none expected)
        }
        try (Connection late = DriverManager.getConnection(EmbeddedInfra.shared().jdbcUrl(DATABASE), "postgres", "postgres")) {
            late.setAutoCommit(false);
            long lateSeq = insertEvent(late, "late");           // lower seq, not committed yet
            long earlySeq;
            try (Connection early = DriverManager.getConnection(EmbeddedInfra.shared().jdbcUrl(DATABASE), "postgres", "postgres")) {
                earlySeq = insertEvent(early, "early");         // higher seq, committed (autocommit)
            }
            assertThat(lateSeq).isLessThan(earlySeq);

            failPoints.configure(OutboxRelay.AFTER_PUBLISH, FailPointAction.pause(), 1);
            long before = failPoints.timesEntered(OutboxRelay.AFTER_PUBLISH);
            CompletableFuture<Integer> firstBatch = CompletableFuture.supplyAsync(relay::relay, Thread.ofVirtual()::start);
            assertThat(failPoints.awaitEntered(OutboxRelay.AFTER_PUBLISH, before + 1, Duration.ofSeconds(30))).isTrue();
            late.commit();                                      // visible now, between the read and the delete
            failPoints.configure(OutboxRelay.AFTER_PUBLISH, null, 0);
            assertThat(firstBatch.get(30, TimeUnit.SECONDS)).isEqualTo(1);

            assertThat(seqs()).containsExactly(lateSeq);
            assertThat(relay.relay()).isEqualTo(1);
            assertThat(seqs()).isEmpty();
        }
    }

    private long insertEvent(Connection connection, String database) throws Exception {
        try (PreparedStatement insert = connection.prepareStatement(
                "INSERT INTO outbox (topic, event_type, database) VALUES ('shardstore.catalog', 'DATABASE_CREATED', ?) RETURNING seq")) {
            insert.setString(1, database);
            try (ResultSet rs = insert.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private List<Long> seqs() {
        return jdbc.sql("SELECT seq FROM outbox ORDER BY seq").query(Long.class).list();
    }
}
