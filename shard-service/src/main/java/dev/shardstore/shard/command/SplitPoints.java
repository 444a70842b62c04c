package dev.shardstore.shard.command;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.bson.BsonDocument;

/**
 * Chooses split points over a sorted list of shard keys, as MongoDB's {@code splitVector} does: every returned
 * key is the key of a document in the list, strictly greater than the previous split point and than the first
 * key (so no chunk is empty and no split point is the range's minimum, MinKey included).
 */
final class SplitPoints {
    private SplitPoints() {
    }

    /**
     * One document's shard key.
     *
     * @param key      its KeyString
     * @param shardKey the key in pattern shape, hashed components as NumberLong
     * @param size     the document's BSON size in bytes
     */
    record KeyedSize(byte[] key, BsonDocument shardKey, int size) {
        KeyedSize {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(shardKey, "shardKey");
        }
    }

    /**
     * Split points so that each chunk holds about {@code maxChunkSizeBytes} of documents, counted as the average
     * document size times the number of documents: none when everything fits in one chunk.
     *
     * @param sorted the keys in key order
     */
    static List<BsonDocument> bySize(List<KeyedSize> sorted, long maxChunkSizeBytes) {
        if (sorted.isEmpty()) {
            return List.of();
        }
        long total = sorted.stream().mapToLong(KeyedSize::size).sum();
        if (total <= maxChunkSizeBytes) {
            return List.of();
        }
        long average = Math.max(1, total / sorted.size());
        int perChunk = (int) Math.clamp(maxChunkSizeBytes / average, 1, Integer.MAX_VALUE);
        List<BsonDocument> points = new ArrayList<>();
        byte[] last = sorted.getFirst().key();
        int i = perChunk;
        while (i < sorted.size()) {
            i = nextGreater(sorted, i, last);
            if (i >= sorted.size()) {
                break;
            }
            points.add(sorted.get(i).shardKey());
            last = sorted.get(i).key();
            i += perChunk;
        }
        return points;
    }

    /** The median key (the first key above the lowest at or after the middle); none with fewer than two distinct keys. */
    static List<BsonDocument> median(List<KeyedSize> sorted) {
        if (sorted.isEmpty()) {
            return List.of();
        }
        int i = nextGreater(sorted, sorted.size() / 2, sorted.getFirst().key());
        return i < sorted.size() ? List.of(sorted.get(i).shardKey()) : List.of();
    }

    /** The first index at or after {@code from} whose key is greater than {@code than}. */
    private static int nextGreater(List<KeyedSize> sorted, int from, byte[] than) {
        int i = from;
        while (i < sorted.size() && Arrays.compareUnsigned(sorted.get(i).key(), than) <= 0) {
            i++;
        }
        return i;
    }
}
