package dev.shardstore.resharding.coordinator;

import dev.shardstore.contracts.bson.BsonOrder;
import dev.shardstore.contracts.sharding.ChunkRange;
import dev.shardstore.contracts.sharding.ShardKeyPattern;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonDocument;

/**
 * The new key's initial chunks from a sample of the collection's documents (MongoDB's {@code ReshardingSplitPolicy}):
 * the donors return {@link #SAMPLES_PER_CHUNK} new-key values per wanted chunk (MongoDB's
 * {@code reshardingNumSamplesPerChunk}, 10), the sorted sample is cut at evenly spaced positions, and the chunks
 * between the cuts, from the key's global minimum to its maximum, go round-robin to the recipients in their order.
 * Equal cut values collapse, so a key with few distinct values gets fewer chunks than asked; an empty sample gives one
 * chunk. Pure; the caller passes keys as {@link ShardKeyPattern#extractKey} shapes them (a hashed field already hashed).
 */
public final class ReshardingSplitPolicy {
    /** Sampled keys per wanted chunk. */
    public static final int SAMPLES_PER_CHUNK = 10;

    private ReshardingSplitPolicy() {}

    /** How many chunks an operation asks for: its {@code numInitialChunks}, or one per recipient when that is 0 (the default). */
    public static int chunkCount(ReshardingRequest request, List<String> recipients) {
        return request.numInitialChunks() == 0 ? recipients.size() : request.numInitialChunks();
    }

    /**
     * The new chunks.
     *
     * @param key        the new shard key
     * @param samples    sampled new-key values, any order (copied, not changed)
     * @param chunks     the wanted number of chunks, at least 1
     * @param recipients the recipient shards, at least one, in the order chunks are dealt to them
     * @return chunks in key order covering {@code key}'s global minimum to maximum
     * @throws IllegalArgumentException when {@code chunks} is below 1 or there is no recipient
     */
    public static List<ReshardedChunk> split(ShardKeyPattern key, List<BsonDocument> samples, int chunks, List<String> recipients) {
        if (chunks < 1 || recipients.isEmpty()) {
            throw new IllegalArgumentException("a resharding needs at least one chunk and one recipient, not " + chunks + " and " + recipients);
        }
        List<BsonDocument> sorted = new ArrayList<>(samples);
        sorted.sort(BsonOrder::compare);
        List<BsonDocument> bounds = new ArrayList<>();
        bounds.add(key.globalMin());
        for (int i = 1; i < chunks && !sorted.isEmpty(); i++) {
            BsonDocument cut = sorted.get((int) ((long) i * sorted.size() / chunks));
            if (BsonOrder.compare(cut, bounds.getLast()) > 0) {
                bounds.add(cut);
            }
        }
        bounds.add(key.globalMax());
        List<ReshardedChunk> result = new ArrayList<>(bounds.size() - 1);
        for (int i = 0; i + 1 < bounds.size(); i++) {
            result.add(new ReshardedChunk(new ChunkRange(bounds.get(i), bounds.get(i + 1)), recipients.get(i % recipients.size())));
        }
        return List.copyOf(result);
    }
}
