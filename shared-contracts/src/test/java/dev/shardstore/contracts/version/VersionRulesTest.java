package dev.shardstore.contracts.version;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.sharding.Chunk;
import dev.shardstore.contracts.sharding.ChunkRange;
import dev.shardstore.contracts.sharding.RoutingTable;
import dev.shardstore.contracts.sharding.ShardKeyPattern;
import dev.shardstore.contracts.sharding.ShardedCollection;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.UUID;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonMaxKey;
import org.bson.BsonMinKey;
import org.bson.BsonTimestamp;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;

/**
 * One test per row of the tables of mongo/src/mongo/db/s/README.md "Types of operations that will cause the versioning information to
 * become stale" and "Special versioning conventions".
 */
class VersionRulesTest {
    private static final ObjectId EPOCH = new ObjectId();
    private static final BsonTimestamp TS = new BsonTimestamp(1_700_000_000, 1);

    private static ChunkVersion v(int major, int minor) {
        return new ChunkVersion(major, minor, EPOCH, TS);
    }

    // --- Types of operations that will cause the versioning information to become stale ---

    @Test
    void movingAChunkIncrementsItsMajorVersion() {
        assertThat(VersionRules.migratedChunk(v(4, 7))).isEqualTo(v(5, 0));
        // the donor's remaining (control) chunk moves on as well, so the donor's shard version changes
        assertThat(VersionRules.controlChunk(v(4, 7))).isEqualTo(v(5, 1));
    }

    @Test
    void aRecoveringDonorsFenceLiftsTheChunkAboveTheCollectionVersion() {
        assertThat(VersionRules.fence(v(4, 7))).isEqualTo(v(5, 0));
    }

    @Test
    void splittingAChunkWhenTheShardVersionEqualsTheCollectionVersionIncreasesTheMajorVersion() {
        assertThat(VersionRules.split(v(3, 2), v(3, 2), 3)).containsExactly(v(4, 1), v(4, 2), v(4, 3));
    }

    @Test
    void splittingAChunkWhenTheShardVersionIsBelowTheCollectionVersionOnlyIncrementsTheMinorVersion() {
        assertThat(VersionRules.split(v(3, 2), v(2, 5), 2)).containsExactly(v(3, 3), v(3, 4));
    }

    @Test
    void splittingRefusesVersionsOfDifferentEpochsAndFewerThanTwoPieces() {
        assertThatThrownBy(() -> VersionRules.split(v(3, 2), new ChunkVersion(3, 2, new ObjectId(), TS), 2))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> VersionRules.split(v(3, 2), v(3, 2), 1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void mergingChunksSetsTheMajorVersionToTheCollectionVersionPlusOneAndTheMinorToZero() {
        assertThat(VersionRules.merge(v(6, 9))).isEqualTo(v(7, 0));
    }

    @Test
    void droppingACollectionSetsTheVersionAndEpochToTheUnshardedConstant() {
        ShardedCollection collection = new ShardedCollection("db.c", UUID.randomUUID(), EPOCH, TS,
                ShardKeyPattern.of(new BsonDocument("x", new BsonInt32(1))), false, false);
        List<ChunkVersion> versions = VersionRules.shardCollection(2, EPOCH, TS);
        RoutingTable sharded = RoutingTable.of(collection, List.of(
                new Chunk(new ChunkRange(new BsonDocument("x", new BsonMinKey()), new BsonDocument("x", new BsonInt32(0))), "sh1", versions.get(0)),
                new Chunk(new ChunkRange(new BsonDocument("x", new BsonInt32(0)), new BsonDocument("x", new BsonMaxKey())), "sh2", versions.get(1))));
        assertThat(RoutingTable.versionOf(sharded, "sh2")).isEqualTo(v(1, 1));

        // dropped: the catalog has no routing table for the namespace any more
        ChunkVersion dropped = RoutingTable.versionOf(null, "sh2");

        assertThat(dropped).isEqualTo(ChunkVersion.UNSHARDED);
        assertThat(dropped.major()).isZero();
        assertThat(dropped.minor()).isZero();
        assertThat(dropped.sameEpoch(v(1, 1))).as("a router still holding the sharded version is stale").isFalse();
    }

    @Test
    void refiningAShardKeyCreatesANewEpochKeepingMajorAndMinor() {
        ObjectId newEpoch = new ObjectId();
        BsonTimestamp newTs = new BsonTimestamp(1_700_000_100, 1);
        ChunkVersion refined = VersionRules.refine(v(5, 3), newEpoch, newTs);
        assertThat(refined).isEqualTo(new ChunkVersion(5, 3, newEpoch, newTs));
        assertThat(refined.sameEpoch(v(5, 3))).isFalse();
    }

    @Test
    void changingThePrimaryShardOfADatabaseIncrementsItsLastModified() {
        DatabaseVersion before = VersionRules.newDatabase(TS);
        DatabaseVersion after = VersionRules.movePrimary(before, new BsonTimestamp(1_700_000_200, 1));
        assertThat(after.uuid()).isEqualTo(before.uuid());
        assertThat(after.lastMod()).isEqualTo(before.lastMod() + 1);
    }

    @Test
    void droppingADatabaseCreatesANewUuidAndSetsLastModifiedToOne() {
        DatabaseVersion dropped = VersionRules.movePrimary(VersionRules.newDatabase(TS), TS);
        DatabaseVersion recreated = VersionRules.newDatabase(new BsonTimestamp(1_700_000_300, 1));
        assertThat(recreated.uuid()).isNotEqualTo(dropped.uuid());
        assertThat(recreated.lastMod()).isEqualTo(1);
    }

    // --- Special versioning conventions: chunks ---

    @Test
    void theFirstChunksOfAShardedCollectionStartAtOneZeroWithTheNewEpoch() {
        ObjectId epoch = new ObjectId();
        List<ChunkVersion> versions = VersionRules.shardCollection(3, epoch, TS);
        assertThat(versions).containsExactly(new ChunkVersion(1, 0, epoch, TS), new ChunkVersion(1, 1, epoch, TS),
                new ChunkVersion(1, 2, epoch, TS));
        assertThatThrownBy(() -> VersionRules.shardCollection(0, epoch, TS)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void anUnshardedCollectionIsZeroZero() {
        assertThat(ChunkVersion.UNSHARDED).isEqualTo(new ChunkVersion(0, 0, new ObjectId(new byte[12]), new BsonTimestamp(0)));
    }

    @Test
    void aDroppedCollectionIsZeroZero() {
        assertThat(List.of(ChunkVersion.UNSHARDED.major(), ChunkVersion.UNSHARDED.minor())).containsExactly(0, 0);
        assertThat(VersionRules.shardCollection(1, EPOCH, TS).getFirst().isOlderThan(ChunkVersion.UNSHARDED)).isFalse();
    }

    @Test
    void ignoringTheChunkVersionIsZeroZeroWithTheMaximumDateAsEpoch() {
        assertThat(ChunkVersion.IGNORED.major()).isZero();
        assertThat(ChunkVersion.IGNORED.minor()).isZero();
        assertThat(ChunkVersion.IGNORED.epoch().getDate()).isEqualTo(new Date(Integer.MAX_VALUE * 1000L));
        assertThat(ChunkVersion.IGNORED.epoch().getDate().toInstant()).isAfter(Instant.parse("2038-01-01T00:00:00Z"));
    }

    // --- Special versioning conventions: databases ---

    @Test
    void aNewDatabaseGetsAFreshUuidAndLastModifiedOne() {
        DatabaseVersion a = VersionRules.newDatabase(TS);
        DatabaseVersion b = VersionRules.newDatabase(TS);
        assertThat(a.lastMod()).isEqualTo(1);
        assertThat(a.uuid()).isNotEqualTo(b.uuid());
    }

    @Test
    void theConfigDatabaseHasLastModifiedZero() {
        assertThat(VersionRules.reservedDatabase(TS).lastMod()).isZero();
    }

    @Test
    void theAdminDatabaseHasLastModifiedZero() {
        DatabaseVersion admin = VersionRules.reservedDatabase(TS);
        assertThat(admin.lastMod()).isZero();
        assertThat(admin.isOlderThan(VersionRules.movePrimary(admin, TS))).isTrue();
    }
}
