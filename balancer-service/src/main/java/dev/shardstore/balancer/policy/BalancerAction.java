package dev.shardstore.balancer.policy;

import dev.shardstore.contracts.sharding.ChunkRange;
import dev.shardstore.contracts.sharding.ShardKeyPattern;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonTimestamp;
import org.bson.BsonString;
import org.bson.types.ObjectId;

/**
 * Something a round does: a split at zone boundaries, a merge of small contiguous chunks (MongoDB 7.0's auto-merger) or a
 * migration (mongo/src/mongo/db/s/README.md "What happens during a balancer round").
 */
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

    /**
     * Join the contiguous chunks {@code chunks} of {@code shard} (the auto-merger, MongoDB 7.0's {@code mergeAllChunksOnShard}),
     * as far as their data allows: the round asks the shard's {@code splitVector} for the points that cut the run into
     * pieces of at most {@code maxChunkSizeBytes} and merges only within those pieces ({@link #groupsWithin}), so a merged
     * chunk never holds more than the maximum chunk size (and auto-split does not undo it).
     *
     * @param keyPattern        the collection's shard key pattern (for {@code splitVector})
     * @param chunks            two or more contiguous chunk ranges, ascending (copied)
     * @param maxChunkSizeBytes the collection's maximum chunk size, positive
     * @param epoch             the collection's epoch, for the merge commit ({@code collEpoch})
     * @param timestamp         the epoch's timestamp ({@code collTimestamp})
     */
    record Merge(String namespace, String shard, ShardKeyPattern keyPattern, List<ChunkRange> chunks, long maxChunkSizeBytes,
            ObjectId epoch, BsonTimestamp timestamp) implements BalancerAction {
        public Merge {
            Objects.requireNonNull(namespace, "namespace");
            Objects.requireNonNull(shard, "shard");
            Objects.requireNonNull(keyPattern, "keyPattern");
            Objects.requireNonNull(epoch, "epoch");
            Objects.requireNonNull(timestamp, "timestamp");
            chunks = List.copyOf(chunks);
            if (chunks.size() < 2) {
                throw new IllegalArgumentException("a merge needs at least two chunks, got " + chunks.size());
            }
            for (int i = 1; i < chunks.size(); i++) {
                if (!chunks.get(i - 1).max().equals(chunks.get(i).min())) {
                    throw new IllegalArgumentException("chunks to merge must be contiguous: " + chunks.get(i - 1) + " then " + chunks.get(i));
                }
            }
            if (maxChunkSizeBytes <= 0) {
                throw new IllegalArgumentException("maxChunkSizeBytes must be positive, not " + maxChunkSizeBytes);
            }
        }

        /** The whole run {@code [first.min, last.max)}. */
        public ChunkRange range() {
            return new ChunkRange(chunks.getFirst().min(), chunks.getLast().max());
        }

        /**
         * The ranges to merge given {@code splitKeys}, the run's {@code splitVector} points (ascending, each cutting off about
         * {@code maxChunkSizeBytes}): consecutive chunks are grouped while no split key lies strictly inside the group, so
         * each group holds at most one piece's worth of data; groups of two or more chunks are returned, ascending.
         */
        public List<ChunkRange> groupsWithin(List<BsonDocument> splitKeys) {
            List<ChunkRange> groups = new ArrayList<>();
            int start = 0;
            for (int i = 1; i <= chunks.size(); i++) {
                boolean cut = i == chunks.size() || splitsInside(splitKeys, new ChunkRange(chunks.get(start).min(), chunks.get(i).max()));
                if (cut) {
                    if (i - start >= 2) {
                        groups.add(new ChunkRange(chunks.get(start).min(), chunks.get(i - 1).max()));
                    }
                    start = i;
                }
            }
            return groups;
        }

        private static boolean splitsInside(List<BsonDocument> splitKeys, ChunkRange group) {
            return splitKeys.stream().anyMatch(key -> ZoneRange.strictlyInside(key, group));
        }

        @Override
        public BsonDocument toBson() {
            return new BsonDocument("action", new BsonString("mergeChunks")).append("ns", new BsonString(namespace))
                    .append("shard", new BsonString(shard)).append("min", range().min()).append("max", range().max())
                    .append("chunks", new BsonInt32(chunks.size()));
        }
    }
}
