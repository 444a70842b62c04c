package dev.shardstore.config.settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.infra.EmbeddedInfra;
import dev.shardstore.transport.http.CommandClient;
import java.time.Duration;
import java.util.UUID;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** {@code removeShard}'s states on a real config service: started, ongoing while a database has it as primary, completed. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class RemoveShardTest {
    @LocalServerPort
    int port;

    @Autowired
    JdbcClient jdbc;

    private final CommandClient client = new CommandClient(Duration.ofSeconds(2), Duration.ofSeconds(20));

    @DynamicPropertySource
    static void infra(DynamicPropertyRegistry registry) {
        EmbeddedInfra.shared().springProperties("config_remove_shard_test").forEach((k, v) -> registry.add(k, () -> v));
    }

    private BsonDocument removeShard(String id) {
        return client.runChecked("config", "http://localhost:" + port, "admin", new BsonDocument("removeShard", new BsonString(id)));
    }

    private BsonDocument shardDoc(String id) {
        return client.runChecked("config", "http://localhost:" + port, "config", new BsonDocument("find", new BsonString("shards"))
                .append("filter", new BsonDocument("_id", new BsonString(id)))).getDocument("cursor").getArray("firstBatch").get(0).asDocument();
    }

    @Test
    void drainsUntilNothingIsLeftThenLeaves() {
        jdbc.sql("DELETE FROM databases WHERE id = 'app'").update();
        jdbc.sql("DELETE FROM shards WHERE id IN ('keep', 'gone')").update();
        jdbc.sql("INSERT INTO shards (id, host) VALUES ('keep', 'http://localhost:2'), ('gone', 'http://localhost:3')").update();
        jdbc.sql("INSERT INTO databases (id, primary_shard, version_uuid, version_last_mod, version_timestamp) VALUES ('app', 'gone', ?, 1, 1)")
                .param(UUID.randomUUID()).update();

        BsonDocument started = removeShard("gone");
        assertThat(started.getString("state").getValue()).isEqualTo("started");
        assertThat(started.getArray("dbsToMove")).containsExactly(new BsonString("app"));
        assertThat(shardDoc("gone").getBoolean("draining").getValue()).isTrue();
        assertThat(shardDoc("gone").getInt32("state").getValue()).isEqualTo(2);

        BsonDocument ongoing = removeShard("gone");
        assertThat(ongoing.getString("state").getValue()).isEqualTo("ongoing");
        assertThat(ongoing.getDocument("remaining").getNumber("dbs").longValue()).isEqualTo(1);
        assertThat(ongoing.getDocument("remaining").getNumber("chunks").longValue()).isZero();

        // the last shard that is not draining cannot be removed
        assertThatThrownBy(() -> removeShard("keep"))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.IllegalOperation));

        jdbc.sql("UPDATE databases SET primary_shard = 'keep' WHERE id = 'app'").update();
        assertThat(removeShard("gone").getString("state").getValue()).isEqualTo("completed");
        assertThat(jdbc.sql("SELECT count(*) FROM shards WHERE id = 'gone'").query(Long.class).single()).isZero();
        assertThatThrownBy(() -> removeShard("gone"))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.ShardNotFound));
    }
}
