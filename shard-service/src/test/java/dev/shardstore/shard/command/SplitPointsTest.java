package dev.shardstore.shard.command;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.sharding.ShardKeyPattern;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.junit.jupiter.api.Test;

class SplitPointsTest {
    private static final ShardKeyPattern KEY = ShardKeyPattern.of(new BsonDocument("x", new BsonInt32(1)));

    @Test
    void bySizeCutsEveryNDocumentsAndSkipsRepeatedKeys() {
        assertThat(values(SplitPoints.bySize(keys(1, 1, 1, 1, 2, 2, 3), 100, 200))).containsExactly(2, 3);
        assertThat(values(SplitPoints.bySize(keys(1, 1, 1, 1, 2, 2, 3), 100, 700))).as("everything fits in one chunk").isEmpty();
        assertThat(values(SplitPoints.bySize(keys(1, 2, 3, 4, 5), 100, 100))).containsExactly(2, 3, 4, 5);
        assertThat(values(SplitPoints.bySize(keys(7, 7, 7, 7), 100, 100))).as("one distinct key cannot be split").isEmpty();
        assertThat(values(SplitPoints.bySize(keys(1, 2, 3), 1000, 10))).as("a document larger than a chunk").containsExactly(2, 3);
    }

    @Test
    void medianIsTheMiddleKeyAboveTheLowest() {
        assertThat(values(SplitPoints.median(keys(1, 2, 3, 4, 5)))).containsExactly(3);
        assertThat(values(SplitPoints.median(keys(1, 1, 1, 1, 2)))).containsExactly(2);
        assertThat(values(SplitPoints.median(keys(4, 4)))).isEmpty();
        assertThat(values(SplitPoints.median(keys()))).isEmpty();
    }

    /** The documents with shard keys {x: value}, in key order. */
    private static SplitPoints.Cursor keys(int... values) {
        return new ListCursor(Arrays.stream(values).sorted().mapToObj(v -> {
            BsonDocument key = new BsonDocument("x", new BsonInt32(v));
            return new SplitPoints.Key(KEY.encode(key), key);
        }).toList());
    }

    private static List<Integer> values(List<BsonDocument> keys) {
        return keys.stream().map(k -> k.getInt32("x").getValue()).toList();
    }

    /** A walk over keys held in a sorted list. */
    static final class ListCursor implements SplitPoints.Cursor {
        private final List<SplitPoints.Key> sorted;
        private int position = -1;

        ListCursor(List<SplitPoints.Key> sorted) {
            this.sorted = sorted;
        }

        @Override
        public long count() {
            return sorted.size();
        }

        @Override
        public Optional<SplitPoints.Key> advance(long steps) {
            position = (int) Math.min(sorted.size(), Math.max(position, 0) + steps);
            return current();
        }

        @Override
        public Optional<SplitPoints.Key> skipPast(byte[] key) {
            position = Math.max(position, 0);
            while (position < sorted.size() && Arrays.compareUnsigned(sorted.get(position).key(), key) <= 0) {
                position++;
            }
            return current();
        }

        private Optional<SplitPoints.Key> current() {
            return position < sorted.size() ? Optional.of(sorted.get(position)) : Optional.empty();
        }
    }
}
