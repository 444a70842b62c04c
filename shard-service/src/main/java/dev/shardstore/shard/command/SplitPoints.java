package dev.shardstore.shard.command;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.bson.BsonDocument;

/**
 * Chooses split points while walking a key range in shard key order, as MongoDB's {@code splitVector} does:
 * every returned key is the key of a document in the range, strictly greater than the previous split point and
 * than the range's first key (so no chunk is empty and no split point is the range's minimum, MinKey included).
 */
final class SplitPoints {
    private SplitPoints() {
    }

    /**
     * One document's shard key.
     *
     * @param key      its KeyString
     * @param shardKey the key in pattern shape, hashed components as NumberLong
     */
    record Key(byte[] key, BsonDocument shardKey) {
        Key {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(shardKey, "shardKey");
        }
    }

    /** A forward walk over the documents of a key range in shard key order (ShardKeyIndexCursor walks an index). */
    interface Cursor {
        /** The number of documents in the range. */
        long count();

        /**
         * Moves {@code steps} documents ahead (the first call: from the range's first document, so 0 is that one).
         *
         * @return the key of the document reached; empty past the range's end
         */
        Optional<Key> advance(long steps);

        /**
         * Moves to the first document whose key is greater than {@code key}.
         *
         * @return its key; empty when there is none in the range
         */
        Optional<Key> skipPast(byte[] key);
    }

    /**
     * Split points so that each chunk holds about {@code maxChunkSizeBytes}, counting every document as
     * {@code averageSize} bytes (MongoDB's avgObjSize): a point every {@code maxChunkSizeBytes / averageSize}
     * documents, none when the whole range fits in one chunk.
     */
    static List<BsonDocument> bySize(Cursor range, long averageSize, long maxChunkSizeBytes) {
        // count × average ≤ maxChunkSizeBytes ⇔ count ≤ ⌊maxChunkSizeBytes / average⌋, without overflow
        long perChunk = maxChunkSizeBytes / Math.max(1, averageSize);
        if (range.count() <= perChunk) {
            return List.of();
        }
        perChunk = Math.max(1, perChunk);
        List<BsonDocument> points = new ArrayList<>();
        Optional<Key> first = range.advance(0);
        if (first.isEmpty()) {
            return points;
        }
        byte[] last = first.get().key();
        Optional<Key> next = range.advance(perChunk);
        while (next.isPresent()) {
            if (Arrays.compareUnsigned(next.get().key(), last) <= 0) {
                next = range.skipPast(last);
                if (next.isEmpty()) {
                    break;
                }
            }
            points.add(next.get().shardKey());
            last = next.get().key();
            next = range.advance(perChunk);
        }
        return points;
    }

    /** The median key (the first key above the lowest at or after the middle); none with fewer than two distinct keys. */
    static List<BsonDocument> median(Cursor range) {
        long count = range.count();
        Optional<Key> first = range.advance(0);
        if (count == 0 || first.isEmpty()) {
            return List.of();
        }
        Optional<Key> middle = range.advance(count / 2);
        if (middle.isPresent() && Arrays.compareUnsigned(middle.get().key(), first.get().key()) <= 0) {
            middle = range.skipPast(first.get().key());
        }
        return middle.map(k -> List.of(k.shardKey())).orElse(List.of());
    }
}
