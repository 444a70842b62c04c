package dev.shardstore.router.api;

import dev.shardstore.router.events.CatalogEventListener;
import java.util.Map;
import java.util.Objects;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.listener.MessageListenerContainer;
import org.springframework.stereotype.Component;

/**
 * {@code /actuator/catalogEvents}: whether this router consumes catalog events ({@code GET} → {@code {state:
 * "running" | "stopped"}}), and {@code POST {"state": "stopped" | "running"}} to stop or restart the consumer. For
 * operators and end-to-end tests showing that a router without events is still corrected by the shards' version
 * checks (events are hints, docs/architecture.md "Catalog events over Kafka and the outbox").
 */
@Component
@Endpoint(id = "catalogEvents")
public class CatalogEventsEndpoint {
    private static final String RUNNING = "running";
    private static final String STOPPED = "stopped";

    private final KafkaListenerEndpointRegistry listeners;

    public CatalogEventsEndpoint(KafkaListenerEndpointRegistry listeners) {
        this.listeners = listeners;
    }

    @ReadOperation
    public Map<String, String> state() {
        return Map.of("state", container().isRunning() ? RUNNING : STOPPED);
    }

    /**
     * Stops or starts the catalog event consumer; returns once it has.
     *
     * @throws InvalidEndpointRequestException (400) when {@code state} is neither "running" nor "stopped"
     */
    @WriteOperation
    public Map<String, String> setState(String state) {
        switch (state) {
            case RUNNING -> container().start();
            case STOPPED -> container().stop();
            default -> throw new InvalidEndpointRequestException("'state' must be \"running\" or \"stopped\", was \"" + state + "\"",
                    "bad state");
        }
        return state();
    }

    private MessageListenerContainer container() {
        // registered by CatalogEventListener's @KafkaListener, which every router has
        return Objects.requireNonNull(listeners.getListenerContainer(CatalogEventListener.LISTENER_ID),
                "no listener container " + CatalogEventListener.LISTENER_ID);
    }
}
