package dev.shardstore.contracts.sharding;

import java.util.List;
import java.util.Objects;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonTimestamp;

/**
 * One entry of a chunk's placement history ({@code config.chunks.history}; mongo/src/mongo/db/s/README.md "The
 * historical routing table"): the chunk is on {@code shard} from cluster time {@code validAfter} on, until the next
 * newer entry's time. BSON shape: {@code {validAfter: Timestamp, shard: "<id>"}}.
 *
 * @param validAfter the cluster time of the commit that placed the chunk there
 * @param shard      the owning shard's id
 */
public record ChunkHistory(BsonTimestamp validAfter, String shard) {
    public ChunkHistory {
        Objects.requireNonNull(validAfter, "validAfter");
        if (Objects.requireNonNull(shard, "shard").isEmpty()) {
            throw new IllegalArgumentException("shard must not be empty");
        }
    }

    public BsonDocument toBson() {
        return new BsonDocument("validAfter", validAfter).append("shard", new BsonString(shard));
    }

    /**
     * Reads {@link #toBson()}'s shape.
     *
     * @throws org.bson.BsonInvalidOperationException when a field is missing or of another type
     */
    public static ChunkHistory fromBson(BsonDocument doc) {
        return new ChunkHistory(doc.getTimestamp("validAfter"), doc.getString("shard").getValue());
    }

    /** A whole history as {@code config.chunks} stores it: an array of {@link #toBson()}'s shape, in the list's order. */
    public static BsonArray toBson(List<ChunkHistory> history) {
        return new BsonArray(history.stream().map(ChunkHistory::toBson).toList());
    }

    /**
     * Reads {@link #toBson(List)}'s shape.
     *
     * @throws org.bson.BsonInvalidOperationException when an entry is not a document of {@link #toBson()}'s shape
     */
    public static List<ChunkHistory> listFromBson(BsonArray history) {
        return history.stream().map(h -> fromBson(h.asDocument())).toList();
    }
}
