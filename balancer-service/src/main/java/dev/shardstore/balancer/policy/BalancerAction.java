package dev.shardstore.balancer.policy;

import dev.shardstore.contracts.sharding.ChunkRange;
import java.util.List;
import java.util.Objects;
import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonString;

/** Something a round does: a split at zone boundaries or a migration (reference: "What happens during a balancer round"). */
public sealed interface BalancerAction {
    /** The collection acted on, {@code db.coll}. */
    String namespace();

    /** The action as a document for {@code balancerPlan}, the actuator endpoint and {@code config.actionlog}. */
    BsonDocument toBson();

    /**
     * Split {@code chunk} (owned by {@code shard}) at the zone boundaries inside it.
     *
     * @param splitPoints keys strictly inside the chunk, ascending, non-empty (copied)
     */
    record Split(String namespace, ChunkRange chunk, String shard, List<BsonDocument> splitPoints) implements BalancerAction {
        public Split {
            Objects.requireNonNull(namespace, "namespace");
            Objects.requireNonNull(chunk, "chunk");
            Objects.requireNonNull(shard, "shard");
            splitPoints = splitPoints.stream().map(BsonDocument::clone).toList();
            if (splitPoints.isEmpty()) {
                throw new IllegalArgumentException("a split needs at least one split point");
            }
        }

        @Override
        public BsonDocument toBson() {
            return new BsonDocument("action", new BsonString("split")).append("ns", new BsonString(namespace))
                    .append("min", chunk.min()).append("max", chunk.max()).append("shard", new BsonString(shard))
                    .append("splitPoints", new BsonArray(List.copyOf(splitPoints)));
        }
    }

    /**
     * Move a chunk from {@code from} to {@code to}. With {@code wholeChunk} false (the data-size policy's imbalance moves,
     * as MongoDB 6+), only {@code chunk.min} is sent and the donor cuts the range at half the maximum chunk size.
     *
     * @param forceJumbo the {@code attemptToBalanceJumboChunks} setting, passed as the move's {@code forceJumbo}
     */
    record Migration(String namespace, ChunkRange chunk, String from, String to, MigrationReason reason, boolean wholeChunk,
            boolean forceJumbo) implements BalancerAction {
        public Migration {
            Objects.requireNonNull(namespace, "namespace");
            Objects.requireNonNull(chunk, "chunk");
            Objects.requireNonNull(reason, "reason");
            if (Objects.requireNonNull(from, "from").equals(Objects.requireNonNull(to, "to"))) {
                throw new IllegalArgumentException("a migration needs two different shards, both are " + from);
            }
        }

        @Override
        public BsonDocument toBson() {
            BsonDocument doc = new BsonDocument("action", new BsonString("moveRange")).append("ns", new BsonString(namespace))
                    .append("min", chunk.min());
            if (wholeChunk) {
                doc.append("max", chunk.max());
            }
            return doc.append("fromShard", new BsonString(from)).append("toShard", new BsonString(to))
                    .append("reason", new BsonString(reason.value())).append("forceJumbo", BsonBoolean.valueOf(forceJumbo));
        }
    }
}
