package dev.shardstore.balancer.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.balancer.policy.ClusterSnapshot;
import dev.shardstore.balancer.policy.CollectionState;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.sharding.Chunk;
import dev.shardstore.contracts.sharding.ChunkRange;
import dev.shardstore.contracts.sharding.ShardKeyPattern;
import dev.shardstore.contracts.sharding.ShardedCollection;
import dev.shardstore.contracts.version.ChunkVersion;
import dev.shardstore.support.testing.MutableClock;
import java.time.Instant;
import java.time.LocalTime;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonMaxKey;
import org.bson.BsonMinKey;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;

/** What a round's snapshot is read from: the catalog on the config service, the shards' owned bytes, and the clock. */
class ClusterStatisticsTest {
    private static final Instant NOW = Instant.parse("2026-01-01T12:30:00Z");
    private static final ShardedCollection COLLECTION = new ShardedCollection("geo.cities", UUID.randomUUID(), new ObjectId(),
            new BsonTimestamp(1_700_000_000, 1), ShardKeyPattern.of(new BsonDocument("x", new BsonInt32(1))), false, false);
    private static final ChunkRange WHOLE = new ChunkRange(new BsonDocument("x", new BsonMinKey()), new BsonDocument("x", new BsonMaxKey()));

    private final RecordingPeers peers = new RecordingPeers();
    private final ClusterStatistics statistics = new ClusterStatistics(peers, RecordingPeers.supportProperties(), MutableClock.at(NOW));

    @Test
    void aSnapshotIsTakenOnTheClockWithEachChunksTimeOnItsShard() {
        peers.shard("sh1", 7_000).store("shards", new BsonDocument("_id", new BsonString("sh2")).append("host", new BsonString("http://sh2.test")))
                .store("collections", COLLECTION.toBson())
                .store("chunks", new Chunk(WHOLE, "sh1", new ChunkVersion(1, 0, COLLECTION.epoch(), COLLECTION.timestamp())).toBson()
                        .append("uuid", new org.bson.BsonBinary(COLLECTION.uuid()))
                        .append("history", new BsonArray(List.of(new BsonDocument("validAfter", new BsonTimestamp(1_767_000_000, 3))
                                .append("shard", new BsonString("sh1"))))));

        ClusterSnapshot snapshot = statistics.snapshot();

        assertThat(snapshot.now()).isEqualTo(NOW);
        assertThat(snapshot.localTime()).as("the clock's zone is UTC").isEqualTo(LocalTime.of(12, 30));
        CollectionState collection = snapshot.collections().getFirst();
        assertThat(collection.chunks()).extracting(Chunk::shard).containsExactly("sh1");
        assertThat(collection.onCurrentShardSince()).isEqualTo(Map.of(WHOLE, Instant.ofEpochSecond(1_767_000_000)));
        assertThat(collection.dataSizeBytes()).as("sh2 does not answer: its size is left out").isEqualTo(Map.of("sh1", 7_000L));
    }

    /** Each shard sizes its whole collection to answer: the round asks them all at once, not one after another. */
    @Test
    void theShardsAreAskedForTheirDataSizesAtOnce() {
        peers.shard("sh1", 1).shard("sh2", 2).shard("sh3", 3).collection(COLLECTION,
                List.of(new Chunk(WHOLE, "sh1", new ChunkVersion(1, 0, COLLECTION.epoch(), COLLECTION.timestamp()))));
        CyclicBarrier allAsked = new CyclicBarrier(3);
        peers.answer("_shardsvrDataDistribution", command -> {
            try {
                allAsked.await(10, TimeUnit.SECONDS); // asked one at a time, the first would wait here for the others in vain
            } catch (InterruptedException | BrokenBarrierException | TimeoutException e) {
                throw new CommandException(ErrorCode.NetworkTimeout, "the shards were not asked at once: " + e);
            }
            return new BsonDocument("ok", new BsonInt32(1)).append("ownedSizeBytes", new org.bson.BsonInt64(allAsked.getParties()));
        });

        CollectionState collection = statistics.snapshot().collections().getFirst();

        assertThat(collection.dataSizeBytes()).isEqualTo(Map.of("sh1", 3L, "sh2", 3L, "sh3", 3L));
    }

    @Test
    void aMalformedSettingIsABadValueNamingIt() {
        peers.store("settings", new BsonDocument("_id", new BsonString("balancer")).append("mode", new BsonString("sideways")));

        assertThatThrownBy(statistics::snapshot).isInstanceOfSatisfying(CommandException.class, e -> {
            assertThat(e.code()).isEqualTo(ErrorCode.BadValue);
            assertThat(e.getMessage()).contains("config.settings");
        });
    }
}
