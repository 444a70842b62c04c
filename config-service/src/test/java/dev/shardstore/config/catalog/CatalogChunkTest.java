package dev.shardstore.config.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.sharding.Chunk;
import dev.shardstore.contracts.sharding.ChunkHistory;
import dev.shardstore.contracts.sharding.ChunkRange;
import dev.shardstore.contracts.sharding.ShardKeyPattern;
import dev.shardstore.contracts.version.ChunkVersion;
import java.time.Duration;
import java.util.UUID;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonTimestamp;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;

/** A chunk's placement history across moves: prepended, trimmed to the window, carried in its BSON. */
class CatalogChunkTest {
    private static final ShardKeyPattern KEY = ShardKeyPattern.of(new BsonDocument("x", new BsonInt32(1)));
    private static final ObjectId EPOCH = new ObjectId();
    private static final BsonTimestamp CREATED = new BsonTimestamp(1_000, 1);
    private static final Duration WINDOW = Duration.ofSeconds(300);

    private static ChunkVersion v(int major) {
        return new ChunkVersion(major, 0, EPOCH, CREATED);
    }

    private static BsonTimestamp at(int seconds) {
        return new BsonTimestamp(seconds, 1);
    }

    @Test
    void eachMoveIsPrependedAndEntriesNoReadInTheWindowNeedsAreDropped() {
        CatalogChunk chunk = CatalogChunk.placed(UUID.randomUUID(), new ChunkRange(KEY.globalMin(), KEY.globalMax()), "A", v(1), CREATED);
        CatalogChunk once = chunk.movedTo("B", v(2), at(1_100), WINDOW);
        assertThat(once.history()).containsExactly(new ChunkHistory(at(1_100), "B"), new ChunkHistory(CREATED, "A"));
        assertThat(once.shard()).isEqualTo("B");

        CatalogChunk twice = once.movedTo("C", v(3), at(1_350), WINDOW);
        assertThat(twice.history()).as("a read at 1,050 (in the window) still needs A's entry")
                .containsExactly(new ChunkHistory(at(1_350), "C"), new ChunkHistory(at(1_100), "B"), new ChunkHistory(CREATED, "A"));

        CatalogChunk thrice = twice.movedTo("A", v(4), at(1_500), WINDOW);
        assertThat(thrice.history()).as("reads reach back to 1,200 only: A's first entry ended at 1,100")
                .containsExactly(new ChunkHistory(at(1_500), "A"), new ChunkHistory(at(1_350), "C"), new ChunkHistory(at(1_100), "B"));

        CatalogChunk late = thrice.movedTo("B", v(5), at(100_000), WINDOW);
        assertThat(late.history()).as("a read at 99,700 still needs the placement the move ended; older ones go")
                .containsExactly(new ChunkHistory(at(100_000), "B"), new ChunkHistory(at(1_500), "A"));
        assertThat(Chunk.fromBson(late.toBson())).isEqualTo(late.chunk());
    }

    @Test
    void aCatalogChunkMustHaveAHistory() {
        assertThatThrownBy(() -> new CatalogChunk(new ObjectId(), UUID.randomUUID(), new Chunk(new ChunkRange(KEY.globalMin(), KEY.globalMax()), "A", v(1))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("placement history");
    }
}
