package dev.shardstore.contracts.sharding;

import static dev.shardstore.contracts.sharding.ShardingFixtures.X_KEY;
import static dev.shardstore.contracts.sharding.ShardingFixtures.x;
import static dev.shardstore.contracts.sharding.ShardingFixtures.xMax;
import static dev.shardstore.contracts.sharding.ShardingFixtures.xMin;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.keystring.KeyString;
import org.junit.jupiter.api.Test;

/** A KeyString range: its bounds are checked and copied, and it holds its min but not its max. */
class KeyRangeTest {
    private static final ShardKeyPattern KEY = ShardingFixtures.collection(X_KEY).key();

    @Test
    void ofEncodesAChunkRangeAndContainsItsMinButNotItsMax() {
        KeyRange range = KeyRange.of(KEY, new ChunkRange(x(0), x(100)));
        assertThat(range.contains(KEY.encode(x(0)))).isTrue();
        assertThat(range.contains(KEY.encode(x(99)))).isTrue();
        assertThat(range.contains(KEY.encode(x(100)))).isFalse();
        assertThat(range.contains(KEY.encode(x(-1)))).isFalse();
        assertThat(range).isEqualTo(KeyRange.of(KEY, new ChunkRange(x(0), x(100)))).hasSameHashCodeAs(KeyRange.of(KEY, new ChunkRange(x(0), x(100))));
        assertThat(KeyRange.of(KEY, new ChunkRange(xMin(), xMax())).contains(KEY.encode(x(Long.MAX_VALUE)))).isTrue();
    }

    /** The last chunk owns MaxKey ({@link RoutingTable#findChunk}), so its range holds it; any other range ends before its max. */
    @Test
    void aRangeEndingAtTheTopHoldsMaxKey() {
        RoutingTable table = RoutingTable.of(ShardingFixtures.collection(X_KEY), java.util.List.of(
                ShardingFixtures.chunk(xMin(), x(100), "A", ShardingFixtures.version(1, 0)),
                ShardingFixtures.chunk(x(100), xMax(), "B", ShardingFixtures.version(1, 1))));
        byte[] maxKey = KEY.encode(xMax());
        for (Chunk chunk : table.chunks()) {
            assertThat(KeyRange.of(KEY, chunk.range()).contains(maxKey)).as(chunk.toString()).isEqualTo(table.findChunk(maxKey).equals(chunk));
        }
        assertThat(KeyRange.of(KEY, new ChunkRange(x(100), xMax())).max()).isEqualTo(KeyString.aboveEveryKey());
        assertThat(KeyRange.of(KEY, new ChunkRange(xMin(), x(100))).contains(KEY.encode(x(100)))).isFalse();
    }

    @Test
    void refusesAnEmptyOrInvertedRangeAndKeepsItsOwnCopies() {
        byte[] low = KEY.encode(x(1));
        byte[] high = KEY.encode(x(2));
        assertThatThrownBy(() -> new KeyRange(high, low)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("min < max");
        assertThatThrownBy(() -> new KeyRange(low, low.clone())).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new KeyRange(null, high)).isInstanceOf(NullPointerException.class).hasMessageContaining("min");

        KeyRange range = new KeyRange(low, high);
        low[low.length - 1]++;
        range.max()[0] = 0;
        assertThat(range.min()).isEqualTo(KEY.encode(x(1)));
        assertThat(range.max()).isEqualTo(KEY.encode(x(2)));
    }
}
