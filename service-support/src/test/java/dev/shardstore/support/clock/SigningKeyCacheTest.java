package dev.shardstore.support.clock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.clock.SigningKey;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.error.ErrorReplies;
import dev.shardstore.transport.http.CommandClient;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The cache against a real HTTP peer standing in for the config service's {@code admin.system.keys}. */
class SigningKeyCacheTest {
    private static final Duration INTERVAL = Duration.ofMillis(800);
    private static final SigningKey KEY = new SigningKey(7, new byte[SigningKey.LENGTH], new BsonTimestamp(2_000_000_000, 0));
    private static final BsonTimestamp NOW = new BsonTimestamp(1_800_000_000, 1);

    private final AtomicInteger finds = new AtomicInteger();
    private final AtomicBoolean up = new AtomicBoolean();
    private HttpServer config;
    private CommandClient client;
    private SigningKeyCache cache;

    @BeforeEach
    void start() throws IOException {
        config = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        config.createContext("/internal/v1/databases/", exchange -> {
            finds.incrementAndGet();
            BsonDocument reply = up.get()
                    ? Replies.cursor(true, List.of(KEY.toBson()), 0, "admin.system.keys")
                    : ErrorReplies.errorReply(ErrorCode.HostUnreachable, "the config database is unreachable", new BsonDocument());
            byte[] bytes = BsonBytes.encode(reply);
            exchange.getResponseHeaders().add("Content-Type", "application/bson");
            exchange.sendResponseHeaders(200, bytes.length);
            exchange.getResponseBody().write(bytes);
            exchange.close();
        });
        config.start();
        client = new CommandClient(Duration.ofSeconds(2), Duration.ofSeconds(5));
        cache = new SigningKeyCache(() -> client, "http://127.0.0.1:" + config.getAddress().getPort(), INTERVAL);
    }

    @AfterEach
    void stop() {
        client.close();
        config.stop(0);
    }

    @Test
    void signingWhileTheConfigServiceFailsAsksOncePerInterval() {
        assertThat(cache.forSigning(NOW)).as("no key yet: the dummy signature").isNull();
        await().atMost(Duration.ofSeconds(5)).until(() -> finds.get() == 1);
        long until = System.nanoTime() + INTERVAL.toNanos() / 2;
        while (System.nanoTime() < until) { // every internal request signs: thousands of times within the interval
            assertThat(cache.forSigning(NOW)).isNull();
            assertThat(cache.byId(KEY.keyId())).isNull();
        }
        assertThat(finds.get()).as("refreshes within one interval of a failed one").isEqualTo(1);

        up.set(true);
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20)).until(() -> cache.forSigning(NOW) != null);
        assertThat(cache.forSigning(NOW)).isEqualTo(KEY);
        assertThat(finds.get()).as("one more refresh, once the interval had passed").isEqualTo(2);
    }

    @Test
    void anUnknownKeyIdRefreshesAtOnceThenNotAgainWithinTheInterval() {
        up.set(true);
        assertThat(cache.byId(KEY.keyId())).as("read from the config service on the spot").isEqualTo(KEY);
        assertThat(cache.byId(99)).as("a made-up key id right after a refresh").isNull();
        assertThat(finds.get()).isEqualTo(1);
        assertThat(cache.forSigning(NOW)).as("the cached key signs without asking").isEqualTo(KEY);
        assertThat(cache.forSigning(new BsonTimestamp(2_100_000_000, 0))).as("past every key's expiry").isNull();
        assertThat(finds.get()).isEqualTo(1);
    }
}
