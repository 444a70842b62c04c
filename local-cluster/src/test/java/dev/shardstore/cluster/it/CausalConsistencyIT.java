package dev.shardstore.cluster.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.cluster.LocalCluster;
import dev.shardstore.cluster.router.RouterClient;
import dev.shardstore.contracts.bson.ExtendedJson;
import java.time.Duration;
import java.util.List;
import org.bson.BsonBinary;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Cluster time end to end (mongo/src/mongo/db/s/README.md "Causal consistency in sessions") on a local cluster of separate processes (the
 * cluster {@link OnSharedCluster} classes share, which has 2 routers): a write through router A returns an operationTime T; a read through router
 * B with {@code afterClusterTime: T} sees it, for a chunk on each shard; router A's signed {@code $clusterTime} is
 * accepted by router B (one set of keys, from the config service), a forged one is refused.
 */
@OnSharedCluster
class CausalConsistencyIT {
    private static final String DB = "causal";
    private static final String NS = DB + ".c";

    private static LocalCluster cluster;
    private static RouterClient routerA;
    private static RouterClient routerB;

    @BeforeAll
    static void onSharedCluster(MigrationCluster shared) {
        cluster = shared.cluster;
        routerA = new RouterClient(cluster.routerUrl(1), Duration.ofSeconds(120));
        routerB = new RouterClient(cluster.routerUrl(2), Duration.ofSeconds(120));
    }

    @Test
    void aWriteThroughOneRouterIsReadAfterItsOperationTimeThroughTheOtherOnEachShard() {
        ok(routerA, "admin", "{\"shardCollection\": \"" + NS + "\", \"key\": {\"x\": 1}}");
        ok(routerA, "admin", "{\"split\": \"" + NS + "\", \"middle\": {\"x\": 0}}");
        String first = ownerOf(-1);
        ok(routerA, "admin", "{\"moveChunk\": \"" + NS + "\", \"find\": {\"x\": 1}, \"to\": \"" + (first.equals("shard1") ? "shard2" : "shard1") + "\"}");
        assertThat(ownerOf(1)).isNotEqualTo(ownerOf(-1));

        for (int x : List.of(-7, 7)) {
            BsonDocument written = ok(routerA, DB, "{\"insert\": \"c\", \"documents\": [{\"_id\": " + x + ", \"x\": " + x + "}]}");
            BsonTimestamp t = written.getTimestamp("operationTime");
            BsonDocument read = ok(routerB, DB, new BsonDocument("find", new BsonString("c"))
                    .append("filter", new BsonDocument("x", new BsonInt32(x)))
                    .append("readConcern", new BsonDocument("level", new BsonString("majority")).append("afterClusterTime", t))
                    .append("$clusterTime", written.getDocument("$clusterTime")).toJson());
            assertThat(read.getDocument("cursor").getArray("firstBatch")).as("x = " + x + " on " + ownerOf(x))
                    .extracting(v -> v.asDocument().getNumber("_id").intValue()).containsExactly(x);
            assertThat(Long.compareUnsigned(read.getTimestamp("operationTime").getValue(), t.getValue())).isGreaterThanOrEqualTo(0);
        }
    }

    @Test
    void aForgedClusterTimeAheadIsRefusedByTheOtherRouter() {
        BsonDocument signed = ok(routerA, "admin", "{\"ping\": 1}").getDocument("$clusterTime");
        BsonTimestamp time = signed.getTimestamp("clusterTime");
        BsonTimestamp ahead = new BsonTimestamp(time.getTime() + 3600, time.getInc());
        BsonDocument forged = new BsonDocument("clusterTime", ahead).append("signature", new BsonDocument("hash",
                new BsonBinary(signed.getDocument("signature").getBinary("hash").getData())).append("keyId", signed.getDocument("signature").get("keyId")));
        BsonDocument refused = routerB.run("admin", new BsonDocument("ping", new BsonInt32(1)).append("$clusterTime", forged));
        assertThat(refused.getNumber("code").intValue()).as(refused.toJson()).isEqualTo(204);
        assertThat(Long.compareUnsigned(refused.getDocument("$clusterTime").getTimestamp("clusterTime").getValue(), ahead.getValue()))
                .as("router B's clock did not move").isNegative();
    }

    private static String ownerOf(int x) {
        BsonDocument collection = ok(routerA, "config", "{\"find\": \"collections\", \"filter\": {\"_id\": \"" + NS + "\"}}")
                .getDocument("cursor").getArray("firstBatch").get(0).asDocument();
        return routerA.run("config", new BsonDocument("find", new BsonString("chunks")).append("filter",
                        new BsonDocument("uuid", collection.get("uuid")))).getDocument("cursor").getArray("firstBatch").stream()
                .map(BsonValue::asDocument)
                .filter(c -> (x < 0) == !c.getDocument("min").isNumber("x"))
                .findFirst().orElseThrow().getString("shard").getValue();
    }

    private static BsonDocument ok(RouterClient router, String db, String json) {
        return RouterClient.requireOk(json, router.run(db, ExtendedJson.parse(json)));
    }
}
