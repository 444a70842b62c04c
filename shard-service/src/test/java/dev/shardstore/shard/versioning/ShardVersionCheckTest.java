package dev.shardstore.shard.versioning;

import static dev.shardstore.shard.TestRouting.chunk;
import static dev.shardstore.shard.TestRouting.collection;
import static dev.shardstore.shard.TestRouting.version;
import static dev.shardstore.shard.TestRouting.versioned;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.event.CatalogEvent;
import dev.shardstore.contracts.sharding.ShardedCollection;
import dev.shardstore.contracts.sharding.StaleConfig;
import dev.shardstore.contracts.version.ChunkVersion;
import dev.shardstore.infra.EmbeddedInfra;
import dev.shardstore.shard.ConfigServerStub;
import dev.shardstore.shard.ShardIntegrationTest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.test.utils.ContainerTestUtils;

/**
 * The shard version check and orphan filtering over real HTTP, with the config service's routing tables served by
 * {@link ConfigServerStub}. Every collection {@code sv_*.c} is sharded on {@code {x: 1}} with chunk
 * {@code [MinKey, 10)} on this shard and {@code [10, MaxKey)} on {@code other} unless a test says otherwise.
 */
class ShardVersionCheckTest extends ShardIntegrationTest {
    private static final ConfigServerStub CONFIG = ConfigServerStub.instance();
    private static final String OTHER = "other";

    @Autowired
    CollectionShardingState state;
    @Autowired
    KafkaListenerEndpointRegistry listeners;

    /** Shards {@code db.c} as described above (this shard at 1|0, other at 1|1) and inserts x = 5 and x = 15 unversioned. */
    private ShardedCollection shardWithOrphan(String db) {
        ShardedCollection coll = collection(db + ".c", "{x: 1}");
        CONFIG.putRoutingTable(coll, List.of(
                chunk(coll, "{x: {$minKey: 1}}", "{x: 10}", SHARD_NAME, 1, 0),
                chunk(coll, "{x: 10}", "{x: {$maxKey: 1}}", OTHER, 1, 1)));
        insertInto(db, "c", "{_id: 1, x: 5, g: 'a'}", "{_id: 2, x: 15, g: 'b'}", "{_id: 3, x: 7, g: 'c'}");
        return coll;
    }

    @Test
    void equalVersionIsServedWithoutOrphans() {
        ShardedCollection coll = shardWithOrphan("sv_equal");

        BsonDocument reply = run("sv_equal", versioned("{find: 'c'}", version(coll, 1, 0)));

        assertThat(ids(reply.getDocument("cursor").getArray("firstBatch"))).containsExactly(1, 3);
        assertThat(ids(run("sv_equal", "{find: 'c'}").getDocument("cursor").getArray("firstBatch")))
                .as("unversioned reads see everything").containsExactly(1, 2, 3);
        assertThat(CONFIG.routingRequests("sv_equal.c")).containsExactly(Optional.empty());
    }

    @Test
    void everyReadAndMultiWriteSkipsOrphans() {
        ShardedCollection coll = shardWithOrphan("sv_orphans");
        ChunkVersion v = version(coll, 1, 0);

        assertThat(run("sv_orphans", versioned("{count: 'c'}", v)).getNumber("n").intValue()).isEqualTo(2);
        assertThat(run("sv_orphans", versioned("{count: 'c', query: {x: {$gt: 6}}}", v)).getNumber("n").intValue()).isEqualTo(1);
        assertThat(run("sv_orphans", versioned("{distinct: 'c', key: 'g'}", v)).getArray("values"))
                .extracting(g -> g.asString().getValue()).containsExactly("a", "c");
        assertThat(ids(run("sv_orphans", versioned("{aggregate: 'c', pipeline: [{$match: {}}], cursor: {}}", v))
                .getDocument("cursor").getArray("firstBatch"))).containsExactly(1, 3);
        assertThat(run("sv_orphans", versioned("{explain: {count: 'c'}, verbosity: 'executionStats'}", v))
                .getDocument("executionStats").getNumber("nReturned").intValue()).isEqualTo(2);

        BsonDocument updated = run("sv_orphans", versioned("{update: 'c', updates: [{q: {}, u: {$set: {seen: true}}, multi: true}]}", v));
        assertThat(updated.getNumber("n").intValue()).isEqualTo(2);
        BsonDocument deleted = run("sv_orphans", versioned("{delete: 'c', deletes: [{q: {}, limit: 0}]}", v));
        assertThat(deleted.getNumber("n").intValue()).isEqualTo(2);

        List<BsonDocument> left = documentsOf("sv_orphans", "c");
        assertThat(left).extracting(d -> d.getInt32("_id").getValue()).containsExactly(2);
        assertThat(left.getFirst().containsKey("seen")).as("the orphan was not updated").isFalse();
    }

    @Test
    void routerOlderThanTheShardGetsStaleConfigWithTheShardsVersion() {
        ShardedCollection coll = collection("sv_older.c", "{x: 1}");
        CONFIG.putRoutingTable(coll, List.of(
                chunk(coll, "{x: {$minKey: 1}}", "{x: 10}", OTHER, 1, 1),
                chunk(coll, "{x: 10}", "{x: {$maxKey: 1}}", SHARD_NAME, 2, 0)));

        BsonDocument reply = run("sv_older", versioned("{find: 'c'}", version(coll, 1, 0)));

        StaleConfig stale = StaleConfig.fromReply(reply);
        assertThat(stale.received()).isEqualTo(version(coll, 1, 0));
        assertThat(stale.wanted()).isEqualTo(version(coll, 2, 0));
        assertThat(stale.shardId()).isEqualTo(SHARD_NAME);
        assertThat(stale.namespace()).isEqualTo("sv_older.c");
        assertThat(CONFIG.routingRequests("sv_older.c")).as("an older version needs no second refresh").hasSize(1);
    }

    @Test
    void shardOlderThanTheRouterRefreshesIncrementallyAndServes() {
        ShardedCollection coll = shardWithOrphan("sv_newer");
        assertThat(run("sv_newer", versioned("{count: 'c'}", version(coll, 1, 0))).getNumber("n").intValue()).isEqualTo(2);

        // [10, MaxKey) migrates to this shard: its version becomes 2|0
        CONFIG.putRoutingTable(coll, List.of(
                chunk(coll, "{x: {$minKey: 1}}", "{x: 10}", SHARD_NAME, 1, 0),
                chunk(coll, "{x: 10}", "{x: {$maxKey: 1}}", SHARD_NAME, 2, 0)));
        BsonDocument reply = run("sv_newer", versioned("{count: 'c'}", version(coll, 2, 0)));

        assertThat(reply.getNumber("n").intValue()).isEqualTo(3);
        assertThat(CONFIG.routingRequests("sv_newer.c")).containsExactly(Optional.empty(), Optional.of(version(coll, 1, 1)));
        assertThat(state.cached("sv_newer.c").orElseThrow().shardVersion(SHARD_NAME)).isEqualTo(version(coll, 2, 0));
    }

    @Test
    void aNewEpochIsLoadedInFull() {
        ShardedCollection before = shardWithOrphan("sv_epoch");
        run("sv_epoch", versioned("{count: 'c'}", version(before, 1, 0)));

        ShardedCollection after = collection("sv_epoch.c", "{x: 1}");
        CONFIG.putRoutingTable(after, List.of(chunk(after, "{x: {$minKey: 1}}", "{x: {$maxKey: 1}}", SHARD_NAME, 1, 0)));
        BsonDocument reply = run("sv_epoch", versioned("{count: 'c'}", version(after, 1, 0)));

        assertThat(reply.getNumber("n").intValue()).isEqualTo(3);
        assertThat(state.cached("sv_epoch.c").orElseThrow().routingTable().collection().epoch()).isEqualTo(after.epoch());
        assertThat(CONFIG.routingRequests("sv_epoch.c")).hasSize(2);
        assertThat(CONFIG.routingRequests("sv_epoch.c").get(1)).contains(version(before, 1, 1));
    }

    @Test
    void unshardedAndShardedDisagreementsAreStale() {
        insertInto("sv_unsharded", "c", "{_id: 1, x: 1}");
        ShardedCollection ghost = collection("sv_unsharded.c", "{x: 1}");

        BsonDocument thinksSharded = run("sv_unsharded", versioned("{find: 'c'}", version(ghost, 1, 0)));
        BsonDocument unshardedServed = run("sv_unsharded", versioned("{find: 'c'}", ChunkVersion.UNSHARDED));

        assertThat(StaleConfig.fromReply(thinksSharded).wanted()).isEqualTo(ChunkVersion.UNSHARDED);
        assertThat(ids(unshardedServed.getDocument("cursor").getArray("firstBatch"))).containsExactly(1);

        ShardedCollection coll = shardWithOrphan("sv_sharded");
        BsonDocument thinksUnsharded = run("sv_sharded", versioned("{find: 'c'}", ChunkVersion.UNSHARDED));
        assertThat(StaleConfig.fromReply(thinksUnsharded).wanted()).isEqualTo(version(coll, 1, 0));
    }

    @Test
    void ignoredVersionSkipsTheCheckButNotTheOrphanFilter() {
        shardWithOrphan("sv_ignored");

        BsonDocument reply = run("sv_ignored", versioned("{find: 'c'}", ChunkVersion.IGNORED));

        assertThat(ids(reply.getDocument("cursor").getArray("firstBatch"))).containsExactly(1, 3);
    }

    @Test
    void versionedInsertOfADocumentAnotherShardOwnsIsStaleAndWritesNothing() {
        ShardedCollection coll = shardWithOrphan("sv_insert");
        ChunkVersion v = version(coll, 1, 0);

        BsonDocument refused = run("sv_insert", versioned("{insert: 'c', documents: [{_id: 10, x: 1}, {_id: 11, x: 20}]}", v));
        BsonDocument accepted = run("sv_insert", versioned("{insert: 'c', documents: [{_id: 12, x: 2}]}", v));

        assertThat(StaleConfig.fromReply(refused).wanted()).isEqualTo(v);
        assertThat(accepted.getNumber("n").intValue()).isEqualTo(1);
        assertThat(documentsOf("sv_insert", "c")).extracting(d -> d.getInt32("_id").getValue()).containsExactly(1, 2, 3, 12);
    }

    @Test
    void anUpdateMovingADocumentToAnotherShardsChunkIsRefused() {
        ShardedCollection coll = shardWithOrphan("sv_move");
        ChunkVersion v = version(coll, 1, 0);

        BsonDocument moved = run("sv_move", versioned("{update: 'c', updates: [{q: {_id: 1}, u: {$set: {x: 50}}}]}", v));
        BsonDocument stays = run("sv_move", versioned("{update: 'c', updates: [{q: {_id: 1}, u: {$set: {x: 6}}}]}", v));
        BsonDocument fam = run("sv_move", versioned("{findAndModify: 'c', query: {_id: 3}, update: {$set: {x: 11}}}", v));

        assertThat(moved.getArray("writeErrors").get(0).asDocument().getInt32("code").getValue()).isEqualTo(283);
        assertThat(stays.getNumber("nModified").intValue()).isEqualTo(1);
        assertThat(fam.getInt32("code").getValue()).isEqualTo(283);
        assertThat(documentsOf("sv_move", "c")).extracting(d -> d.getNumber("x").intValue()).containsExactly(6, 15, 7);
    }

    @Test
    void refreshCommandAndRoutingChangedEventsMakeTheShardReload() {
        ContainerTestUtils.waitForAssignment(listeners.getListenerContainer("shard-catalog-events"), 1);
        ShardedCollection coll = shardWithOrphan("sv_event");
        run("sv_event", versioned("{count: 'c'}", version(coll, 1, 0)));

        publish("sv_event", "sv_event.c");
        await().atMost(Duration.ofSeconds(10)).until(() -> state.cached("sv_event.c").isEmpty());
        assertThat(state.isStale("sv_event.c")).isTrue();
        assertThat(run("sv_event", versioned("{count: 'c'}", version(coll, 1, 0))).getNumber("n").intValue()).isEqualTo(2);
        assertThat(CONFIG.routingRequests("sv_event.c")).hasSize(2);

        CONFIG.removeRoutingTable("sv_event.c");
        BsonDocument refreshed = run("admin", "{_shardsvrRefreshCollection: 'sv_event.c'}");

        assertThat(refreshed.getBoolean("sharded").getValue()).isFalse();
        assertThat(state.cached("sv_event.c")).contains(CollectionFilteringInfo.UNSHARDED);
        assertThat(CONFIG.routingRequests("sv_event.c")).hasSize(3);
    }

    @Test
    void concurrentLoadsOfOneCollectionCoalesce() throws Exception {
        ShardedCollection coll = shardWithOrphan("sv_coalesced");
        CONFIG.delay(Duration.ofMillis(400));
        ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor();
        try {
            List<Future<BsonDocument>> replies = pool.invokeAll(Collections.nCopies(8,
                    () -> run("sv_coalesced", versioned("{count: 'c'}", version(coll, 1, 0)))));
            for (Future<BsonDocument> reply : replies) {
                assertThat(reply.get().getNumber("n").intValue()).isEqualTo(2);
            }
        } finally {
            CONFIG.delay(Duration.ZERO);
            pool.shutdown();
        }
        assertThat(CONFIG.routingRequests("sv_coalesced.c")).hasSize(1);
    }

    @Test
    void anUnreachableConfigServiceIsStaleWithoutAWantedVersion() {
        ShardedCollection coll = collection("sv_nowhere.c", "{x: 1}");
        CONFIG.putRoutingTable(coll, List.of(chunk(coll, "{x: {$minKey: 1}}", "{x: {$maxKey: 1}}", SHARD_NAME, 1, 0)));
        CONFIG.failRoutingTables(true);
        BsonDocument reply;
        try {
            reply = run("sv_nowhere", versioned("{count: 'c'}", version(coll, 1, 0)));
        } finally {
            CONFIG.failRoutingTables(false);
        }

        assertThat(StaleConfig.fromReply(reply).wanted()).isNull();
        assertThat(run("sv_nowhere", versioned("{count: 'c'}", version(coll, 1, 0))).getNumber("ok").intValue()).isEqualTo(1);
    }

    @Test
    void malformedShardVersionIsRejected() {
        assertThat(run("sv_bad", "{find: 'c', shardVersion: 5}").getInt32("code").getValue()).isEqualTo(14);
        assertThat(run("sv_bad", "{find: 'c', shardVersion: {major: 1}}").getInt32("code").getValue()).isEqualTo(2);
    }

    @Test
    void shardingStateEndpointShowsTheFilteringMetadata() throws Exception {
        ShardedCollection coll = shardWithOrphan("sv_shown");
        run("sv_shown", versioned("{count: 'c'}", version(coll, 1, 0)));

        BsonDocument entry = shardingState().getDocument("collections").getDocument("sv_shown.c");

        assertThat(entry.getBoolean("sharded").getValue()).isTrue();
        assertThat(entry.getString("shardVersion").getValue()).isEqualTo(version(coll, 1, 0).toString());
        assertThat(entry.getDocument("routingTable").getNumber("chunks").intValue()).isEqualTo(2);
    }

    @Test
    void shardCollectionsCriticalSectionHoldsVersionedWritesUntilTheRefreshThatMakesThemStale() throws Exception {
        assertThat(run("sv_cs", "{_shardsvrPrepareShardCollection: 'c', key: {x: 1}}").getBoolean("empty").getValue()).isTrue();
        try (ExecutorService client = Executors.newSingleThreadExecutor()) {
            // a router that still believes the collection unsharded writes a document the new chunks give to 'other'
            Future<BsonDocument> write = client.submit(() -> run("sv_cs",
                    versioned("{insert: 'c', documents: [{_id: 1, x: 15}]}", ChunkVersion.UNSHARDED)));
            await("the write waits for the critical section").during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(10))
                    .until(() -> !write.isDone());
            assertThat(shardingState().getArray("criticalSections")).extracting(v -> v.asDocument().getString("namespace").getValue())
                    .contains("sv_cs.c");

            ShardedCollection coll = collection("sv_cs.c", "{x: 1}");
            CONFIG.putRoutingTable(coll, List.of(
                    chunk(coll, "{x: {$minKey: 1}}", "{x: 10}", SHARD_NAME, 1, 0),
                    chunk(coll, "{x: 10}", "{x: {$maxKey: 1}}", OTHER, 1, 1)));
            run("admin", "{_shardsvrRefreshCollection: 'sv_cs.c'}"); // the config service, after its commit

            StaleConfig stale = StaleConfig.fromReply(write.get(10, TimeUnit.SECONDS));
            assertThat(stale.wanted()).isEqualTo(version(coll, 1, 0));
        }
        assertThat(documentsOf("sv_cs", "c")).as("nothing was written under the old routing").isEmpty();
    }

    @Test
    void aFailedPrepareLeavesNoCriticalSection() throws Exception {
        insertInto("sv_csfail", "c", "{_id: 1, x: 1}");
        BsonDocument refused = run("sv_csfail", "{_shardsvrPrepareShardCollection: 'c', key: {x: 1}}");
        assertThat(refused.getInt32("code").getValue()).as(refused.toJson()).isEqualTo(72); // no index on x
        try (ExecutorService client = Executors.newSingleThreadExecutor()) {
            Future<BsonDocument> write = client.submit(() -> run("sv_csfail",
                    versioned("{insert: 'c', documents: [{_id: 2, x: 2}]}", ChunkVersion.UNSHARDED)));
            assertThat(write.get(10, TimeUnit.SECONDS).getNumber("n").intValue()).isEqualTo(1);
        }
    }

    private BsonDocument shardingState() throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/shardingState")).build(),
                HttpResponse.BodyHandlers.ofString());
        return ExtendedJson.parse(response.body());
    }

    private static List<Integer> ids(List<BsonValue> documents) {
        return documents.stream().map(d -> d.asDocument().getInt32("_id").getValue()).toList();
    }

    private static void publish(String db, String namespace) {
        String json = "{\"type\":\"ROUTING_CHANGED\",\"database\":\"" + db + "\",\"namespace\":\"" + namespace
                + "\",\"sequence\":1,\"epoch\":null,\"collectionVersion\":null,\"shards\":[]}";
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, EmbeddedInfra.shared().bootstrapServers(),
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class))) {
            producer.send(new ProducerRecord<>(CatalogEvent.TOPIC, db, json)).get();
        } catch (Exception e) {
            throw new IllegalStateException("cannot publish " + json, e);
        }
    }
}
