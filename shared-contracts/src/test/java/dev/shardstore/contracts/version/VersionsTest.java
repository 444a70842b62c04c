package dev.shardstore.contracts.version;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import java.util.UUID;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonTimestamp;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;

/** The version value types: checked inputs, BSON round trips, and ordering only within one instance (mongo/src/mongo/db/s/README.md "Shard versioning"). */
class VersionsTest {
    private static final BsonTimestamp TS = new BsonTimestamp(1_700_000_000, 1);

    @Test
    void databaseVersionRoundTripsAndOrdersWithinOneDatabaseInstanceOnly() {
        DatabaseVersion v1 = DatabaseVersion.newDatabase(TS);
        DatabaseVersion v2 = new DatabaseVersion(v1.uuid(), 2, TS);
        assertThat(v1.lastMod()).isEqualTo(1);
        assertThat(DatabaseVersion.fromBson(v2.toBson())).isEqualTo(v2);
        assertThat(v1.isOlderThan(v2)).isTrue();
        assertThat(v2.isOlderThan(v1)).isFalse();
        DatabaseVersion recreated = new DatabaseVersion(UUID.randomUUID(), 5, TS);
        assertThat(v1.isOlderThan(recreated)).as("another instance is not 'newer': it needs a refresh").isFalse();
    }

    @Test
    void databaseVersionRejectsBadInputNamingIt() {
        assertThatThrownBy(() -> new DatabaseVersion(UUID.randomUUID(), -1, TS)).hasMessageContaining("lastMod");
        assertThatThrownBy(() -> DatabaseVersion.fromBson(new BsonDocument("lastMod", new BsonInt32(1))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("databaseVersion");
    }

    @Test
    void chunkVersionOrdersByMajorThenMinorWithinAnEpochOnly() {
        ObjectId epoch = new ObjectId();
        ChunkVersion v1 = new ChunkVersion(1, 0, epoch, TS);
        ChunkVersion v1_3 = new ChunkVersion(1, 3, epoch, TS);
        ChunkVersion v2 = new ChunkVersion(2, 0, epoch, TS);
        assertThat(v1.isOlderThan(v1_3)).isTrue();
        assertThat(v1_3.isOlderThan(v2)).isTrue();
        assertThat(v2.isOlderThan(v1)).isFalse();
        ChunkVersion otherEpoch = new ChunkVersion(9, 9, new ObjectId(), TS);
        assertThat(v1.isOlderThan(otherEpoch)).as("a new epoch means a full refresh, not an order").isFalse();
        assertThat(ChunkVersion.fromBson(v1_3.toBson())).isEqualTo(v1_3);
        assertThat(v1_3).hasToString("1|3||" + epoch.toHexString() + "||1700000000|1");
    }

    /** compareTo is consistent with equals and orders epochs by their collection timestamp (failed before: 0 across epochs). */
    @Test
    void chunkVersionsOfDifferentEpochsNeverCompareEqualAndANewerIncarnationIsGreater() {
        ObjectId oldEpoch = new ObjectId();
        ObjectId newEpoch = new ObjectId();
        ChunkVersion oldHigh = new ChunkVersion(7, 3, oldEpoch, new BsonTimestamp(100, 1));
        ChunkVersion newLow = new ChunkVersion(1, 0, newEpoch, new BsonTimestamp(200, 1));
        ChunkVersion otherEpochSameNumbers = new ChunkVersion(7, 3, newEpoch, new BsonTimestamp(100, 1));

        assertThat(oldHigh.compareTo(newLow)).isNegative();
        assertThat(newLow.compareTo(oldHigh)).isPositive();
        assertThat(oldHigh.compareTo(otherEpochSameNumbers)).isNotZero().isEqualTo(-otherEpochSameNumbers.compareTo(oldHigh));
        assertThat(oldHigh.isOlderThan(newLow)).isFalse();
        assertThat(new TreeSet<>(List.of(oldHigh, otherEpochSameNumbers, newLow))).hasSize(3).last().isEqualTo(newLow);

        Random random = new Random(42);
        List<ChunkVersion> versions = new ArrayList<>();
        ObjectId[] epochs = {oldEpoch, newEpoch, new ObjectId()};
        for (int i = 0; i < 300; i++) {
            versions.add(new ChunkVersion(random.nextInt(3), random.nextInt(3), epochs[random.nextInt(3)], new BsonTimestamp(100 + random.nextInt(2), 1)));
        }
        for (ChunkVersion a : versions) {
            for (ChunkVersion b : versions) {
                assertThat(a.compareTo(b) == 0).as(a + " vs " + b).isEqualTo(a.equals(b));
                assertThat(Integer.signum(a.compareTo(b))).isEqualTo(-Integer.signum(b.compareTo(a)));
            }
        }
    }

    @Test
    void unshardedAndIgnoredAreZeroVersionsOfDistinctEpochs() {
        assertThat(ChunkVersion.UNSHARDED.major()).isZero();
        assertThat(ChunkVersion.IGNORED.major()).isZero();
        assertThat(ChunkVersion.UNSHARDED.sameEpoch(ChunkVersion.IGNORED)).isFalse();
        assertThatThrownBy(() -> new ChunkVersion(-1, 0, new ObjectId(), TS)).hasMessageContaining("major");
    }

    @Test
    void aChunkVersionParsesBackFromItsStringForm() {
        ChunkVersion v = new ChunkVersion(7, 3, new ObjectId(), new BsonTimestamp(1_795_300_386, 10));
        assertThat(ChunkVersion.parse(v.toString())).isEqualTo(v);
        for (String bad : new String[] {"", "7|3", "7|3||zz||1|2", "7||" + v.epoch().toHexString() + "||1|2", "7|3||" + v.epoch().toHexString() + "||1"}) {
            assertThatThrownBy(() -> ChunkVersion.parse(bad)).as(bad)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("malformed chunk version");
        }
    }
}
