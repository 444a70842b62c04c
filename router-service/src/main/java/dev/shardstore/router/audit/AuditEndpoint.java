package dev.shardstore.router.audit;

import java.util.List;
import java.util.Map;
import org.bson.json.JsonMode;
import org.bson.json.JsonWriterSettings;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.stereotype.Component;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code GET /actuator/audit}: {@code {events: [AuditEvent, ...]}}, the router's latest audit events, oldest first, in
 * MongoDB's audit message shape ({@link AuditEvent#toBson}). Needs {@code clusterMonitor} when authorization is on, as
 * every Actuator endpoint but health.
 */
@Component
@Endpoint(id = "audit")
public class AuditEndpoint {
    private static final JsonWriterSettings RELAXED = JsonWriterSettings.builder().outputMode(JsonMode.RELAXED).build();

    private final AuditLog log;
    private final JsonMapper json;

    public AuditEndpoint(AuditLog log, JsonMapper json) {
        this.log = log;
        this.json = json;
    }

    /** The latest events, as plain maps for JSON. */
    @ReadOperation
    public Map<String, List<Object>> events() {
        return Map.of("events", log.recent().stream().map(event -> (Object) json.readValue(event.toBson().toJson(RELAXED), Map.class)).toList());
    }
}
