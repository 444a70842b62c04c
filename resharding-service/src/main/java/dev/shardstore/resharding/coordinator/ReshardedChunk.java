package dev.shardstore.resharding.coordinator;

import dev.shardstore.contracts.sharding.ChunkRange;
import java.util.Objects;
import org.bson.BsonDocument;
import org.bson.BsonString;

/**
 * One chunk of the new shard key and the recipient it goes to (MongoDB's {@code ReshardedChunk}: {@code {recipientShardId,
 * min, max}}); the new chunks cover the new key's whole space.
 *
 * @param range     the chunk's bounds, in the new key's pattern shape
 * @param recipient the shard that receives the documents whose new key falls in {@code range}
 */
public record ReshardedChunk(ChunkRange range, String recipient) {
    public ReshardedChunk {
        Objects.requireNonNull(range, "range");
        if (Objects.requireNonNull(recipient, "recipient").isEmpty()) {
            throw new IllegalArgumentException("a resharded chunk needs a recipient shard");
        }
    }

    /** {@code {recipientShardId, min, max}}. */
    public BsonDocument toBson() {
        return new BsonDocument("recipientShardId", new BsonString(recipient)).append("min", range.min()).append("max", range.max());
    }

    /**
     * Reads {@link #toBson}'s shape.
     *
     * @throws IllegalArgumentException naming the malformed document
     */
    public static ReshardedChunk fromBson(BsonDocument doc) {
        try {
            return new ReshardedChunk(ChunkRange.fromBson(doc), doc.getString("recipientShardId").getValue());
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("malformed resharded chunk " + doc.toJson() + ": " + e.getMessage(), e);
        }
    }
}
