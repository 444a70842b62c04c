package dev.shardstore.router.sharding;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.sharding.RoutingTable;
import java.time.Duration;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonMinKey;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;

/**
 * Sharding admin commands and collection DDL on sharded collections: forwarded to the config service or the
 * shards in the protocol's shapes; bad input refused with a 400 naming the field before anything is forwarded.
 */
class ShardingAdminCommandsTest extends RouterAgainstFakeCluster {
    private static RoutingTable shard(String db, List<String> owners) {
        List<BsonValue> splits = owners.size() == 1 ? List.of() : List.of(new BsonInt32(0));
        return CLUSTER.shardCollection(db + ".c", new BsonDocument("x", new BsonInt32(1)), splits, owners);
    }

    private static List<BsonDocument> toConfig(String command, String ns) {
        return CLUSTER.config.received(command).stream().filter(c -> c.getString(command).getValue().equals(ns)).toList();
    }

    @Test
    void shardCollectionIsForwardedAndAnsweredAsMongoDbDoes() throws Exception {
        Reply reply = command("admin", "{shardCollection: 'a1.c', key: {x: 'hashed'}, unique: false, numInitialChunks: 4}");

        reply.assertOk();
        assertThat(reply.body().getString("collectionsharded").getValue()).isEqualTo("a1.c");
        assertThat(reply.body().containsKey("collectionUUID")).isTrue();
        assertThat(toConfig("_configsvrShardCollection", "a1.c")).singleElement().satisfies(c -> {
            assertThat(c.getDocument("key").getString("x").getValue()).isEqualTo("hashed");
            assertThat(c.getBoolean("unique").getValue()).isFalse();
            assertThat(c.getNumber("numInitialChunks").intValue()).isEqualTo(4);
        });
    }

    @Test
    void badShardCollectionArgumentsAre400sNamingTheField() throws Exception {
        command("admin", "{shardCollection: 'a2.c'}").assertError(400, 9, "key");
        command("admin", "{shardCollection: 'a2.c', key: 5}").assertError(400, 14, "key");
        command("admin", "{shardCollection: 'a2.c', key: {x: -1}}").assertError(400, 2, "key");
        command("admin", "{shardCollection: 'nodot', key: {x: 1}}").assertError(400, 73, "shardCollection");
        command("admin", "{shardCollection: 'bad$db.c', key: {x: 1}}").assertError(400, 73, "shardCollection");
        command("admin", "{shardCollection: 'config.c', key: {x: 1}}").assertError(400, 20, "shardCollection");
        command("a2", "{shardCollection: 'a2.c', key: {x: 1}}").assertError(400, 20, "admin");
        assertThat(toConfig("_configsvrShardCollection", "a2.c")).isEmpty();
    }

    @Test
    void enableShardingCreatesTheDatabaseAndRefusesWhatItCannotDo() throws Exception {
        command("admin", "{enableSharding: 'a9'}").assertOk();
        command("admin", "{enableSharding: 'a9'}").assertOk();
        assertThat(CLUSTER.config.received("_configsvrCreateDatabase").stream()
                .filter(c -> c.getString("_configsvrCreateDatabase").getValue().equals("a9"))).hasSize(2);

        command("admin", "{enableSharding: 5}").assertError(400, 14, "enableSharding");
        command("admin", "{enableSharding: 'bad$db'}").assertError(400, 73, "enableSharding");
        command("admin", "{enableSharding: 'config'}").assertError(400, 20, "enableSharding");
        command("admin", "{enableSharding: 'a10', primaryShard: 'sh2'}").assertError(400, 72, "primaryShard");
        command("a10", "{enableSharding: 'a10'}").assertError(400, 20, "admin");
        assertThat(CLUSTER.config.received("_configsvrCreateDatabase").stream()
                .filter(c -> c.getString("_configsvrCreateDatabase").getValue().equals("a10"))).isEmpty();
    }

    @Test
    void splitTakesExactlyOneOfMiddleFindAndBounds() throws Exception {
        command("admin", "{split: 'a3.c', middle: {x: 10}}").assertOk();
        assertThat(toConfig("_configsvrSplitChunk", "a3.c")).singleElement()
                .satisfies(c -> assertThat(c.getDocument("middle").getInt32("x").getValue()).isEqualTo(10));

        command("admin", "{split: 'a3.c', middle: {x: 1}, find: {x: 1}}").assertError(400, 2, "middle", "find");
        command("admin", "{split: 'a3.c'}").assertError(400, 2, "middle", "find", "bounds");
        command("admin", "{split: 'a3.c', bounds: [{x: 1}]}").assertError(400, 2, "bounds");
        command("admin", "{split: 'a3.c', find: 3}").assertError(400, 14, "find");
        assertThat(toConfig("_configsvrSplitChunk", "a3.c")).hasSize(1);
    }

    @Test
    void mergeChunksCarriesTheCachedEpochAndTheOwnerOfMin() throws Exception {
        RoutingTable table = shard("a4", List.of("sh2", "sh2"));

        command("admin", "{mergeChunks: 'a4.c', bounds: [{x: {$minKey: 1}}, {x: {$maxKey: 1}}]}").assertOk();

        assertThat(toConfig("_configsvrCommitChunksMerge", "a4.c")).singleElement().satisfies(c -> {
            assertThat(c.getObjectId("collEpoch").getValue()).isEqualTo(table.collection().epoch());
            assertThat(c.getTimestamp("collTimestamp")).isEqualTo(table.collection().timestamp());
            assertThat(c.getDocument("chunkRange").getDocument("min").get("x")).isEqualTo(new BsonMinKey());
            assertThat(c.getString("shard").getValue()).isEqualTo("sh2");
        });
        command("admin", "{mergeChunks: 'a4.c', bounds: [{y: 1}, {x: 2}]}").assertError(400, 2, "bounds.0");
        command("admin", "{mergeChunks: 'a5.c', bounds: [{x: 1}, {x: 2}]}").assertError(400, 118, "not sharded");
    }

    @Test
    void droppingAShardedCollectionIsTheConfigServicesJob() throws Exception {
        shard("a6", List.of("sh1", "sh2"));
        command("a6", "{insert: 'c', documents: [{x: 1}]}").assertOk();

        command("a6", "{drop: 'c'}").assertOk();

        assertThat(toConfig("_configsvrDropCollection", "a6.c")).hasSize(1);
        assertThat(sent(CLUSTER.sh1, "a6", "drop")).isEmpty();
        assertThat(sent(CLUSTER.sh2, "a6", "drop")).isEmpty();
    }

    @Test
    void aDropWaitsForItsCoordinatorLongerThanTheOrdinaryPeerTimeout() throws Exception {
        shard("a6b", List.of("sh1", "sh2"));
        CLUSTER.delayConfigReplies("_configsvrDropCollection", PEER_REQUEST_TIMEOUT.plusSeconds(1));
        try {
            command("a6b", "{drop: 'c'}").assertOk(); // was NetworkTimeout (89) after 5 s with the ordinary peer client
        } finally {
            CLUSTER.delayConfigReplies("_configsvrDropCollection", Duration.ZERO);
        }
        assertThat(toConfig("_configsvrDropCollection", "a6b.c")).hasSize(1);
    }

    @Test
    void indexCommandsGoToEveryOwningShardAndThePrimary() throws Exception {
        shard("a7", List.of("sh2"));

        Reply created = command("a7", "{createIndexes: 'c', indexes: [{key: {y: 1}, name: 'y_1'}]}");

        created.assertOk();
        assertThat(created.body().getDocument("raw").keySet()).containsExactlyInAnyOrder("sh1", "sh2");
        assertThat(sent(CLUSTER.sh1, "a7", "createIndexes")).hasSize(1);
        assertThat(sent(CLUSTER.sh2, "a7", "createIndexes")).hasSize(1);
        command("a7", "{listIndexes: 'c'}").assertOk();
        assertThat(sent(CLUSTER.sh2, "a7", "listIndexes")).hasSize(1); // the primary sh1 owns no chunk
        assertThat(sent(CLUSTER.sh1, "a7", "listIndexes")).isEmpty();
    }

    @Test
    void moveChunkAndMoveRangeGoToTheConfigServiceAndAnswerAsMongoDbDoes() throws Exception {
        Reply moved = command("admin", "{moveChunk: 'm1.c', find: {x: 5}, to: 'sh2', _waitForDelete: true}");
        moved.assertOk();
        assertThat(moved.body().isNumber("millis")).as(moved.body().toJson()).isTrue();
        assertThat(toConfig("_configsvrMoveRange", "m1.c")).singleElement().satisfies(c -> {
            assertThat(c.getDocument("find").getInt32("x").getValue()).isEqualTo(5);
            assertThat(c.getString("toShard").getValue()).isEqualTo("sh2");
            assertThat(c.getString("toField").getValue()).isEqualTo("to");
            assertThat(c.getBoolean("waitForDelete").getValue()).isTrue();
            assertThat(c.getBoolean("forceJumbo").getValue()).isFalse();
        });

        Reply range = command("admin", "{moveRange: 'm2.c', min: {x: 10}, max: {x: 20}, toShard: 'sh1', forceJumbo: true}");
        range.assertOk();
        assertThat(range.body().keySet()).containsExactly("ok", "$clusterTime", "operationTime");
        assertThat(toConfig("_configsvrMoveRange", "m2.c")).singleElement().satisfies(c -> {
            assertThat(c.getDocument("min").getInt32("x").getValue()).isEqualTo(10);
            assertThat(c.getDocument("max").getInt32("x").getValue()).isEqualTo(20);
            assertThat(c.getBoolean("forceJumbo").getValue()).isTrue();
        });
    }

    @Test
    void badMoveArgumentsAre400sNamingTheField() throws Exception {
        command("admin", "{moveChunk: 'm3.c', to: 'sh2'}").assertError(400, 2, "find", "bounds");
        command("admin", "{moveChunk: 'm3.c', find: {x: 1}, bounds: [{x: 1}, {x: 2}], to: 'sh2'}").assertError(400, 2, "find", "bounds");
        command("admin", "{moveChunk: 'm3.c', find: {x: 1}}").assertError(400, 9, "to");
        command("admin", "{moveChunk: 'm3.c', find: {x: 1}, to: 7}").assertError(400, 14, "to");
        command("admin", "{moveChunk: 'm3.c', find: {x: 1}, to: 'nosuchshard'}").assertError(404, 70, "'to'", "nosuchshard");
        command("admin", "{moveChunk: 'm3.c', bounds: [{x: 1}], to: 'sh2'}").assertError(400, 2, "bounds");
        command("admin", "{moveChunk: 'm3.c', find: 3, to: 'sh2'}").assertError(400, 14, "find");
        command("admin", "{moveChunk: 'nodot', find: {x: 1}, to: 'sh2'}").assertError(400, 73, "moveChunk");
        command("m3", "{moveChunk: 'm3.c', find: {x: 1}, to: 'sh2'}").assertError(400, 20, "admin");
        command("admin", "{moveRange: 'm3.c', toShard: 'sh2'}").assertError(400, 9, "min");
        command("admin", "{moveRange: 'm3.c', min: {x: 1}, max: 2, toShard: 'sh2'}").assertError(400, 14, "max");
        command("admin", "{moveRange: 'm3.c', min: {x: 1}, toShard: 'nosuchshard'}").assertError(404, 70, "'toShard'");
        command("admin", "{cleanupOrphaned: 5}").assertError(400, 14, "cleanupOrphaned");
        assertThat(toConfig("_configsvrMoveRange", "m3.c")).isEmpty();
    }

    @Test
    void cleanupOrphanedAsksEveryShard() throws Exception {
        command("admin", "{cleanupOrphaned: 'm4.c'}").assertOk();
        assertThat(sent(CLUSTER.sh1, "admin", "cleanupOrphaned")).hasSize(1);
        assertThat(sent(CLUSTER.sh2, "admin", "cleanupOrphaned")).hasSize(1);
    }

    @Test
    void dropDatabaseForgetsTheRoutingOfItsCollections() throws Exception {
        shard("a8", List.of("sh1", "sh2"));
        command("a8", "{insert: 'c', documents: [{x: 1}]}").assertOk();
        assertThat(cachedCollections().containsKey("a8.c")).isTrue();

        command("a8", "{dropDatabase: 1}").assertOk();

        assertThat(cachedCollections().containsKey("a8.c")).isFalse();
    }
}
