package dev.shardstore.shard.command;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.sharding.ShardKeyPattern;
import java.util.Arrays;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.junit.jupiter.api.Test;

class SplitPointsTest {
    private static final ShardKeyPattern KEY = ShardKeyPattern.of(new BsonDocument("x", new BsonInt32(1)));

    @Test
    void bySizeCutsEveryNDocumentsAndSkipsRepeatedKeys() {
        List<SplitPoints.KeyedSize> keys = keys(1, 1, 1, 1, 2, 2, 3);

        assertThat(values(SplitPoints.bySize(keys, 200))).containsExactly(2, 3);
        assertThat(values(SplitPoints.bySize(keys, 700))).as("everything fits in one chunk").isEmpty();
        assertThat(values(SplitPoints.bySize(keys(1, 2, 3, 4, 5), 100))).containsExactly(2, 3, 4, 5);
        assertThat(values(SplitPoints.bySize(keys(7, 7, 7, 7), 100))).as("one distinct key cannot be split").isEmpty();
    }

    @Test
    void medianIsTheMiddleKeyAboveTheLowest() {
        assertThat(values(SplitPoints.median(keys(1, 2, 3, 4, 5)))).containsExactly(3);
        assertThat(values(SplitPoints.median(keys(1, 1, 1, 1, 2)))).containsExactly(2);
        assertThat(values(SplitPoints.median(keys(4, 4)))).isEmpty();
        assertThat(values(SplitPoints.median(List.of()))).isEmpty();
    }

    /** Documents of 100 bytes with shard key {x: value}, sorted. */
    private static List<SplitPoints.KeyedSize> keys(int... values) {
        return Arrays.stream(values).sorted().mapToObj(v -> {
            BsonDocument key = new BsonDocument("x", new BsonInt32(v));
            return new SplitPoints.KeyedSize(KEY.encode(key), key, 100);
        }).toList();
    }

    private static List<Integer> values(List<BsonDocument> keys) {
        return keys.stream().map(k -> k.getInt32("x").getValue()).toList();
    }
}
