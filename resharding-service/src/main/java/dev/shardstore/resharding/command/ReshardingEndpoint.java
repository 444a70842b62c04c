package dev.shardstore.resharding.command;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.resharding.coordinator.ReshardingOperation;
import dev.shardstore.resharding.coordinator.ReshardingOperationStore;
import java.util.Map;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.Document;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.stereotype.Component;

/**
 * {@code /actuator/resharding}: {@code {operations: [...]}}, the state document of every operation that holds its
 * collection (any state but done; shaped as {@code config.reshardingOperations}), oldest first, as relaxed Extended JSON.
 */
@Component
@Endpoint(id = "resharding")
public class ReshardingEndpoint {
    private final ReshardingOperationStore store;

    public ReshardingEndpoint(ReshardingOperationStore store) {
        this.store = store;
    }

    @ReadOperation
    public Map<String, Object> operations() {
        BsonArray operations = new BsonArray(store.listActive().stream().map(ReshardingOperation::toBson).map(d -> (BsonValue) d).toList());
        return Map.of("operations", Document.parse(ExtendedJson.toJson(new BsonDocument("o", operations))).get("o"));
    }
}
