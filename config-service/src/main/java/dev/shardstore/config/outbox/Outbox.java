package dev.shardstore.config.outbox;

import dev.shardstore.contracts.event.CatalogEvent;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;

/**
 * Appends catalog events to the outbox table inside the caller's transaction, so an event exists if
 * and only if the catalog change it announces committed (DESIGN.md §5).
 */
@Component
public class Outbox {
    private final JdbcClient jdbc;

    public Outbox(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /**
     * @throws org.springframework.transaction.IllegalTransactionStateException when called outside a transaction
     */
    @Transactional(propagation = Propagation.MANDATORY)
    public void append(CatalogEvent.Type type, String database, @Nullable String namespace) {
        jdbc.sql("INSERT INTO outbox (topic, event_type, database, namespace) VALUES (?, ?, ?, ?)")
                .params(CatalogEvent.TOPIC, type.name(), database, namespace)
                .update();
    }
}
