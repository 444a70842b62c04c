package dev.shardstore.config.catalog;

import dev.shardstore.contracts.version.VersionRules;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.sharding.Chunk;
import dev.shardstore.contracts.sharding.RoutingTable;
import dev.shardstore.contracts.sharding.ShardKeyPattern;
import dev.shardstore.contracts.sharding.ShardedCollection;
import dev.shardstore.contracts.version.ChunkVersion;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonMinKey;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;

class InitialChunksTest {
    private static final ObjectId EPOCH = new ObjectId();
    private static final BsonTimestamp TS = new BsonTimestamp(1_700_000_000, 1);
    private static final ShardKeyPattern HASHED = ShardKeyPattern.of(new BsonDocument("_id", ShardKeyPattern.hashedValue()));
    private static final ShardKeyPattern RANGED = ShardKeyPattern.of(new BsonDocument("x", new BsonInt32(1)));
    private static final List<String> SHARDS = List.of("s3", "s1", "s2");

    private static List<Chunk> compute(ShardKeyPattern key, long requested, boolean empty, List<BsonDocument> splitKeys) {
        List<Chunk> chunks = InitialChunks.compute(key, requested, SHARDS, "s2", empty, splitKeys, EPOCH, TS);
        // a valid routing table: covers the key space without gaps or overlaps
        RoutingTable.of(new ShardedCollection("db.c", UUID.randomUUID(), EPOCH, TS, key, false, false), chunks);
        return chunks;
    }

    private static long hashAt(Chunk c) {
        return c.range().min().getInt64("_id").getValue();
    }

    @Test
    void anEmptyHashedCollectionGetsTwoChunksPerShardRoundRobinOverTheShardsSortedById() {
        List<Chunk> chunks = compute(HASHED, 0, true, List.of());
        assertThat(chunks).hasSize(6);
        assertThat(chunks).extracting(Chunk::shard).containsExactly("s1", "s2", "s3", "s1", "s2", "s3");
        assertThat(chunks).extracting(Chunk::lastmod).containsExactlyElementsOf(VersionRules.shardCollection(6, EPOCH, TS));
    }

    @Test
    void hashedSplitPointsAreEvenlySpacedOverTheSignedHashSpace() {
        for (int count : new int[] {2, 5, 6, 7}) {
            List<Chunk> chunks = compute(HASHED, count, true, List.of());
            assertThat(chunks).hasSize(count);
            long interval = Long.MAX_VALUE / count * 2;
            List<Long> gaps = new ArrayList<>();
            for (int i = 2; i < chunks.size(); i++) {
                gaps.add(hashAt(chunks.get(i)) - hashAt(chunks.get(i - 1)));
            }
            assertThat(gaps).as("interior widths for %d chunks", count).allMatch(g -> g == interval);
            // symmetric around 0, as MongoDB's calculateHashedSplitPoints
            assertThat(hashAt(chunks.get(1))).isEqualTo(-hashAt(chunks.getLast()));
        }
    }

    @Test
    void aCompoundHashedPrefixGetsMinKeyForTheOtherFields() {
        ShardKeyPattern key = ShardKeyPattern.of(new BsonDocument("h", ShardKeyPattern.hashedValue()).append("b", new BsonInt32(1)));
        List<Chunk> chunks = compute(key, 4, true, List.of());
        assertThat(chunks.get(1).range().min().get("b")).isEqualTo(new BsonMinKey());
        assertThat(chunks.get(1).range().min().getInt64("h").getValue()).isLessThan(0);
    }

    @Test
    void otherwiseOneChunkPerSplitKeyAllOnThePrimaryInKeyOrder() {
        List<Chunk> chunks = compute(RANGED, 0, false, List.of(x(20), x(10), x(20)));
        assertThat(chunks).extracting(c -> c.range().min()).containsExactly(RANGED.globalMin(), x(10), x(20));
        assertThat(chunks).extracting(Chunk::shard).containsOnly("s2");
        assertThat(chunks.getLast().lastmod()).isEqualTo(new ChunkVersion(1, 2, EPOCH, TS));
        assertThat(compute(RANGED, 0, true, List.of())).hasSize(1);
        // a non-empty hashed collection also follows the primary's split keys
        assertThat(compute(HASHED, 0, false, List.of())).extracting(Chunk::shard).containsExactly("s2");
    }

    @Test
    void numInitialChunksIsRefusedWhereItDoesNotApplyOrIsTooLarge() {
        assertThatThrownBy(() -> compute(RANGED, 4, true, List.of())).isInstanceOfSatisfying(CommandException.class, e -> {
            assertThat(e.code()).isEqualTo(ErrorCode.InvalidOptions);
            assertThat(e.getMessage()).contains("numInitialChunks");
        });
        assertThatThrownBy(() -> compute(HASHED, 4, false, List.of())).isInstanceOfSatisfying(CommandException.class,
                e -> assertThat(e.getMessage()).contains("numInitialChunks"));
        assertThatThrownBy(() -> InitialChunks.checkRequested(HASHED, 8192 * 3 + 1, 3)).isInstanceOfSatisfying(CommandException.class, e -> {
            assertThat(e.code()).isEqualTo(ErrorCode.InvalidOptions);
            assertThat(e.getMessage()).contains("numInitialChunks");
        });
        InitialChunks.checkRequested(HASHED, 8192 * 3, 3);
    }

    @Test
    void aSplitKeyThatDoesNotMatchThePatternIsRefused() {
        assertThatThrownBy(() -> compute(RANGED, 0, false, List.of(new BsonDocument("y", new BsonString("a")))))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.BadValue));
    }

    private static BsonDocument x(int v) {
        return new BsonDocument("x", new BsonInt32(v));
    }
}
