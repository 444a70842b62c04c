package dev.shardstore.router.profile;

import java.util.List;
import java.util.Map;
import org.bson.json.JsonMode;
import org.bson.json.JsonWriterSettings;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.stereotype.Component;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code GET /actuator/slowOperations}: {@code {slowms, sampleRate, operations: [SlowOperation, ...]}}, this router's
 * latest slow client commands, oldest first ({@link SlowOperation#toBson}).
 */
@Component
@Endpoint(id = "slowOperations")
public class SlowOperationsEndpoint {
    private static final JsonWriterSettings RELAXED = JsonWriterSettings.builder().outputMode(JsonMode.RELAXED).build();

    private final SlowOperationLog log;
    private final JsonMapper json;

    public SlowOperationsEndpoint(SlowOperationLog log, JsonMapper json) {
        this.log = log;
        this.json = json;
    }

    /** The settings and the kept operations, as plain maps for JSON. */
    @ReadOperation
    public Map<String, Object> operations() {
        List<Object> operations = log.recent().stream().map(op -> (Object) json.readValue(op.toBson().toJson(RELAXED), Map.class)).toList();
        return Map.of("slowms", log.slowMs(), "sampleRate", log.sampleRate(), "operations", operations);
    }
}
