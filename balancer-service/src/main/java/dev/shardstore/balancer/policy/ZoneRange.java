package dev.shardstore.balancer.policy;

import dev.shardstore.contracts.bson.BsonOrder;
import dev.shardstore.contracts.sharding.ChunkRange;
import java.util.Objects;
import org.bson.BsonDocument;

/**
 * One {@code config.tags} entry: the key range {@code [min, max)} of a collection pinned to the shards of a zone
 * (mongo/src/mongo/db/s/README.md "Auto-balancing", DistributionStatus's zone ranges).
 *
 * @param zone  the zone's name (non-empty)
 * @param range the shard key range, bounds in pattern shape
 */
public record ZoneRange(String zone, ChunkRange range) {
    /** The name the policy gives to keys outside every zone range (MongoDB's {@code kNoZoneName}). */
    public static final String NO_ZONE = "";

    public ZoneRange {
        if (Objects.requireNonNull(zone, "zone").isEmpty()) {
            throw new IllegalArgumentException("zone name must not be empty");
        }
        Objects.requireNonNull(range, "range");
    }

    /** Whether {@code chunk} lies entirely inside this range. */
    public boolean contains(ChunkRange chunk) {
        return BsonOrder.compare(range.min(), chunk.min()) <= 0 && BsonOrder.compare(chunk.max(), range.max()) <= 0;
    }

    /** Whether {@code key} is strictly inside {@code chunk}, so that a chunk boundary is needed there. */
    static boolean strictlyInside(BsonDocument key, ChunkRange chunk) {
        return BsonOrder.compare(chunk.min(), key) < 0 && BsonOrder.compare(key, chunk.max()) < 0;
    }
}
