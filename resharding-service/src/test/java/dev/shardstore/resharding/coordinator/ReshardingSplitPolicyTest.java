package dev.shardstore.resharding.coordinator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.sharding.ShardKeyPattern;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;

/** The new chunks from a sample: cut at even positions of the sorted sample, covering the key space, dealt round-robin. */
class ReshardingSplitPolicyTest {
    private static final ShardKeyPattern KEY = ShardKeyPattern.of(BsonDocument.parse("{country: 1, name: 1}"));

    @Test
    void aSampleIsCutIntoTheWantedChunksCoveringTheKeySpaceDealtRoundRobin() {
        List<BsonDocument> samples = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            samples.add(BsonDocument.parse("{country: 'C" + (char) ('A' + i % 4) + "', name: 'n" + (10 + i) + "'}"));
        }
        Collections.shuffle(samples, new Random(7));

        List<ReshardedChunk> chunks = ReshardingSplitPolicy.split(KEY, samples, 4, List.of("shard1", "shard2", "shard3"));

        assertThat(chunks).hasSize(4);
        assertThat(chunks.getFirst().range().min()).isEqualTo(KEY.globalMin());
        assertThat(chunks.getLast().range().max()).isEqualTo(KEY.globalMax());
        for (int i = 1; i < chunks.size(); i++) {
            assertThat(chunks.get(i).range().min()).as("contiguous").isEqualTo(chunks.get(i - 1).range().max());
        }
        assertThat(chunks.stream().skip(1).map(c -> c.range().min().getString("country").getValue()).toList())
                .as("each cut starts a country: 10 samples each").containsExactly("CB", "CC", "CD");
        assertThat(chunks).extracting(ReshardedChunk::recipient).containsExactly("shard1", "shard2", "shard3", "shard1");
    }

    @Test
    void equalCutsCollapseAndAnEmptySampleGivesOneChunk() {
        List<BsonDocument> samples = Collections.nCopies(20, BsonDocument.parse("{country: 'FR', name: 'Paris'}"));
        assertThat(ReshardingSplitPolicy.split(KEY, samples, 5, List.of("a", "b"))).hasSize(2);
        assertThat(ReshardingSplitPolicy.split(KEY, List.of(), 3, List.of("a"))).singleElement()
                .satisfies(c -> assertThat(c.range().min()).isEqualTo(KEY.globalMin()));
        assertThatThrownBy(() -> ReshardingSplitPolicy.split(KEY, samples, 0, List.of("a"))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theChunksSurviveTheStateDocument() {
        ReshardedChunk chunk = ReshardingSplitPolicy.split(KEY, List.of(), 1, List.of("shard2")).getFirst();
        assertThat(ReshardedChunk.fromBson(chunk.toBson())).isEqualTo(chunk);
    }
}
