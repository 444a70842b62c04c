package dev.shardstore.config.settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.infra.EmbeddedInfra;
import dev.shardstore.transport.http.CommandClient;
import java.time.Duration;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonNull;
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

/** Zones on a real config service: {@code config.shards.tags} and {@code config.tags}, their refusals with MongoDB's codes. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class ZoneCatalogTest {
    @LocalServerPort
    int port;

    @Autowired
    JdbcClient jdbc;

    private final CommandClient client = new CommandClient(Duration.ofSeconds(2), Duration.ofSeconds(20));

    @DynamicPropertySource
    static void infra(DynamicPropertyRegistry registry) {
        EmbeddedInfra.shared().springProperties("config_zones_test").forEach((k, v) -> registry.add(k, () -> v));
    }

    @BeforeEach
    void oneShard() {
        jdbc.sql("DELETE FROM tags").update();
        jdbc.sql("DELETE FROM shard_zones").update();
        jdbc.sql("INSERT INTO shards (id, host) VALUES ('shardZ', 'http://localhost:1') ON CONFLICT DO NOTHING").update();
    }

    private BsonDocument run(BsonDocument command) {
        return client.runChecked("config", "http://localhost:" + port, "admin", command);
    }

    private static BsonDocument x(int value) {
        return new BsonDocument("x", new BsonInt32(value));
    }

    private BsonDocument range(int min, int max, BsonValue zone) {
        return new BsonDocument("_configsvrUpdateZoneKeyRange", new BsonString("db.zoned")).append("min", x(min)).append("max", x(max))
                .append("zone", zone);
    }

    @Test
    void rangesNeedAZoneWithAShardAndMustNotOverlap() {
        assertThatThrownBy(() -> run(range(0, 10, new BsonString("EU"))))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.ZoneNotFound));
        run(new BsonDocument("_configsvrAddShardToZone", new BsonString("shardZ")).append("zone", new BsonString("EU")));
        run(range(0, 10, new BsonString("EU")));
        run(range(0, 10, new BsonString("EU"))); // idempotent
        assertThatThrownBy(() -> run(range(5, 15, new BsonString("EU"))))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.RangeOverlapConflict));
        run(range(10, 20, new BsonString("EU")));

        BsonDocument shard = client.runChecked("config", "http://localhost:" + port, "config",
                new BsonDocument("find", new BsonString("shards")).append("filter", new BsonDocument("_id", new BsonString("shardZ"))))
                .getDocument("cursor").getArray("firstBatch").get(0).asDocument();
        assertThat(shard.getArray("tags")).containsExactly(new BsonString("EU"));
        assertThat(client.runChecked("config", "http://localhost:" + port, "config", new BsonDocument("find", new BsonString("tags")))
                .getDocument("cursor").getArray("firstBatch")).extracting(v -> v.asDocument().getDocument("min")).containsExactly(x(0), x(10));
    }

    @Test
    void theLastShardOfAZoneInUseCannotLeaveIt() {
        run(new BsonDocument("_configsvrAddShardToZone", new BsonString("shardZ")).append("zone", new BsonString("EU")));
        run(range(0, 10, new BsonString("EU")));
        BsonDocument remove = new BsonDocument("_configsvrRemoveShardFromZone", new BsonString("shardZ")).append("zone", new BsonString("EU"));
        assertThatThrownBy(() -> run(remove))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.ZoneStillInUse));
        run(range(0, 10, BsonNull.VALUE));
        run(remove);
        assertThatThrownBy(() -> run(new BsonDocument("_configsvrAddShardToZone", new BsonString("nope")).append("zone", new BsonString("EU"))))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.ShardNotFound));
    }
}
