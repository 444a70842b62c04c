package dev.shardstore.contracts.sharding;

import static dev.shardstore.contracts.sharding.ShardingFixtures.X_KEY;
import static dev.shardstore.contracts.sharding.ShardingFixtures.version;
import static dev.shardstore.contracts.sharding.ShardingFixtures.x;
import static dev.shardstore.contracts.sharding.ShardingFixtures.xMax;
import static dev.shardstore.contracts.sharding.ShardingFixtures.xMin;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.version.ChunkVersion;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.Test;

/**
 * The historical routing table (mongo/src/mongo/db/s/README.md "The historical routing table"; docs/architecture.md
 * "The historical routing table"): the placement at a past cluster time from the chunks' histories, today's versions
 * kept, StaleChunkHistory before the history starts, and whether a shard's placement changed since a time.
 */
class HistoricalRoutingTableTest {
    private static final ShardedCollection COLL = ShardingFixtures.collection(X_KEY);

    private static BsonTimestamp t(int seconds) {
        return new BsonTimestamp(seconds, 1);
    }

    private static ChunkHistory on(String shard, int seconds) {
        return new ChunkHistory(t(seconds), shard);
    }

    // sharded at 10 on A; [0, 100) moved to B at 20; [100, MaxKey) moved to B at 30 and back to A at 40
    private static final Chunk LOW = new Chunk(new ChunkRange(xMin(), x(0)), "A", version(1, 0), false, List.of(on("A", 10)));
    private static final Chunk MOVED = new Chunk(new ChunkRange(x(0), x(100)), "B", version(2, 0), false, List.of(on("B", 20), on("A", 10)));
    private static final Chunk BACK = new Chunk(new ChunkRange(x(100), xMax()), "A", version(3, 0), false,
            List.of(on("A", 40), on("B", 30), on("A", 10)));
    private static final RoutingTable TABLE = RoutingTable.of(COLL, List.of(LOW, MOVED, BACK));

    @Test
    void theChunksAreOnTheShardsThatOwnedThemAtTheTimeWithTodaysVersions() {
        RoutingTable at15 = TABLE.atClusterTime(t(15));
        assertThat(at15.chunks()).extracting(Chunk::shard).containsExactly("A", "A", "A");
        assertThat(at15.shards()).containsExactly("A");
        assertThat(at15.shardVersion("B")).as("the version a request is checked against is today's").isEqualTo(TABLE.shardVersion("B"));
        assertThat(at15.collectionVersion()).isEqualTo(TABLE.collectionVersion());
        assertThat(at15.owns("A", COLL.key().encode(x(50)))).isTrue();

        RoutingTable at35 = TABLE.atClusterTime(t(35));
        assertThat(at35.chunks()).extracting(Chunk::shard).containsExactly("A", "B", "B");
        assertThat(at35.shards()).containsExactly("A", "B");
        assertThat(at35.unowned("A")).hasSize(1);
        assertThat(at35.chunks().get(2).history()).as("the history from the entry valid then").containsExactly(on("B", 30), on("A", 10));
    }

    @Test
    void aTimeAtOrAfterTheNewestPlacementIsTodaysTable() {
        assertThat(TABLE.atClusterTime(t(40))).isSameAs(TABLE);
        assertThat(TABLE.atClusterTime(t(99))).isSameAs(TABLE);
        RoutingTable at35 = TABLE.atClusterTime(t(35));
        assertThat(at35.atClusterTime(t(35))).isSameAs(at35);
        assertThat(TABLE.atClusterTime(t(35))).as("the same time again: derived once").isSameAs(at35);
        assertThat(TABLE.atClusterTime(t(15))).as("another time: derived anew").isNotSameAs(at35);
        assertThatThrownBy(() -> at35.atClusterTime(t(36))).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> at35.withChanges(List.of(LOW))).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aTimeBeforeTheHistoryStartsIsStaleChunkHistory() {
        assertThatThrownBy(() -> TABLE.atClusterTime(t(5)))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.StaleChunkHistory))
                .hasMessageContaining("at cluster time");
    }

    @Test
    void chunksWithoutHistoryAreTakenAsAlwaysOnTheirShard() {
        RoutingTable unknown = RoutingTable.of(COLL, List.of(new Chunk(new ChunkRange(xMin(), xMax()), "A", version(1, 0))));
        assertThat(unknown.atClusterTime(t(1))).isSameAs(unknown);
        assertThat(unknown.placementChangedSince("A", t(1))).isFalse();
    }

    @Test
    void placementChangedSinceNamesTheShardsThatGainedOrLostAChunk() {
        assertThat(TABLE.placementChangedSince("A", t(15))).isTrue();
        assertThat(TABLE.placementChangedSince("B", t(15))).isTrue();
        assertThat(TABLE.placementChangedSince("C", t(15))).isFalse();
        assertThat(TABLE.placementChangedSince("A", t(40))).isFalse();
        assertThat(TABLE.placementChangedSince("B", t(25))).as("B gained [100, MaxKey) at 30 and lost it at 40: the same chunks").isFalse();
        assertThat(TABLE.placementChangedSince("B", t(35))).as("B lost [100, MaxKey) at 40").isTrue();
        assertThat(TABLE.placementChangedSince("A", t(5))).as("no history back to 5: cannot say").isTrue();
    }

    @Test
    void anIncrementalRefreshKeepsTheHistoryOfTheChangedChunks() {
        Chunk movedAgain = new Chunk(MOVED.range(), "C", version(4, 0), false, List.of(on("C", 50), on("B", 20), on("A", 10)));
        Chunk control = new Chunk(BACK.range(), "A", version(4, 1), false, BACK.history());
        RoutingTable refreshed = TABLE.withChanges(List.of(movedAgain, control));
        assertThat(refreshed.atClusterTime(t(45)).chunks()).extracting(Chunk::shard).containsExactly("A", "B", "A");
        assertThat(refreshed.atClusterTime(t(50))).isSameAs(refreshed);
    }

    @Test
    void historyTravelsInTheChunksBsonAndIsChecked() {
        BsonDocument bson = BACK.toBson();
        assertThat(bson.getArray("history")).hasSize(3);
        assertThat(Chunk.fromBson(bson)).isEqualTo(BACK);
        assertThat(new Chunk(LOW.range(), "A", version(1, 0)).toBson().containsKey("history")).isFalse();
        ChunkVersion v = version(1, 0);
        assertThatThrownBy(() -> new Chunk(LOW.range(), "A", v, false, List.of(on("B", 10))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must start with its shard A");
        assertThatThrownBy(() -> new Chunk(LOW.range(), "A", v, false, List.of(on("A", 10), on("B", 20))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("newest first");
    }
}
