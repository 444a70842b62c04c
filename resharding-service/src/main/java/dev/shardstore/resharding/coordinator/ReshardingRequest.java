package dev.shardstore.resharding.coordinator;

import dev.shardstore.contracts.namespace.Namespace;
import java.util.Objects;
import org.bson.BsonDocument;

/**
 * What a {@code reshardCollection} asks for (MongoDB's command fields, those this version implements): a retried
 * command with an equal request joins the running operation or gets its outcome, any other is refused while it runs.
 *
 * @param namespace           the sharded collection
 * @param key                 the new shard key pattern, as given ({@code {country: 1, name: 1}}, {@code {_id: "hashed"}})
 * @param numInitialChunks    how many chunks the new key starts with; 0 for MongoDB's default, one per recipient shard
 * @param forceRedistribution whether to reshard although {@code key} is the current key (to spread onto other shards)
 */
public record ReshardingRequest(Namespace namespace, BsonDocument key, int numInitialChunks, boolean forceRedistribution) {
    public ReshardingRequest {
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(key, "key");
        if (key.isEmpty()) {
            throw new IllegalArgumentException("the new shard key must name at least one field");
        }
        if (numInitialChunks < 0) {
            throw new IllegalArgumentException("numInitialChunks must not be negative, not " + numInitialChunks);
        }
        key = key.clone();
    }

    @Override
    public BsonDocument key() {
        return key.clone();
    }
}
