package dev.shardstore.config.settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.infra.EmbeddedInfra;
import dev.shardstore.transport.http.CommandClient;
import java.time.Duration;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** {@code config.settings} and {@code config.actionlog} on a real config service (embedded PostgreSQL and Kafka). */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class SettingsCommandsTest {
    @LocalServerPort
    int port;

    @Autowired
    ClusterSettings settings;

    private final CommandClient client = new CommandClient(Duration.ofSeconds(2), Duration.ofSeconds(20));

    @DynamicPropertySource
    static void infra(DynamicPropertyRegistry registry) {
        EmbeddedInfra.shared().springProperties("config_settings_test").forEach((k, v) -> registry.add(k, () -> v));
    }

    private BsonDocument run(BsonDocument command) {
        return client.runChecked("config", "http://localhost:" + port, "admin", command);
    }

    private BsonDocument find(String collection) {
        return client.runChecked("config", "http://localhost:" + port, "config", new BsonDocument("find", new BsonString(collection)));
    }

    @Test
    void setKeepsOtherFieldsAndIsReadableThroughFind() {
        run(new BsonDocument("_configsvrSetSettings", new BsonString("balancer")).append("set",
                new BsonDocument("mode", new BsonString("off")).append("attemptToBalanceJumboChunks", BsonBoolean.TRUE)));
        run(new BsonDocument("_configsvrSetSettings", new BsonString("balancer")).append("set",
                new BsonDocument("mode", new BsonString("full"))));
        BsonDocument balancer = find("settings").getDocument("cursor").getArray("firstBatch").stream().map(v -> v.asDocument())
                .filter(d -> d.getString("_id").getValue().equals("balancer")).findFirst().orElseThrow();
        assertThat(balancer.getString("mode").getValue()).isEqualTo("full");
        assertThat(balancer.getBoolean("attemptToBalanceJumboChunks").getValue()).isTrue();
    }

    @Test
    void chunksizeIsTheMaxChunkSizeInMegabytes() {
        run(new BsonDocument("_configsvrSetSettings", new BsonString("chunksize")).append("set", new BsonDocument("value", new BsonInt32(2))));
        assertThat(settings.maxChunkSizeBytes()).isEqualTo(2L * 1024 * 1024);
        assertThatThrownBy(() -> run(new BsonDocument("_configsvrSetSettings", new BsonString("chunksize"))
                .append("set", new BsonDocument("value", new BsonInt32(0)))))
                .isInstanceOfSatisfying(CommandException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.BadValue);
                    assertThat(e.getMessage()).contains("'value'");
                });
    }

    @Test
    void autosplitEnabledIsASettingAsMongoDBsShellWritesIt() {
        run(new BsonDocument("_configsvrSetSettings", new BsonString("autosplit")).append("set", new BsonDocument("enabled", BsonBoolean.FALSE)));
        BsonDocument autosplit = find("settings").getDocument("cursor").getArray("firstBatch").stream().map(v -> v.asDocument())
                .filter(d -> d.getString("_id").getValue().equals("autosplit")).findFirst().orElseThrow();
        assertThat(autosplit.getBoolean("enabled").getValue()).isFalse();
        assertThatThrownBy(() -> run(new BsonDocument("_configsvrSetSettings", new BsonString("autosplit"))
                .append("set", new BsonDocument("enabled", new BsonString("no")))))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.getMessage()).contains("'enabled'"));
        run(new BsonDocument("_configsvrSetSettings", new BsonString("autosplit")).append("set", new BsonDocument("enabled", BsonBoolean.TRUE)));
    }

    @Test
    void unknownDocumentsAndFieldsAreNamed() {
        assertThatThrownBy(() -> run(new BsonDocument("_configsvrSetSettings", new BsonString("balancr"))
                .append("set", new BsonDocument("mode", new BsonString("off")))))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.getMessage()).contains("'balancr'"));
        assertThatThrownBy(() -> run(new BsonDocument("_configsvrSetSettings", new BsonString("balancer"))
                .append("set", new BsonDocument("mode", new BsonInt32(1)))))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.getMessage()).contains("'mode'"));
    }

    @Test
    void actionlogEntriesAreReadableThroughFind() {
        run(new BsonDocument("_configsvrLogAction", new BsonString("balancer.round")).append("server", new BsonString("balancer"))
                .append("details", new BsonDocument("chunksMoved", new BsonInt32(3))));
        assertThat(find("actionlog").getDocument("cursor").getArray("firstBatch")).anySatisfy(v -> {
            assertThat(v.asDocument().getString("what").getValue()).isEqualTo("balancer.round");
            assertThat(v.asDocument().getDocument("details").getInt32("chunksMoved").getValue()).isEqualTo(3);
        });
    }
}
