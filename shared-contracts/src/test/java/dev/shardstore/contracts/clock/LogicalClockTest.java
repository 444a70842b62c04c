package dev.shardstore.contracts.clock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.bson.BsonBinary;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.Test;

class LogicalClockTest {
    private final AtomicLong wall = new AtomicLong(1_700_000_000L);
    private final LogicalClock clock = new LogicalClock(wall::get, Duration.ofSeconds(100));

    @Test
    void ticksFollowTheWallClockAndCountWithinASecond() {
        BsonTimestamp first = clock.tick(3);
        assertThat(first).isEqualTo(new BsonTimestamp(1_700_000_000, 1));
        assertThat(clock.clusterTime()).isEqualTo(new BsonTimestamp(1_700_000_000, 3));
        wall.set(1_699_999_000L); // the wall clock went back: time does not
        assertThat(clock.tick(1)).isEqualTo(new BsonTimestamp(1_700_000_000, 4));
        wall.set(1_700_000_005L);
        assertThat(clock.tick(1)).isEqualTo(new BsonTimestamp(1_700_000_005, 1));
    }

    @Test
    void advancesOnlyUpAndTicksAboveWhatItHasSeen() {
        clock.advanceTo(new BsonTimestamp(1_700_000_050, 9));
        clock.advanceTo(new BsonTimestamp(1_700_000_001, 1));
        assertThat(clock.clusterTime()).isEqualTo(new BsonTimestamp(1_700_000_050, 9));
        assertThat(clock.tick(1)).isEqualTo(new BsonTimestamp(1_700_000_050, 10));
    }

    @Test
    void anAdvanceBeyondTheDriftBoundIsRefusedAndMovesNothing() {
        BsonTimestamp before = clock.clusterTime();
        assertThatThrownBy(() -> clock.advanceTo(new BsonTimestamp(1_700_000_101, 1)))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.ClusterTimeFailsRateLimiter))
                .hasMessageContaining("maxAcceptableLogicalClockDriftSecs");
        assertThat(clock.clusterTime()).isEqualTo(before);
        clock.advanceTo(new BsonTimestamp(1_700_000_100, 1));
        assertThat(clock.clusterTime()).isEqualTo(new BsonTimestamp(1_700_000_100, 1));
    }

    @Test
    void gossipTrustsPeersButAClientsTimeAheadMustPassTheSigner() {
        ClusterTimeSigner refusing = new ClusterTimeSigner() {
            @Override
            public BsonDocument sign(BsonTimestamp time) {
                return ClusterTimeSigner.UNSIGNED.sign(time);
            }

            @Override
            public void verify(BsonTimestamp time, BsonDocument signature) {
                throw new CommandException(ErrorCode.TimeProofMismatch, "forged");
            }
        };
        ClusterTimeGossip gossip = new ClusterTimeGossip(clock, refusing);
        BsonTimestamp ahead = new BsonTimestamp(1_700_000_010, 1);

        assertThatThrownBy(() -> gossip.received(command(ahead), ClusterTimeGossip.Sender.CLIENT))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.TimeProofMismatch));
        assertThat(clock.clusterTime()).as("a refused time moves nothing").isEqualTo(new BsonTimestamp(0));

        BsonDocument fromPeer = command(ahead);
        gossip.received(fromPeer, ClusterTimeGossip.Sender.PEER);
        assertThat(clock.clusterTime()).isEqualTo(ahead);
        assertThat(fromPeer.containsKey("$clusterTime")).as("taken out before the command runs").isFalse();

        gossip.received(command(new BsonTimestamp(1_700_000_000, 1)), ClusterTimeGossip.Sender.CLIENT); // behind: no check needed

        BsonDocument sent = gossip.outgoing(new BsonDocument("ping", new BsonInt64(1)));
        assertThat(sent.getDocument("$clusterTime").getTimestamp("clusterTime")).isEqualTo(ahead);
        BsonDocument reply = new BsonDocument("ok", new BsonInt64(1)).append("$clusterTime",
                new BsonDocument("clusterTime", new BsonTimestamp(1_700_000_020, 2)));
        gossip.fromReply(reply);
        assertThat(clock.clusterTime()).isEqualTo(new BsonTimestamp(1_700_000_020, 2));
        assertThat(reply.containsKey("$clusterTime")).isFalse();
    }

    private static BsonDocument command(BsonTimestamp time) {
        return new BsonDocument("find", new BsonInt64(1)).append("$clusterTime", new BsonDocument("clusterTime", time)
                .append("signature", new BsonDocument("hash", new BsonBinary(new byte[20])).append("keyId", new BsonInt64(1))));
    }
}
