package dev.shardstore.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.config.outbox.OutboxRelay;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.event.CatalogEvent;
import dev.shardstore.contracts.version.DatabaseVersion;
import dev.shardstore.infra.EmbeddedInfra;
import dev.shardstore.transport.http.CommandClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.json.JsonMapper;

/**
 * The config service against a real embedded PostgreSQL and Kafka broker, called over its real
 * internal HTTP endpoint. Shards are {@link StubShard} HTTP peers.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class ConfigServiceTest {
    private static final StubShard BIG = new StubShard("shardBig", 5_000_000);
    private static final StubShard SMALL = new StubShard("shardSmall", 1_000);

    @LocalServerPort
    int port;

    @Autowired
    JdbcClient jdbc;

    @Autowired
    OutboxRelay relay;

    @Autowired
    JsonMapper json;

    private final CommandClient client = new CommandClient(Duration.ofSeconds(2), Duration.ofSeconds(20));

    @DynamicPropertySource
    static void infra(DynamicPropertyRegistry registry) {
        EmbeddedInfra.shared().springProperties("config_service_test").forEach((k, v) -> registry.add(k, () -> v));
    }


    @AfterAll
    static void stopStubs() {
        BIG.close();
        SMALL.close();
    }

    private BsonDocument run(String db, BsonDocument command) {
        return client.runChecked("config", "http://localhost:" + port, db, command);
    }

    private void addBothShards() {
        run("admin", new BsonDocument("addShard", new BsonString(BIG.url())).append("name", new BsonString("shardBig")));
        run("admin", new BsonDocument("addShard", new BsonString(SMALL.url())));
    }

    @Test
    void addShardVerifiesTheShardAndIsIdempotent() {
        addBothShards();
        addBothShards();
        BsonDocument shards = run("admin", new BsonDocument("listShards", new BsonInt32(1)));
        assertThat(shards.getArray("shards")).extracting(v -> v.asDocument().getString("_id").getValue())
                .containsExactly("shardBig", "shardSmall");
        assertThat(shards.getArray("shards").get(0).asDocument().getString("host").getValue()).isEqualTo(BIG.url());
    }

    @Test
    void addShardRefusesAnUnreachableHostWithAClearError() {
        assertThatThrownBy(() -> run("admin", new BsonDocument("addShard", new BsonString("http://127.0.0.1:1"))))
                .isInstanceOfSatisfying(CommandException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.HostUnreachable);
                    assertThat(e.getMessage()).contains("http://127.0.0.1:1");
                });
    }

    @Test
    void addShardRefusesANameTheShardDoesNotHave() {
        assertThatThrownBy(() -> run("admin", new BsonDocument("addShard", new BsonString(SMALL.url())).append("name", new BsonString("other"))))
                .isInstanceOfSatisfying(CommandException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.OperationFailed);
                    assertThat(e.getMessage()).contains("shardSmall").contains("other");
                });
    }

    @Test
    void addShardRefusesAMalformedUrlNamingIt() {
        assertThatThrownBy(() -> run("admin", new BsonDocument("addShard", new BsonString("not a url"))))
                .isInstanceOfSatisfying(CommandException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.BadValue);
                    assertThat(e.getMessage()).contains("not a url");
                });
    }

    @Test
    void aNewDatabaseGoesToTheShardWithTheLeastDataAndStartsAtLastModOne() {
        addBothShards();
        BsonDocument db = run("admin", new BsonDocument("_configsvrCreateDatabase", new BsonString("newdb"))).getDocument("database");
        assertThat(db.getString("primary").getValue()).isEqualTo("shardSmall");
        assertThat(DatabaseVersion.fromBson(db.getDocument("version")).lastMod()).isEqualTo(1);
        BsonDocument fetched = run("admin", new BsonDocument("_configsvrGetDatabase", new BsonString("newdb"))).getDocument("database");
        assertThat(fetched).isEqualTo(db);
    }

    @Test
    void concurrentFirstWritesCreateTheDatabaseOnce() throws Exception {
        addBothShards();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        List<Callable<BsonDocument>> creators = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            creators.add(() -> run("admin", new BsonDocument("_configsvrCreateDatabase", new BsonString("racedb"))).getDocument("database"));
        }
        Set<UUID> uuids = new HashSet<>();
        for (Future<BsonDocument> f : pool.invokeAll(creators)) {
            uuids.add(DatabaseVersion.fromBson(f.get().getDocument("version")).uuid());
        }
        pool.shutdown();
        assertThat(uuids).hasSize(1);
        assertThat(jdbc.sql("SELECT count(*) FROM databases WHERE id = 'racedb'").query(Long.class).single()).isEqualTo(1L);
    }

    @Test
    void dropDatabaseDropsDataOnThePrimaryAndARecreatedDatabaseGetsANewUuid() {
        addBothShards();
        DatabaseVersion before = DatabaseVersion.fromBson(run("admin",
                new BsonDocument("_configsvrCreateDatabase", new BsonString("dropme"))).getDocument("database").getDocument("version"));
        BsonDocument dropped = run("admin", new BsonDocument("_configsvrDropDatabase", new BsonString("dropme")));
        assertThat(dropped.getString("dropped").getValue()).isEqualTo("dropme");
        assertThat(SMALL.received).contains("dropDatabase dropme");
        assertThatThrownBy(() -> run("admin", new BsonDocument("_configsvrGetDatabase", new BsonString("dropme"))))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NamespaceNotFound));
        DatabaseVersion after = DatabaseVersion.fromBson(run("admin",
                new BsonDocument("_configsvrCreateDatabase", new BsonString("dropme"))).getDocument("database").getDocument("version"));
        assertThat(after.uuid()).isNotEqualTo(before.uuid());
        assertThat(after.lastMod()).isEqualTo(1);
        assertThat(run("admin", new BsonDocument("_configsvrDropDatabase", new BsonString("never-existed")))).doesNotContainKey("dropped");
    }

    @Test
    void reservedDatabasesCannotBeCreated() {
        assertThatThrownBy(() -> run("admin", new BsonDocument("_configsvrCreateDatabase", new BsonString("config"))))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.InvalidNamespace));
    }

    @Test
    void configCollectionsAreReadableWithQueryFiltersSortsAndProjections() {
        addBothShards();
        for (String name : List.of("visible", "alpha", "omega")) {
            run("admin", new BsonDocument("_configsvrCreateDatabase", new BsonString(name)));
        }
        BsonDocument shards = run("config", new BsonDocument("find", new BsonString("shards"))
                .append("filter", new BsonDocument("_id", new BsonString("shardBig"))));
        assertThat(shards.getDocument("cursor").getArray("firstBatch")).hasSize(1);
        BsonDocument dbs = run("config", new BsonDocument("find", new BsonString("databases"))
                .append("filter", new BsonDocument("_id", new BsonString("visible"))));
        assertThat(dbs.getDocument("cursor").getArray("firstBatch").get(0).asDocument().getString("primary").getValue()).isEqualTo("shardSmall");
        // what mongosh's sh.status() and an admin's shell send: operators, a descending sort, a projection, skip and limit
        BsonDocument sorted = run("config", new BsonDocument("find", new BsonString("databases"))
                .append("filter", new BsonDocument("_id", new BsonDocument("$in", new BsonArray(List.of(
                        new BsonString("alpha"), new BsonString("omega"), new BsonString("visible"), new BsonString("absent"))))))
                .append("sort", new BsonDocument("_id", new BsonInt32(-1)))
                .append("projection", new BsonDocument("primary", new BsonInt32(0)))
                .append("skip", new BsonInt32(1)).append("limit", new BsonInt32(5)));
        List<BsonDocument> batch = sorted.getDocument("cursor").getArray("firstBatch").stream().map(v -> v.asDocument()).toList();
        assertThat(batch).extracting(d -> d.getString("_id").getValue()).containsExactly("omega", "alpha");
        assertThat(batch).allSatisfy(d -> assertThat(d).containsKey("version").doesNotContainKey("primary"));
        BsonDocument regex = run("config", new BsonDocument("find", new BsonString("shards"))
                .append("filter", new BsonDocument("_id", new BsonDocument("$regex", new BsonString("^shardS"))))
                .append("projection", new BsonDocument("_id", new BsonInt32(1))));
        assertThat(regex.getDocument("cursor").getArray("firstBatch")).containsExactly(new BsonDocument("_id", new BsonString("shardSmall")));
        assertThatThrownBy(() -> run("config", new BsonDocument("find", new BsonString("shards"))
                .append("filter", new BsonDocument("state", new BsonDocument("$frob", new BsonInt32(0))))))
                .isInstanceOfSatisfying(CommandException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.BadValue);
                    assertThat(e.getMessage()).contains("$frob");
                });
        assertThatThrownBy(() -> run("config", new BsonDocument("find", new BsonString("shards"))
                .append("sort", new BsonDocument("_id", new BsonString("up")))))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.BadValue));
        BsonDocument first = run("config", new BsonDocument("find", new BsonString("shards")).append("limit", new BsonInt32(-1)));
        assertThat(first.getDocument("cursor").getArray("firstBatch")).hasSize(1); // a driver's first(): limit applied, not refused
        // config.version: MongoDB's {_id: 1, clusterId}, the same on every read
        BsonDocument version = run("config", new BsonDocument("find", new BsonString("version"))).getDocument("cursor")
                .getArray("firstBatch").get(0).asDocument();
        assertThat(version.getInt32("_id").getValue()).isEqualTo(1);
        assertThat(version.getObjectId("clusterId").getValue().getDate()).isCloseTo(new java.util.Date(), 86_400_000L);
        assertThat(run("config", new BsonDocument("find", new BsonString("version"))).getDocument("cursor").getArray("firstBatch"))
                .containsExactly(version);
        for (String option : List.of("hint", "let")) {
            assertThatThrownBy(() -> run("config", new BsonDocument("find", new BsonString("shards"))
                    .append(option, new BsonDocument("_id", new BsonInt32(1)))))
                    .isInstanceOfSatisfying(CommandException.class, e -> {
                        assertThat(e.code()).isEqualTo(ErrorCode.NotImplemented);
                        assertThat(e.getMessage()).contains("'" + option + "'");
                    });
        }
        assertThatThrownBy(() -> run("config", new BsonDocument("find", new BsonString("shards")).append("frobnicate", new BsonInt32(1))))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.Location40415));
    }

    @Test
    void everyCatalogChangeIsPublishedToKafkaThroughTheOutbox() throws Exception {
        addBothShards();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, EmbeddedInfra.shared().bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG, "config-test-" + UUID.randomUUID(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"), new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(CatalogEvent.TOPIC));
            run("admin", new BsonDocument("_configsvrCreateDatabase", new BsonString("evented")));
            run("admin", new BsonDocument("_configsvrDropDatabase", new BsonString("evented")));
            relay.relay();
            List<CatalogEvent> seen = new ArrayList<>();
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (System.nanoTime() < deadline && seen.stream().noneMatch(e -> e.type() == CatalogEvent.Type.DATABASE_DROPPED && e.database().equals("evented"))) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    seen.add(json.readValue(record.value(), CatalogEvent.class));
                }
            }
            List<CatalogEvent.Type> forDb = seen.stream().filter(e -> e.database().equals("evented")).map(CatalogEvent::type).toList();
            assertThat(forDb).containsSubsequence(CatalogEvent.Type.DATABASE_CREATED, CatalogEvent.Type.DATABASE_DROPPED);
            assertThat(jdbc.sql("SELECT count(*) FROM outbox").query(Long.class).single()).isZero();
        }
    }
}
