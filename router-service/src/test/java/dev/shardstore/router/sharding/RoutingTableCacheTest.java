package dev.shardstore.router.sharding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.shardstore.contracts.event.CatalogEvent;
import dev.shardstore.contracts.sharding.RoutingTable;
import dev.shardstore.contracts.version.ChunkVersion;
import dev.shardstore.infra.EmbeddedInfra;
import dev.shardstore.router.events.CatalogEventListener;
import dev.shardstore.router.routing.RoutingTableCache;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonValue;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.test.utils.ContainerTestUtils;

/**
 * The router's routing table cache and stale-routing loop against a fake config service and fake shards that
 * check shard versions (mongo/src/mongo/db/s/README.md "The routing table cache", "Versioning updates").
 */
class RoutingTableCacheTest extends RouterAgainstFakeCluster {
    private static final BsonDocument KEY = new BsonDocument("x", new BsonInt32(1));

    @Autowired
    RoutingTableCache cache;

    @Autowired
    KafkaListenerEndpointRegistry listeners;

    private static RoutingTable shardAtZero(String ns) {
        return CLUSTER.shardCollection(ns, KEY, List.<BsonValue>of(new BsonInt32(0)), List.of("sh1", "sh2"));
    }

    private List<BsonDocument> routingTableRequests(String ns) {
        return CLUSTER.config.received("_configsvrGetRoutingTable").stream()
                .filter(c -> c.getString("_configsvrGetRoutingTable").getValue().equals(ns)).toList();
    }

    @Test
    void firstUseLoadsInFullAndAStaleConfigRefreshesIncrementallyThenRetries() throws Exception {
        RoutingTable before = shardAtZero("cache1.c");
        command("cache1", "{insert: 'c', documents: [{_id: 1, x: 5}]}").assertOk();
        assertThat(routingTableRequests("cache1.c")).hasSize(1).first().satisfies(r -> assertThat(r.containsKey("sinceVersion")).isFalse());
        assertThat(shardVersionOf(CLUSTER.sh2.received("insert").getLast())).isEqualTo(before.shardVersion("sh2"));

        RoutingTable after = CLUSTER.moveChunk("cache1.c", 1, "sh1"); // behind the router's back
        int sh2Inserts = CLUSTER.sh2.received("insert").size();
        Reply reply = command("cache1", "{insert: 'c', documents: [{_id: 2, x: 6}]}");

        reply.assertOk();
        assertThat(reply.n()).isEqualTo(1);
        assertThat(CLUSTER.sh2.received("insert")).hasSize(sh2Inserts + 1); // answered StaleConfig
        BsonDocument delivered = CLUSTER.sh1.received("insert").getLast();
        assertThat(delivered.getArray("documents").get(0).asDocument().getInt32("x").getValue()).isEqualTo(6);
        assertThat(shardVersionOf(delivered)).isEqualTo(after.shardVersion("sh1"));
        List<BsonDocument> requests = routingTableRequests("cache1.c");
        assertThat(requests).hasSize(2);
        assertThat(ChunkVersion.fromBson(requests.get(1).getDocument("sinceVersion"))).isEqualTo(before.collectionVersion());
        BsonDocument entry = cacheEntry("cache1.c");
        assertThat(entry.getNumber("fullRefreshes").intValue()).isEqualTo(1);
        assertThat(entry.getNumber("incrementalRefreshes").intValue()).isEqualTo(1);
        assertThat(entry.getNumber("staleConfigRetries").intValue()).isEqualTo(1);
        assertThat(entry.getDocument("routingTable").getNumber("chunks").intValue()).isEqualTo(2);
    }

    @Test
    void aFailingRefreshIsTriedThreeTimesThenTheStaleTableIsUsed() throws Exception {
        shardAtZero("cache2.c");
        command("cache2", "{insert: 'c', documents: [{x: -1}]}").assertOk();
        int before = routingTableRequests("cache2.c").size();
        CLUSTER.failRoutingTableRequests.set(3);
        cache.markStale("cache2.c");

        Reply reply = command("cache2", "{insert: 'c', documents: [{x: -2}]}");

        reply.assertOk();
        assertThat(routingTableRequests("cache2.c")).hasSize(before + 3);
        assertThat(cacheEntry("cache2.c").getBoolean("stale").getValue()).isTrue(); // the next use tries again
        command("cache2", "{insert: 'c', documents: [{x: -3}]}").assertOk();
        assertThat(routingTableRequests("cache2.c")).hasSize(before + 4);
        assertThat(cacheEntry("cache2.c").getBoolean("stale").getValue()).isFalse();
    }

    @Test
    void withoutAnEntryToFallBackOnTheRefreshErrorIsTheAnswer() throws Exception {
        shardAtZero("cache3.c");
        CLUSTER.failRoutingTableRequests.set(3);

        Reply reply = command("cache3", "{insert: 'c', documents: [{x: 1}]}");

        reply.assertError(409, 46, "catalog busy");
        assertThat(routingTableRequests("cache3.c")).hasSize(3);
    }

    @Test
    void aShardThatStaysStaleEndsTheStatementAfterTenAttempts() throws Exception {
        CLUSTER.shardCollection("cache4.c", KEY, List.of(), List.of("sh2"));
        CLUSTER.alwaysStale.add("sh2");
        try {
            double waitsBefore = backoffWaits();

            Reply reply = command("cache4", "{insert: 'c', documents: [{x: 1}]}");

            reply.assertError(503, 13388, "still stale after 10 attempts");
            assertThat(CLUSTER.sh2.received.stream().filter(r -> r.db().equals("cache4")).count()).isEqualTo(10);
            assertThat(backoffWaits() - waitsBefore).as("attempts 3 to 10 wait first; the second runs at once").isEqualTo(8);
        } finally {
            CLUSTER.alwaysStale.remove("sh2");
        }
    }

    /** How many backoff waits the stale-version loop has made ({@code shardstore.router.stale.backoff}'s count). */
    private double backoffWaits() throws Exception {
        return get("/actuator/prometheus").lines().filter(l -> l.startsWith("shardstore_router_stale_backoff_seconds_count"))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
    }

    @Test
    void concurrentFirstUsesShareOneRefresh() throws Exception {
        shardAtZero("cache5.c");
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            threads.add(Thread.ofVirtual().start(() -> cache.get("cache5.c")));
        }
        for (Thread t : threads) {
            t.join();
        }
        assertThat(routingTableRequests("cache5.c")).hasSize(1);
    }

    @Test
    void aRoutingChangedEventMarksTheEntryStaleAndTheNextUseRefreshesIncrementally() throws Exception {
        ContainerTestUtils.waitForAssignment(listeners.getListenerContainer(CatalogEventListener.LISTENER_ID), 1);
        shardAtZero("cache6.c");
        command("cache6", "{insert: 'c', documents: [{x: 1}]}").assertOk();
        assertThat(cacheEntry("cache6.c").getBoolean("stale").getValue()).isFalse();
        RoutingTable after = CLUSTER.moveChunk("cache6.c", 0, "sh2");

        publish(new CatalogEvent(CatalogEvent.Type.ROUTING_CHANGED, "cache6", "cache6.c", 1, after.collection().epoch().toHexString(),
                after.collectionVersion().toString(), List.of("sh1", "sh2")));

        await().atMost(Duration.ofSeconds(10)).until(() -> cacheEntry("cache6.c").getBoolean("stale").getValue());
        int staleBefore = cacheEntry("cache6.c").getNumber("staleConfigRetries").intValue();
        command("cache6", "{insert: 'c', documents: [{x: -1}]}").assertOk();
        BsonDocument entry = cacheEntry("cache6.c");
        assertThat(entry.getNumber("incrementalRefreshes").intValue()).isEqualTo(1);
        assertThat(entry.getNumber("fullRefreshes").intValue()).isEqualTo(1);
        assertThat(entry.getNumber("staleConfigRetries").intValue()).isEqualTo(staleBefore); // refreshed before any shard said so
        assertThat(shardVersionOf(CLUSTER.sh2.received("insert").getLast())).isEqualTo(after.shardVersion("sh2"));
    }

    @Test
    void anEventTheCacheHasAlreadyCaughtUpWithDoesNotMarkItStale() throws Exception {
        ContainerTestUtils.waitForAssignment(listeners.getListenerContainer(CatalogEventListener.LISTENER_ID), 1);
        shardAtZero("cache9.c");
        shardAtZero("cache9.d");
        RoutingTable moved = CLUSTER.moveChunk("cache9.c", 0, "sh2");
        command("cache9", "{insert: 'c', documents: [{x: 1}]}").assertOk(); // loads the table with the move
        command("cache9", "{insert: 'd', documents: [{x: 1}]}").assertOk();
        RoutingTable d = CLUSTER.moveChunk("cache9.d", 0, "sh2");
        String epoch = moved.collection().epoch().toHexString();

        // the move's event arriving late, and an older one: nothing new for the cache
        publish(new CatalogEvent(CatalogEvent.Type.ROUTING_CHANGED, "cache9", "cache9.c", 1, epoch, moved.collectionVersion().toString(), List.of("sh2")));
        publish(new CatalogEvent(CatalogEvent.Type.ROUTING_CHANGED, "cache9", "cache9.c", 2, epoch,
                new ChunkVersion(1, 0, moved.collection().epoch(), moved.collection().timestamp()).toString(), List.of("sh1")));
        // a newer change of another collection of the database, published last: once it is seen, the two above were
        publish(new CatalogEvent(CatalogEvent.Type.ROUTING_CHANGED, "cache9", "cache9.d", 3, d.collection().epoch().toHexString(),
                d.collectionVersion().toString(), List.of("sh1", "sh2")));
        await().atMost(Duration.ofSeconds(10)).until(() -> cacheEntry("cache9.d").getBoolean("stale").getValue());
        assertThat(cacheEntry("cache9.c").getBoolean("stale").getValue()).isFalse();

        // a new epoch (dropped and sharded again, refined) always marks stale
        publish(new CatalogEvent(CatalogEvent.Type.ROUTING_CHANGED, "cache9", "cache9.c", 4, new ObjectId().toHexString(),
                new ChunkVersion(1, 0, new ObjectId(), moved.collection().timestamp()).toString(), List.of("sh1")));
        await().atMost(Duration.ofSeconds(10)).until(() -> cacheEntry("cache9.c").getBoolean("stale").getValue());
    }

    @Test
    void anEventArrivingWhileTheRefreshRunsCostsNoSecondRefresh() throws Exception {
        ContainerTestUtils.waitForAssignment(listeners.getListenerContainer(CatalogEventListener.LISTENER_ID), 1);
        shardAtZero("cache10.c");
        command("cache10", "{insert: 'c', documents: [{x: 1}]}").assertOk();
        RoutingTable moved = CLUSTER.moveChunk("cache10.c", 0, "sh2");
        // the move's event reaches the router while the refresh its StaleConfig started is still running: the config
        // service's reply waits until the router's listener has handled the event
        AtomicInteger handledDuringRefresh = new AtomicInteger();
        CLUSTER.beforeRoutingTableReply = () -> {
            RecordMetadata event = publish(new CatalogEvent(CatalogEvent.Type.ROUTING_CHANGED, "cache10", "cache10.c", 1,
                    moved.collection().epoch().toHexString(), moved.collectionVersion().toString(), List.of("sh1", "sh2")));
            await().atMost(Duration.ofSeconds(10)).until(() -> committedOffset(event.partition()) > event.offset());
            handledDuringRefresh.incrementAndGet();
        };
        try {
            command("cache10", "{insert: 'c', documents: [{x: -1}]}").assertOk();
        } finally {
            CLUSTER.beforeRoutingTableReply = null;
        }
        assertThat(handledDuringRefresh).as("the event was handled while the one refresh ran").hasValue(1);
        BsonDocument entry = cacheEntry("cache10.c");
        assertThat(entry.getBoolean("stale").getValue()).as("the refresh already brought what the event announced").isFalse();
        assertThat(entry.getNumber("incrementalRefreshes").intValue()).isEqualTo(1);
    }

    @Test
    void withItsEventConsumerStoppedARouterIsCorrectedByStaleConfig() throws Exception {
        shardAtZero("cache11.c");
        command("cache11", "{insert: 'c', documents: [{x: 1}]}").assertOk();
        assertThat(post("/actuator/catalogEvents", "{\"state\": \"paused\"}")).isEqualTo(400);
        assertThat(post("/actuator/catalogEvents", "{\"state\": \"stopped\"}")).isEqualTo(200);
        try {
            assertThat(get("/actuator/catalogEvents")).contains("stopped");
            CLUSTER.moveChunk("cache11.c", 1, "sh1");

            command("cache11", "{insert: 'c', documents: [{x: 2}]}").assertOk();

            BsonDocument entry = cacheEntry("cache11.c");
            assertThat(entry.getNumber("staleConfigRetries").intValue()).isEqualTo(1);
            assertThat(entry.getNumber("incrementalRefreshes").intValue()).isEqualTo(1);
        } finally {
            assertThat(post("/actuator/catalogEvents", "{\"state\": \"running\"}")).isEqualTo(200);
        }
        assertThat(get("/actuator/catalogEvents")).contains("running");
    }

    @Test
    void aDroppedDatabaseForgetsItsCollections() throws Exception {
        ContainerTestUtils.waitForAssignment(listeners.getListenerContainer(CatalogEventListener.LISTENER_ID), 1);
        shardAtZero("cache7.c");
        cache.get("cache7.c");
        assertThat(cache.snapshot()).anyMatch(e -> e.namespace().equals("cache7.c"));

        publish(new CatalogEvent(CatalogEvent.Type.DATABASE_DROPPED, "cache7", null, 2));

        await().atMost(Duration.ofSeconds(10)).until(() -> cache.snapshot().stream().noneMatch(e -> e.namespace().equals("cache7.c")));
    }

    @Test
    void anUnshardedCollectionGoesToThePrimaryWithBothVersions() throws Exception {
        command("cache8", "{insert: 'plain', documents: [{x: 1}]}").assertOk();
        BsonDocument sent = CLUSTER.sh1.received("insert").getLast();
        assertThat(sent.getString("insert").getValue()).isEqualTo("plain");
        assertThat(shardVersionOf(sent)).isEqualTo(ChunkVersion.UNSHARDED);
        assertThat(sent.containsKey("databaseVersion")).isTrue();
        assertThat(cacheEntry("cache8.plain").getBoolean("sharded").getValue()).isFalse();
    }

    @Test
    void aStaleShardsPartIsRetriedAloneAfterTheRefresh() throws Exception {
        shardAtZero("cache9.c");
        command("cache9", "{insert: 'c', documents: [{x: 1}]}").assertOk();
        RoutingTable after = CLUSTER.splitChunk("cache9.c", 1, new BsonInt32(100)); // sh2's version moves on, sh1's does not

        Reply reply = command("cache9", "{insert: 'c', ordered: false, documents: [{x: -1}, {x: 5}, {x: -2}, {x: 500}]}");

        reply.assertOk();
        assertThat(reply.n()).isEqualTo(4);
        assertThat(sent(CLUSTER.sh1, "cache9", "insert")).hasSize(1); // not resent after sh2's StaleConfig
        List<BsonDocument> toSh2 = sent(CLUSTER.sh2, "cache9", "insert");
        assertThat(toSh2).hasSize(3);
        assertThat(shardVersionOf(toSh2.getLast())).isEqualTo(after.shardVersion("sh2"));
        assertThat(toSh2.getLast().getArray("documents")).hasSize(2);
        assertThat(get("/actuator/prometheus")).contains("shardstore_router_routing_refreshes_total{type=\"incremental\"}")
                .contains("shardstore_router_stale_retries_total{kind=\"collection\"}");
    }

    @Test
    void aStaleDatabaseVersionReloadsTheDatabaseAndRetries() throws Exception {
        command("cache10", "{insert: 'plain', documents: [{x: 1}]}").assertOk();
        long lookups = databaseLookups("cache10");
        CLUSTER.bumpDatabaseVersion("cache10");

        command("cache10", "{insert: 'plain', documents: [{x: 2}]}").assertOk();

        assertThat(databaseLookups("cache10")).isEqualTo(lookups + 1);
        assertThat(sent(CLUSTER.sh1, "cache10", "insert")).hasSize(3);
    }

    private static long databaseLookups(String db) {
        return CLUSTER.config.received.stream()
                .filter(r -> List.of("_configsvrGetDatabase", "_configsvrCreateDatabase").contains(r.name()))
                .filter(r -> r.command().getString(r.name()).getValue().equals(db)).count();
    }

    /**
     * The offset the router's catalog-event consumer has committed on {@code partition} of the topic: the container
     * commits after its listener has handled the records it polled (Spring Kafka's default BATCH ack mode), so an offset
     * past an event's means the router's cache has been told of it. -1 before the first commit.
     */
    private long committedOffset(int partition) throws Exception {
        String group = listeners.getListenerContainer(CatalogEventListener.LISTENER_ID).getGroupId();
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, EmbeddedInfra.shared().bootstrapServers()))) {
            OffsetAndMetadata committed = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get()
                    .get(new TopicPartition(CatalogEvent.TOPIC, partition));
            return committed == null ? -1 : committed.offset();
        }
    }

    /** Publishes {@code event} on the catalog topic as the config service's outbox does; where it was written. */
    private static RecordMetadata publish(CatalogEvent event) {
        String json = "{\"type\":\"" + event.type() + "\",\"database\":\"" + event.database() + "\",\"namespace\":"
                + (event.namespace() == null ? "null" : "\"" + event.namespace() + "\"") + ",\"sequence\":" + event.sequence()
                + ",\"epoch\":" + (event.epoch() == null ? "null" : "\"" + event.epoch() + "\"")
                + ",\"collectionVersion\":" + (event.collectionVersion() == null ? "null" : "\"" + event.collectionVersion() + "\"")
                + ",\"shards\":[" + String.join(",", event.shards().stream().map(s -> "\"" + s + "\"").toList()) + "]}";
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, EmbeddedInfra.shared().bootstrapServers(),
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class))) {
            return producer.send(new ProducerRecord<>(CatalogEvent.TOPIC, event.database(), json)).get();
        } catch (Exception e) {
            throw new IllegalStateException("cannot publish " + json, e);
        }
    }
}
