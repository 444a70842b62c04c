package dev.shardstore.contracts.sharding;

import dev.shardstore.contracts.keystring.KeyString;
import java.util.Arrays;
import java.util.Objects;

/**
 * A shard key range {@code [min, max)} as KeyStrings: what a chunk range covers once its bounds are encoded
 * ({@link #of}), and what storage compares a stored shard key with (unsigned byte order is key order;
 * docs/architecture.md "Documents, BSON order and keys"). Migration, range deletion and the oplog's filter by range read it, and so does the count of orphans.
 *
 * @param min inclusive lower bound (copied)
 * @param max exclusive upper bound (copied), above {@code min} in unsigned byte order
 */
public record KeyRange(byte[] min, byte[] max) {
    /** @throws IllegalArgumentException when {@code max} is not above {@code min} */
    public KeyRange {
        min = Objects.requireNonNull(min, "min").clone();
        max = Objects.requireNonNull(max, "max").clone();
        if (Arrays.compareUnsigned(min, max) >= 0) {
            throw new IllegalArgumentException("a key range needs min < max");
        }
    }

    /**
     * The KeyString range of {@code range}'s bounds under {@code pattern}. A range that ends at the key space's top
     * ({@link ShardKeyPattern#isGlobalMax}) is {@link #toTop}: moving or cleaning up the last chunk must reach a shard
     * key of MaxKey too. Ending at the encoded MaxKey left such documents behind on a migration's donor, where nothing
     * owned them any more.
     */
    public static KeyRange of(ShardKeyPattern pattern, ChunkRange range) {
        byte[] min = pattern.encode(range.min());
        return pattern.isGlobalMax(range.max()) ? toTop(min) : new KeyRange(min, pattern.encode(range.max()));
    }

    /**
     * {@code [min, top of the key space]}, ending at {@link KeyString#aboveEveryKey()} rather than at the encoded MaxKey:
     * the last chunk owns a shard key of MaxKey too ({@link RoutingTable#findChunk}; MongoDB accepts such documents), so
     * the range that reaches it must hold that key.
     */
    public static KeyRange toTop(byte[] min) {
        return new KeyRange(min, KeyString.aboveEveryKey());
    }

    /** Whether the encoded shard key {@code key} is in the range. */
    public boolean contains(byte[] key) {
        return Arrays.compareUnsigned(key, min) >= 0 && Arrays.compareUnsigned(key, max) < 0;
    }

    @Override
    public byte[] min() {
        return min.clone();
    }

    @Override
    public byte[] max() {
        return max.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof KeyRange r && Arrays.equals(min, r.min) && Arrays.equals(max, r.max);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(min) + Arrays.hashCode(max);
    }

    @Override
    public String toString() {
        return "KeyRange[" + Arrays.toString(min) + ", " + Arrays.toString(max) + ")";
    }
}
