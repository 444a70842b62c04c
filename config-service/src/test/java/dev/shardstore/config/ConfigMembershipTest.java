package dev.shardstore.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.infra.EmbeddedInfra;
import dev.shardstore.support.testing.TestClusterKey;
import dev.shardstore.transport.http.CommandClient;
import java.time.Duration;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The config service with a cluster key, called directly: the cluster-time signing keys ({@code admin.system.keys})
 * and the internal commands are for members only. A caller without the key is refused with Unauthorized (13) over HTTP
 * and over the command port, reads no key and changes no setting; a member does both.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class ConfigMembershipTest {
    private static final TestClusterKey KEY = TestClusterKey.create("config-membership");
    private static final BsonDocument FIND_KEYS = new BsonDocument("find", new BsonString("system.keys"));

    @LocalServerPort
    int port;

    private final CommandClient member = new CommandClient(Duration.ofSeconds(2), Duration.ofSeconds(20), null, KEY.key());
    private final CommandClient anonymous = new CommandClient(Duration.ofSeconds(2), Duration.ofSeconds(20));

    @DynamicPropertySource
    static void infra(DynamicPropertyRegistry registry) {
        EmbeddedInfra.shared().springProperties("config_membership_test").forEach((k, v) -> registry.add(k, () -> v));
        registry.add("shardstore.security.cluster-key-file", () -> KEY.file().toString());
    }

    @AfterEach
    void close() {
        member.close();
        anonymous.close();
    }

    @Test
    void theSigningKeysAreReadableByMembersOnly() {
        for (int call = 0; call < 2; call++) { // HTTP, then the command port the first reply named
            BsonDocument refused = anonymous.run("config", url(), "admin", FIND_KEYS.clone());
            assertThat(refused.getInt32("code").getValue()).isEqualTo(ErrorCode.Unauthorized.code());
            assertThat(refused.containsKey("cursor")).isFalse();
        }
        BsonDocument keys = member.runChecked("config", url(), "admin", FIND_KEYS.clone());
        assertThat(keys.getDocument("cursor").getArray("firstBatch")).isNotEmpty();
    }

    @Test
    void aSettingChangesOnlyWhenAMemberSetsIt() {
        BsonDocument set = new BsonDocument("_configsvrSetSettings", new BsonString("chunksize")).append("set", new BsonDocument("value", new BsonInt32(7)));
        for (int call = 0; call < 2; call++) {
            assertThat(anonymous.run("config", url(), "admin", set.clone()).getInt32("code").getValue()).isEqualTo(ErrorCode.Unauthorized.code());
        }
        assertThat(chunkSize()).isNotEqualTo(7);

        member.runChecked("config", url(), "admin", set.clone());
        assertThat(chunkSize()).isEqualTo(7);
    }

    private int chunkSize() {
        return member.runChecked("config", url(), "config", new BsonDocument("find", new BsonString("settings"))).getDocument("cursor")
                .getArray("firstBatch").stream().map(BsonValue::asDocument).filter(d -> d.getString("_id").getValue().equals("chunksize"))
                .mapToInt(d -> d.getNumber("value").intValue()).findFirst().orElse(-1);
    }

    private String url() {
        return "http://127.0.0.1:" + port;
    }
}
