package dev.shardstore.router.sharding;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.clock.ClusterTimeSigner;
import dev.shardstore.contracts.clock.HmacClusterTimeSigner;
import java.util.List;
import org.bson.BsonBinary;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Cluster time on the router (mongo/src/mongo/db/s/README.md "The logical clock and causal consistency"): every client reply carries
 * {@code $clusterTime} and {@code operationTime}; the shards' times come back to the client; a client's time moves
 * the router's clock within the drift bound and beyond it is refused without moving it.
 */
class ClusterTimeTest extends RouterAgainstFakeCluster {
    private static final long NOW = System.currentTimeMillis() / 1000;
    /** Another process of the cluster: it signs with the cluster's key, as another router would. */
    private static final HmacClusterTimeSigner OTHER_ROUTER = new HmacClusterTimeSigner(
            HmacClusterTimeSigner.Keys.over(() -> List.of(FakeCluster.SIGNING_KEY)));

    @AfterEach
    void quietShards() {
        CLUSTER.shardClusterTime = null;
    }

    @Test
    void everyReplySuccessAndErrorCarriesClusterTimeAndOperationTime() throws Exception {
        Reply ok = command("ct_reply", "{\"insert\": \"c\", \"documents\": [{\"_id\": 1}]}");
        ok.assertOk();
        assertGossiped(ok.body());

        Reply error = command("ct_reply", "{\"noSuchCommand\": 1}");
        error.assertError(404, 59, "noSuchCommand");
        assertGossiped(error.body());
    }

    @Test
    void aShardsClusterTimeComesBackToTheClientAndGoesOutWithTheNextRequest() throws Exception {
        BsonTimestamp shardTime = new BsonTimestamp((int) (NOW + 3600), 7);
        CLUSTER.shardClusterTime = shardTime;
        Reply written = command("ct_shard", "{\"insert\": \"c\", \"documents\": [{\"_id\": 1}]}");
        written.assertOk();
        assertAtLeast(clusterTime(written.body()), shardTime);
        assertAtLeast(written.body().getTimestamp("operationTime"), shardTime);

        CLUSTER.shardClusterTime = null;
        CLUSTER.forgetRequests();
        command("ct_shard", "{\"insert\": \"c\", \"documents\": [{\"_id\": 2}]}").assertOk();
        BsonDocument sent = CLUSTER.sh1.received("insert").getFirst();
        assertAtLeast(sent.getDocument("$clusterTime").getTimestamp("clusterTime"), shardTime);
    }

    @Test
    void aClientsTimeAheadOfTheRoutersMovesItOnlyWhenSignedWithAClusterKeyAndWithinTheDriftBound() throws Exception {
        BsonTimestamp ahead = new BsonTimestamp((int) (NOW + 7200), 3);
        BsonDocument signed = OTHER_ROUTER.sign(ahead);

        byte[] hash = signed.getBinary("hash").getData().clone();
        hash[0] ^= 1;
        BsonDocument forged = new BsonDocument("hash", new BsonBinary(hash)).append("keyId", signed.get("keyId"));
        Reply forgedReply = ping(ahead, forged);
        forgedReply.assertError(401, 204, "does not match its signature");
        assertBelow(clusterTime(forgedReply.body()), ahead);

        Reply unknownKey = ping(ahead, signed.clone().append("keyId", new BsonInt64(FakeCluster.SIGNING_KEY.keyId() + 1)));
        unknownKey.assertError(401, 211, "keyId " + (FakeCluster.SIGNING_KEY.keyId() + 1));
        assertBelow(clusterTime(unknownKey.body()), ahead);

        Reply dummy = ping(ahead, ClusterTimeSigner.UNSIGNED.sign(ahead));
        dummy.assertError(401, 211, "keyId 0");
        assertBelow(clusterTime(dummy.body()), ahead);

        BsonTimestamp twoYears = new BsonTimestamp((int) (NOW + 2L * 365 * 24 * 3600), 1);
        Reply farFuture = ping(twoYears, OTHER_ROUTER.sign(twoYears));
        farFuture.assertError(400, 205, "maxAcceptableLogicalClockDriftSecs");
        assertBelow(clusterTime(farFuture.body()), ahead);

        Reply accepted = ping(ahead, signed);
        accepted.assertOk();
        BsonTimestamp now = clusterTime(accepted.body());
        assertAtLeast(now, ahead);
        OTHER_ROUTER.verify(now, accepted.body().getDocument("$clusterTime").getDocument("signature")); // signed with the cluster's key

        Reply malformed = command("admin", "{\"ping\": 1, \"$clusterTime\": {\"clusterTime\": 5}}");
        malformed.assertError(400, 14, "$clusterTime");
    }

    @Test
    void afterClusterTimeAndASnapshotsAtClusterTimeGoToTheShards() throws Exception {
        command("ct_read", "{\"insert\": \"c\", \"documents\": [{\"_id\": 1}]}").assertOk();
        BsonTimestamp now = clusterTime(command("admin", "{\"ping\": 1}").body());
        CLUSTER.forgetRequests();
        Reply read = command("ct_read", "{\"find\": \"c\", \"readConcern\": {\"level\": \"majority\", \"afterClusterTime\": "
                + timestampJson(now) + "}}");
        read.assertOk();
        assertThat(CLUSTER.sh1.received("find").getFirst().getDocument("readConcern").getTimestamp("afterClusterTime")).isEqualTo(now);

        BsonTimestamp ahead = new BsonTimestamp(now.getTime() + 100, 1);
        command("ct_read", "{\"find\": \"c\", \"readConcern\": {\"afterClusterTime\": " + timestampJson(ahead) + "}}")
                .assertError(400, 72, "afterClusterTime");
        CLUSTER.forgetRequests();
        Reply snapshot = command("ct_read", "{\"find\": \"c\", \"readConcern\": {\"level\": \"snapshot\"}}");
        snapshot.assertOk();
        BsonTimestamp chosen = CLUSTER.sh1.received("find").getFirst().getDocument("readConcern").getTimestamp("atClusterTime");
        assertThat(chosen).as("a snapshot read without atClusterTime reads at the router's cluster time").isGreaterThanOrEqualTo(now);
        assertThat(snapshot.body().getDocument("cursor").getTimestamp("atClusterTime")).isEqualTo(chosen);
        command("ct_read", "{\"find\": \"c\", \"readConcern\": {\"level\": \"eventual\"}}").assertError(400, 2, "readConcern.level");
    }

    private static String timestampJson(BsonTimestamp time) {
        return "{\"$timestamp\": {\"t\": " + Integer.toUnsignedString(time.getTime()) + ", \"i\": " + time.getInc() + "}}";
    }

    private Reply ping(BsonTimestamp time, BsonDocument signature) throws Exception {
        BsonDocument ping = new BsonDocument("ping", new BsonInt32(1)).append("$clusterTime",
                new BsonDocument("clusterTime", time).append("signature", signature));
        return command("admin", ping.toJson());
    }

    private static void assertBelow(BsonTimestamp actual, BsonTimestamp bound) {
        assertThat(Long.compareUnsigned(actual.getValue(), bound.getValue())).as("the clock did not move: " + actual).isNegative();
    }

    private static void assertAtLeast(BsonTimestamp actual, BsonTimestamp least) {
        assertThat(Long.compareUnsigned(actual.getValue(), least.getValue())).as(actual + " >= " + least).isGreaterThanOrEqualTo(0);
    }

    private static BsonTimestamp clusterTime(BsonDocument reply) {
        return reply.getDocument("$clusterTime").getTimestamp("clusterTime");
    }

    private static void assertGossiped(BsonDocument reply) {
        BsonDocument clusterTime = reply.getDocument("$clusterTime");
        assertThat(clusterTime.isTimestamp("clusterTime")).as(reply.toJson()).isTrue();
        assertThat(clusterTime.getDocument("signature").getBinary("hash").getData()).hasSize(20);
        assertThat(clusterTime.getDocument("signature").isNumber("keyId")).as("relaxed JSON writes a small long as a number").isTrue();
        assertThat(reply.isTimestamp("operationTime")).as(reply.toJson()).isTrue();
    }
}
