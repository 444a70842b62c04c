package dev.shardstore.shard.storage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.shard.ShardIntegrationTest;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.Test;

/**
 * The shard on the cluster's one time line (mongo/src/mongo/db/s/README.md "Cluster time ticking"): a peer's {@code $clusterTime} moves
 * its clock, its next oplog entry is above it, and its reply's {@code operationTime} covers the write it made.
 */
class ShardClusterTimeTest extends ShardIntegrationTest {
    private static final String DB = "shard_clock";

    @Test
    void aWriteTicksAboveTheGossipedTimeAndItsReplyCarriesIt() {
        long ahead = (System.currentTimeMillis() / 1000 + 3600) << 32 | 5;
        BsonDocument reply = runWithClusterTime(DB, ExtendedJson.parse("{\"insert\": \"c\", \"documents\": [{\"_id\": 1}], \"$clusterTime\": {\"clusterTime\": "
                + "{\"$timestamp\": {\"t\": " + (ahead >>> 32) + ", \"i\": 5}}, \"signature\": {\"hash\": {\"$binary\": "
                + "{\"base64\": \"AAAAAAAAAAAAAAAAAAAAAAAAAAA=\", \"subType\": \"00\"}}, \"keyId\": 0}}}"));

        long written = Oplog.tsOf(jdbc.sql("SELECT max(ts_key) FROM oplog WHERE ns = ?").param(DB + ".c").query(Long.class).single());
        assertThat(Long.compareUnsigned(written, ahead)).as("the write's time is above the gossiped one").isPositive();
        BsonTimestamp operationTime = reply.getTimestamp("operationTime");
        assertThat(Long.compareUnsigned(operationTime.getValue(), written)).as("operationTime covers the write").isGreaterThanOrEqualTo(0);
        assertThat(reply.getDocument("$clusterTime").getTimestamp("clusterTime")).isEqualTo(operationTime);
    }
}
