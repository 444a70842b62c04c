package dev.shardstore.config.outbox;

import dev.shardstore.contracts.event.CatalogEvent;
import dev.shardstore.support.failpoint.FailPoints;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Transactional;
import tools.jackson.databind.json.JsonMapper;

/**
 * Publishes outbox rows to Kafka in sequence order and deletes exactly the rows the broker acknowledged
 * (acks=all). At-least-once: a crash between send and delete re-sends, which receivers tolerate because
 * events are only cache-staleness hints. Rows are locked with SKIP LOCKED so two config-service
 * instances never publish the same row concurrently.
 *
 * <p>Sequence numbers are taken when a row is inserted, not when its transaction commits, so a row with
 * a lower {@code seq} can become visible after the relay read higher ones. Deleting "{@code seq <=} the
 * last one read" would delete such a row unpublished; the relay deletes the rows it read, by their
 * {@code seq}, and the late row goes out with the next batch.
 */
@Component
public class OutboxRelay {
    private static final Logger log = LoggerFactory.getLogger(OutboxRelay.class);
    private static final int BATCH = 500;

    private final JdbcClient jdbc;
    private final KafkaTemplate<String, String> kafka;
    private final JsonMapper json;
    private final FailPoints failPoints;

    public OutboxRelay(JdbcClient jdbc, KafkaTemplate<String, String> kafka, JsonMapper json, FailPoints failPoints) {
        this.jdbc = jdbc;
        this.kafka = kafka;
        this.json = json;
        this.failPoints = failPoints;
    }

    /** Fail point between the broker's acknowledgement and the delete of the published rows. */
    public static final String AFTER_PUBLISH = "outboxRelay.afterPublish";

    private record Row(String topic, CatalogEvent event) {}

    @Scheduled(fixedDelayString = "${shardstore.outbox.poll-interval:100ms}")
    public void relayScheduled() {
        try {
            relay();
        } catch (RuntimeException e) {
            log.warn("outbox relay failed; will retry: {}", e.toString());
        }
    }

    /**
     * Publishes up to one batch of pending events.
     *
     * @return how many events were published
     */
    @Transactional
    public int relay() {
        List<Row> rows = jdbc.sql("""
                SELECT seq, topic, event_type, database, namespace, epoch, collection_version, shards
                FROM outbox ORDER BY seq LIMIT ? FOR UPDATE SKIP LOCKED""")
                .param(BATCH)
                .query((rs, n) -> new Row(rs.getString("topic"), new CatalogEvent(CatalogEvent.Type.valueOf(rs.getString("event_type")),
                        rs.getString("database"), rs.getString("namespace"), rs.getLong("seq"), rs.getString("epoch"),
                        rs.getString("collection_version"), List.of((String[]) rs.getArray("shards").getArray()))))
                .list();
        if (rows.isEmpty()) {
            return 0;
        }
        List<CompletableFuture<?>> sends = rows.stream()
                .<CompletableFuture<?>>map(row -> kafka.send(row.topic(), row.event().database(), json.writeValueAsString(row.event())))
                .toList();
        try {
            CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw new IllegalStateException("Kafka did not acknowledge " + rows.size() + " outbox events", e);
        }
        failPoints.hit(AFTER_PUBLISH);
        Long[] published = rows.stream().map(row -> row.event().sequence()).toArray(Long[]::new);
        jdbc.sql("DELETE FROM outbox WHERE seq = ANY(?)").param(published).update();
        return rows.size();
    }
}
