package dev.shardstore.config.keys;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.clock.HmacClusterTimeSigner;
import dev.shardstore.contracts.clock.LogicalClock;
import dev.shardstore.contracts.clock.SigningKey;
import dev.shardstore.infra.EmbeddedInfra;
import dev.shardstore.transport.http.CommandClient;
import java.time.Duration;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The config service's {@code admin.system.keys} (mongo/src/mongo/db/s/README.md "Key management") on a real PostgreSQL, with a
 * one-minute rotation interval; time passes by moving the config service's logical clock, not by waiting.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class KeyManagerTest {
    private static final long INTERVAL = 60;

    @LocalServerPort
    int port;
    @Autowired
    KeyManager manager;
    @Autowired
    LogicalClock clock;

    private final CommandClient client = new CommandClient(Duration.ofSeconds(2), Duration.ofSeconds(20));

    @DynamicPropertySource
    static void infra(DynamicPropertyRegistry registry) {
        EmbeddedInfra.shared().springProperties("config_keys_test").forEach((k, v) -> registry.add(k, () -> v));
        registry.add("shardstore.keys.rotation-interval", () -> INTERVAL + "s");
        registry.add("shardstore.keys.check-interval", () -> "1h"); // the test runs the check itself
    }

    @Test
    void keysAreMadeAheadRotatedNeverDeletedAndSignTheConfigServicesReplies() {
        List<SigningKey> first = keys();
        assertThat(first).as("one for now, one for the next interval").hasSizeGreaterThanOrEqualTo(2);
        long now = System.currentTimeMillis() / 1000;
        assertThat(first.getLast().expiresAt().getValue() >>> 32).isGreaterThan(now + INTERVAL);
        for (int i = 1; i < first.size(); i++) {
            assertThat((first.get(i).expiresAt().getValue() >>> 32) - (first.get(i - 1).expiresAt().getValue() >>> 32)).isEqualTo(INTERVAL);
        }

        BsonDocument reply = ping();
        BsonTimestamp time = reply.getDocument("$clusterTime").getTimestamp("clusterTime");
        BsonDocument signature = reply.getDocument("$clusterTime").getDocument("signature");
        signerOver(first).verify(time, signature);
        assertThat(signature.getInt64("keyId").getValue()).isEqualTo(SigningKey.signing(first, time).keyId());

        // two intervals pass: the check adds the key that is due; the old ones stay
        clock.advanceTo(new BsonTimestamp((int) ((first.getLast().expiresAt().getValue() >>> 32) + 1), 1));
        manager.ensureKeys();
        List<SigningKey> rotated = keys();
        assertThat(rotated).startsWith(first.toArray(SigningKey[]::new)).hasSizeGreaterThan(first.size());
        BsonDocument later = ping();
        BsonTimestamp laterTime = later.getDocument("$clusterTime").getTimestamp("clusterTime");
        signerOver(rotated).verify(laterTime, later.getDocument("$clusterTime").getDocument("signature"));
        assertThat(later.getDocument("$clusterTime").getDocument("signature").getInt64("keyId").getValue())
                .as("signed with a key made after the rotation").isNotIn(first.stream().map(SigningKey::keyId).toList());
        signerOver(rotated).verify(time, signature); // old signatures still check
    }

    private List<SigningKey> keys() {
        BsonDocument reply = client.runChecked("config", "http://localhost:" + port, "admin", new BsonDocument("find", new BsonString("system.keys"))
                .append("filter", new BsonDocument("purpose", new BsonString("HMAC"))));
        return reply.getDocument("cursor").getArray("firstBatch").stream().map(BsonValue::asDocument).map(SigningKey::fromBson).toList();
    }

    private BsonDocument ping() {
        return client.runChecked("config", "http://localhost:" + port, "admin", new BsonDocument("listShards", new BsonInt32(1)));
    }

    private static HmacClusterTimeSigner signerOver(List<SigningKey> keys) {
        return new HmacClusterTimeSigner(HmacClusterTimeSigner.Keys.over(() -> keys));
    }
}
