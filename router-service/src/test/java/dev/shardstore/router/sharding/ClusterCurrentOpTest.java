package dev.shardstore.router.sharding;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.bson.ExtendedJson;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;

/**
 * {@code $currentOp} and {@code killOp} through a real router whose shards are stubs (MongoDB manual "$currentOp
 * (aggregation)", "killOp"): the router lists its own commands, then each shard's with {@code shard} and mongos's
 * {@code "<shard>:<opid>"}; {@code localOps} keeps to the router's; {@code killOp} of {@code "<shard>:<opid>"} goes
 * to that shard as a number, and its bad {@code op}s are refused before anything is sent.
 */
class ClusterCurrentOpTest extends RouterAgainstFakeCluster {
    private List<BsonDocument> listed(String stages) throws Exception {
        Reply reply = command("admin", "{aggregate: 1, pipeline: [" + stages + "], cursor: {}}");
        reply.assertOk();
        assertThat(reply.body().getDocument("cursor").getString("ns").getValue()).isEqualTo("admin.$cmd.aggregate");
        return reply.body().getDocument("cursor").getArray("firstBatch").stream().map(BsonValue::asDocument).toList();
    }

    @Test
    void theRouterListsItsOwnOperationsThenEachShardsWithShardAndShardOpid() throws Exception {
        CLUSTER.forgetRequests();
        List<BsonDocument> all = listed("{$currentOp: {allUsers: true}}");
        BsonDocument own = all.getFirst();
        assertThat(own.get("opid").isNumber()).as("the router's own opid is a number (relaxed JSON over REST)").isTrue();
        assertThat(own.getString("ns").getValue()).isEqualTo("admin.$cmd");
        assertThat(own.getDocument("command").getDocument("cursor")).isEqualTo(new BsonDocument());
        assertThat(own.getString("desc").getValue()).isEqualTo("rest");
        assertThat(own.containsKey("shard")).isFalse();

        List<BsonDocument> ofShards = all.stream().filter(d -> d.containsKey("shard")).toList();
        assertThat(ofShards).extracting(d -> d.getString("shard").getValue()).containsExactly("sh1", "sh1", "sh2", "sh2");
        BsonDocument expected = new BsonDocument("shard", new BsonString("sh1")).append("type", new BsonString("op"))
                .append("opid", new BsonString("sh1:7"));
        FakeCluster.currentOp("sh1").getFirst().forEach((field, value) -> expected.putIfAbsent(field, value));
        assertThat(ExtendedJson.toJson(ofShards.getFirst())).as("relaxed JSON over REST").isEqualTo(ExtendedJson.toJson(expected));
        assertThat(ofShards.get(1).containsKey("opid")).as("a migration has no opid").isFalse();
        assertThat(ofShards.get(2).getString("opid").getValue()).isEqualTo("sh2:8");
        assertThat(sent(CLUSTER.sh1, "admin", "aggregate")).singleElement().satisfies(toShard ->
                assertThat(toShard.getArray("pipeline")).isEqualTo(ExtendedJson.parse("{p: [{$currentOp: {allUsers: true}}]}").getArray("p")));

        assertThat(listed("{$currentOp: {allUsers: true}}, {$match: {shard: 'sh2', desc: 'internal'}}, {$project: {_id: 0, opid: 1}}"))
                .as("the later stages run on the router over the whole list")
                .containsExactly(new BsonDocument("opid", new BsonString("sh2:8")));
    }

    @Test
    void localOpsListsTheRoutersOwnOperationsOnly() throws Exception {
        CLUSTER.forgetRequests();
        List<BsonDocument> local = listed("{$currentOp: {localOps: true}}");
        assertThat(local).isNotEmpty().noneMatch(d -> d.containsKey("shard"));
        assertThat(local).anyMatch(d -> d.getDocument("command").getArray("pipeline").getFirst().asDocument().containsKey("$currentOp"));
        assertThat(sent(CLUSTER.sh1, "admin", "aggregate")).isEmpty();
        assertThat(sent(CLUSTER.sh2, "admin", "aggregate")).isEmpty();
    }

    @Test
    void killOpOfAShardsOperationGoesToThatShardAndANumberKillsARouterOperation() throws Exception {
        CLUSTER.forgetRequests();
        Reply killed = command("admin", "{killOp: 1, op: 'sh2:8'}");
        killed.assertOk();
        assertThat(killed.body().getString("info").getValue()).isEqualTo("attempting to kill op");
        assertThat(sent(CLUSTER.sh2, "admin", "killOp")).hasSize(1)
                .allSatisfy(sentKill -> assertThat(sentKill.get("op")).isEqualTo(new BsonInt64(8)));
        assertThat(sent(CLUSTER.sh1, "admin", "killOp")).isEmpty();

        command("admin", "{killOp: 1, op: 123456789}").assertOk();
        assertThat(sent(CLUSTER.sh1, "admin", "killOp")).isEmpty();
        assertThat(sent(CLUSTER.sh2, "admin", "killOp")).hasSize(1);
    }

    @Test
    void badKillOpsAndOptionsAreRefusedNamingTheField() throws Exception {
        CLUSTER.forgetRequests();
        command("admin", "{killOp: 1}").assertError(400, 9, "\"op\"");
        command("admin", "{killOp: 1, op: 'sh1'}").assertError(400, 9, "\"op\"", "<shard>:<opid>");
        command("admin", "{killOp: 1, op: 'sh1:x'}").assertError(400, 9, "\"op\"");
        command("admin", "{killOp: 1, op: true}").assertError(400, 14, "\"op\"");
        command("admin", "{killOp: 1, op: 'nosuchshard:4'}").assertError(404, 70, "nosuchshard");
        command("admin", "{aggregate: 1, pipeline: [{$currentOp: {idleCursors: true}}], cursor: {}}").assertError(400, 238, "'idleCursors");
        command("admin", "{aggregate: 1, pipeline: [{$currentOp: {}}, {$bogus: {}}], cursor: {}}").assertError(400, 40324, "$bogus");
        assertThat(sent(CLUSTER.sh1, "admin", "killOp")).isEmpty();
        assertThat(sent(CLUSTER.sh1, "admin", "aggregate")).as("nothing is asked of a shard for a refused command").isEmpty();
    }
}
