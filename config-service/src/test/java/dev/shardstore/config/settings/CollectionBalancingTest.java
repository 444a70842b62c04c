package dev.shardstore.config.settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.config.catalog.CatalogFixtures;
import dev.shardstore.config.catalog.ShardedCollectionCatalog;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.sharding.ShardedCollection;
import dev.shardstore.infra.EmbeddedInfra;
import dev.shardstore.transport.http.CommandClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The balancer's settings as a client changes them on a real config service (embedded PostgreSQL and Kafka):
 * {@code update} of {@code config.settings} and of {@code config.collections}' {@code noBalance} (what mongosh's helpers
 * send through mongos), {@code configureCollectionBalancing}, and the persisted balancer round counter.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class CollectionBalancingTest {
    private static final String NS = "bal.coll";

    @LocalServerPort
    int port;

    @Autowired
    JdbcClient jdbc;

    @Autowired
    ShardedCollectionCatalog collections;

    private final CommandClient client = new CommandClient(Duration.ofSeconds(2), Duration.ofSeconds(20));

    @DynamicPropertySource
    static void infra(DynamicPropertyRegistry registry) {
        EmbeddedInfra.shared().springProperties("config_collection_balancing_test").forEach((k, v) -> registry.add(k, () -> v));
    }

    @BeforeEach
    void oneShardedCollection() {
        jdbc.sql("DELETE FROM settings").update();
        jdbc.sql("DELETE FROM collections").update();
        jdbc.sql("INSERT INTO shards (id, host) VALUES ('shardB', 'http://localhost:1') ON CONFLICT DO NOTHING").update();
        CatalogFixtures.shardedOnOneChunk(collections, NS, "shardB");
    }

    private BsonDocument admin(BsonDocument command) {
        return client.runChecked("config", "http://localhost:" + port, "admin", command);
    }

    private BsonDocument config(BsonDocument command) {
        return client.runChecked("config", "http://localhost:" + port, "config", command);
    }

    private static BsonDocument update(String collection, String id, BsonDocument u, boolean upsert) {
        return new BsonDocument("update", new BsonString(collection)).append("updates", new BsonArray(List.of(
                new BsonDocument("q", new BsonDocument("_id", new BsonString(id))).append("u", u).append("upsert", BsonBoolean.valueOf(upsert)))));
    }

    private static BsonDocument set(String field, BsonValue value) {
        return new BsonDocument("$set", new BsonDocument(field, value));
    }

    private BsonDocument setting(String id) {
        return config(new BsonDocument("find", new BsonString("settings")).append("filter", new BsonDocument("_id", new BsonString(id))))
                .getDocument("cursor").getArray("firstBatch").get(0).asDocument();
    }

    private BsonDocument collection() {
        return config(new BsonDocument("find", new BsonString("collections")).append("filter", new BsonDocument("_id", new BsonString(NS))))
                .getDocument("cursor").getArray("firstBatch").get(0).asDocument();
    }

    @Test
    void settingsUpdatesUpsertSetAndUnsetAsMongoshSendsThem() {
        BsonDocument upserted = config(update("settings", "chunksize", new BsonDocument("$set",
                new BsonDocument("_id", new BsonString("chunksize")).append("value", new BsonInt32(64))), true));
        assertThat(upserted.getNumber("n").intValue()).isEqualTo(1);
        assertThat(upserted.getArray("upserted")).singleElement()
                .satisfies(u -> assertThat(u.asDocument().getString("_id").getValue()).isEqualTo("chunksize"));
        assertThat(setting("chunksize").getInt32("value").getValue()).isEqualTo(64);

        BsonDocument window = new BsonDocument("start", new BsonString("23:00")).append("stop", new BsonString("6:00"));
        config(update("settings", "balancer", set("activeWindow", window), true));
        BsonDocument again = config(update("settings", "balancer", set("activeWindow", window), true));
        assertThat(again.getNumber("n").intValue()).isEqualTo(1);
        assertThat(again.getNumber("nModified").intValue()).isZero();
        assertThat(setting("balancer").getDocument("activeWindow")).isEqualTo(window);

        config(update("settings", "balancer", new BsonDocument("$unset", new BsonDocument("activeWindow", new BsonInt32(1))), false));
        assertThat(setting("balancer").containsKey("activeWindow")).isFalse();

        // mode and the legacy stopped never disagree
        config(update("settings", "balancer", set("stopped", BsonBoolean.TRUE), true));
        assertThat(setting("balancer").getString("mode").getValue()).isEqualTo("off");
        config(update("settings", "balancer", set("mode", new BsonString("full")), true));
        assertThat(setting("balancer").getBoolean("stopped").getValue()).isFalse();

        config(update("settings", "automerge", set("enabled", BsonBoolean.FALSE), true));
        config(update("settings", "balancer", set("_waitForDelete", BsonBoolean.TRUE), true));
        assertThat(setting("automerge").getBoolean("enabled").getValue()).isFalse();
        assertThat(setting("balancer").getBoolean("_waitForDelete").getValue()).isTrue();
    }

    @Test
    void badSettingsAreRefusedNamingTheFieldAndWriteNothing() {
        refused(update("settings", "chunksize", set("value", new BsonInt32(4096)), true), ErrorCode.BadValue, "'value'");
        refused(update("settings", "balancer", set("activeWindow", new BsonDocument("start", new BsonString("25:00"))
                .append("stop", new BsonString("6:00"))), true), ErrorCode.BadValue, "activeWindow.start");
        refused(update("settings", "balancer", set("mode", new BsonString("sometimes")), true), ErrorCode.BadValue, "mode");
        refused(update("settings", "balancer", set("_secondaryThrottle", BsonBoolean.TRUE), true), ErrorCode.NotImplemented,
                "_secondaryThrottle");
        refused(update("settings", "balancer", set("attemptToBalanceJumboChunks", new BsonString("yes")), true), ErrorCode.BadValue,
                "attemptToBalanceJumboChunks");
        refused(new BsonDocument("update", new BsonString("settings")).append("updates", new BsonArray(List.of(
                new BsonDocument("q", new BsonDocument("_id", new BsonString("balancer")))
                        .append("u", new BsonDocument("mode", new BsonString("off")))))), ErrorCode.NotImplemented, "updates.0.u");
        refused(update("shards", "shardB", set("host", new BsonString("x")), false), ErrorCode.IllegalOperation, "config.shards");

        // a statement refused after a good one: the whole command writes nothing
        BsonDocument both = new BsonDocument("update", new BsonString("settings")).append("updates", new BsonArray(List.of(
                update("settings", "chunksize", set("value", new BsonInt32(8)), true).getArray("updates").get(0),
                update("settings", "chunksize", set("value", new BsonInt32(0)), true).getArray("updates").get(0))));
        refused(both, ErrorCode.BadValue, "'value'");
        assertThat(jdbc.sql("SELECT count(*) FROM settings").query(Long.class).single()).isZero();
    }

    private void refused(BsonDocument command, ErrorCode code, String naming) {
        assertThatThrownBy(() -> config(command)).isInstanceOfSatisfying(CommandException.class, e -> {
            assertThat(e.code()).isEqualTo(code);
            assertThat(e.getMessage()).contains(naming);
        });
    }

    @Test
    void noBalanceChangesThroughAnUpdateOfConfigCollections() {
        BsonDocument disabled = config(update("collections", NS, set("noBalance", BsonBoolean.TRUE), false));
        assertThat(disabled.getNumber("n").intValue()).isEqualTo(1);
        assertThat(disabled.getNumber("nModified").intValue()).isEqualTo(1);
        assertThat(collection().getBoolean("noBalance").getValue()).isTrue();
        config(update("collections", NS, new BsonDocument("$unset", new BsonDocument("noBalance", new BsonString(""))), false));
        assertThat(collection().getBoolean("noBalance").getValue()).isFalse();

        assertThat(config(update("collections", "bal.missing", set("noBalance", BsonBoolean.TRUE), false)).getNumber("n").intValue()).isZero();
        refused(update("collections", NS, set("key", new BsonDocument("y", new BsonInt32(1))), false), ErrorCode.NotImplemented, "'key'");
        refused(update("collections", NS, set("noBalance", BsonBoolean.TRUE), true), ErrorCode.NotImplemented, "upsert");
    }

    @Test
    void configureCollectionBalancingStoresChunkSizeAndAutoMerger() {
        admin(new BsonDocument("_configsvrConfigureCollectionBalancing", new BsonString(NS)).append("chunkSize", new BsonInt32(32))
                .append("enableAutoMerger", BsonBoolean.FALSE));
        BsonDocument entry = collection();
        assertThat(entry.getInt64("maxChunkSizeBytes").getValue()).isEqualTo(32L * 1024 * 1024);
        assertThat(entry.getBoolean("enableAutoMerger").getValue()).isFalse();

        admin(new BsonDocument("_configsvrConfigureCollectionBalancing", new BsonString(NS)).append("chunkSize", new BsonInt32(0)));
        assertThat(collection().containsKey("maxChunkSizeBytes")).as("0 falls back to the cluster's chunksize").isFalse();
        assertThat(collection().getBoolean("enableAutoMerger").getValue()).as("untouched when not given").isFalse();

        refusedAdmin(new BsonDocument("_configsvrConfigureCollectionBalancing", new BsonString(NS)).append("chunkSize", new BsonInt32(2048)),
                ErrorCode.BadValue, "'chunkSize'");
        refusedAdmin(new BsonDocument("_configsvrConfigureCollectionBalancing", new BsonString(NS)).append("defragmentCollection", BsonBoolean.TRUE),
                ErrorCode.NotImplemented, "'defragmentCollection'");
        refusedAdmin(new BsonDocument("_configsvrConfigureCollectionBalancing", new BsonString("bal.missing")).append("chunkSize", new BsonInt32(1)),
                ErrorCode.NamespaceNotSharded, "bal.missing");
    }

    private void refusedAdmin(BsonDocument command, ErrorCode code, String naming) {
        assertThatThrownBy(() -> admin(command)).isInstanceOfSatisfying(CommandException.class, e -> {
            assertThat(e.code()).isEqualTo(code);
            assertThat(e.getMessage()).contains(naming);
        });
    }

    @Test
    void concurrentRoundsEachGetTheirOwnNumber() throws Exception {
        long before = admin(new BsonDocument("_configsvrBalancerRound", new BsonInt32(1))).getNumber("numBalancerRounds").longValue();
        ConcurrentHashMap<Long, Boolean> numbers = new ConcurrentHashMap<>();
        ExecutorService threads = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> rounds = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                rounds.add(threads.submit(() -> numbers.put(admin(new BsonDocument("_configsvrBalancerRound", new BsonInt32(1))
                        .append("start", BsonBoolean.TRUE)).getNumber("numBalancerRounds").longValue(), true)));
            }
            for (Future<?> round : rounds) {
                round.get();
            }
        } finally {
            threads.shutdown();
        }
        assertThat(numbers.keySet()).hasSize(20).allSatisfy(n -> assertThat(n).isBetween(before + 1, before + 20));
        assertThat(admin(new BsonDocument("_configsvrBalancerRound", new BsonInt32(1))).getNumber("numBalancerRounds").longValue())
                .isEqualTo(before + 20);
    }
}
