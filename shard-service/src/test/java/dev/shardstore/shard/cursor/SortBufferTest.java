package dev.shardstore.shard.cursor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.engine.query.Sort;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.junit.jupiter.api.Test;

class SortBufferTest {
    private static final Sort BY_K = Sort.parse(BsonDocument.parse("{k: 1}"));

    @Test
    void keepsOnlyTheBestWhenLimitedAndTiesKeepArrivalOrder() {
        SortBuffer buffer = new SortBuffer(BY_K.comparator(), 3, 1000);
        for (int i = 0; i < 10; i++) {
            buffer.add(doc(i, 9 - i), 100);
        }
        buffer.add(doc(100, 1), 100);

        assertThat(buffer.drainSorted()).extracting(d -> d.getInt32("_id").getValue()).containsExactly(9, 8, 100);
    }

    @Test
    void failsWhenRetainedDocumentsExceedTheLimit() {
        SortBuffer buffer = new SortBuffer(BY_K.comparator(), Long.MAX_VALUE, 250);
        buffer.add(doc(1, 1), 100);
        buffer.add(doc(2, 2), 100);

        assertThatThrownBy(() -> buffer.add(doc(3, 3), 100)).isInstanceOfSatisfying(CommandException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.QueryExceededMemoryLimitNoDiskUseAllowed));
    }

    @Test
    void topKCountsOnlyWhatItKeeps() {
        SortBuffer buffer = new SortBuffer(BY_K.comparator(), 2, 250);
        for (int i = 0; i < 50; i++) {
            buffer.add(doc(i, i), 100);
        }
        assertThat(buffer.drainSorted()).hasSize(2);
        assertThat(buffer.drainSorted()).isEqualTo(List.of());
    }

    private static BsonDocument doc(int id, int k) {
        return new BsonDocument("_id", new BsonInt32(id)).append("k", new BsonInt32(k));
    }
}
