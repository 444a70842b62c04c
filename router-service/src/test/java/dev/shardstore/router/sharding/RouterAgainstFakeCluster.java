package dev.shardstore.router.sharding;

import dev.shardstore.router.testing.StubPeer;
import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.version.ChunkVersion;
import dev.shardstore.infra.EmbeddedInfra;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.bson.BsonDocument;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * A real router (HTTP, Spring context, Kafka listener) whose config service and shards are a {@link FakeCluster}
 * shared by the subclasses (one Spring context); each test uses its own database so cache entries do not mix.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
abstract class RouterAgainstFakeCluster {
    static final FakeCluster CLUSTER = new FakeCluster();
    static final Duration PEER_REQUEST_TIMEOUT = Duration.ofSeconds(5);

    @LocalServerPort
    int port;

    private final HttpClient http = HttpClient.newHttpClient();

    @DynamicPropertySource
    static void peers(DynamicPropertyRegistry registry) {
        registry.add("spring.kafka.bootstrap-servers", () -> EmbeddedInfra.shared().bootstrapServers());
        registry.add("shardstore.config-url", CLUSTER.config::url);
        // short, so that a test can show which commands outlive the ordinary peer timeout (DDL, migrations)
        registry.add("shardstore.peer-request-timeout", () -> PEER_REQUEST_TIMEOUT.toString());
        // never a real balancer service: one of a local cluster may listen on the default port
        registry.add("shardstore.router.balancer-url", () -> "http://127.0.0.1:9");
    }

    /** An HTTP status and the JSON body. */
    record Reply(int status, BsonDocument body) {
        void assertOk() {
            assertThat(status).as(body.toJson()).isEqualTo(200);
        }

        void assertError(int httpStatus, int code, String... messageParts) {
            assertThat(status).as(body.toJson()).isEqualTo(httpStatus);
            assertThat(body.getInt32("code").getValue()).isEqualTo(code);
            assertThat(body.getString("errmsg").getValue()).contains(messageParts);
        }

        int n() {
            return body.getNumber("n").intValue();
        }

        List<BsonDocument> writeErrors() {
            return body.containsKey("writeErrors") ? body.getArray("writeErrors").stream().map(v -> v.asDocument()).toList() : List.of();
        }
    }

    Reply command(String db, String json) throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/v1/databases/" + db + "/command"))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json)).build(),
                HttpResponse.BodyHandlers.ofString());
        return new Reply(response.statusCode(), ExtendedJson.parse(response.body()));
    }

    /** The body of {@code GET path} on the router. */
    String get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + path)).build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    /** The status of {@code POST path} with a JSON body. */
    int post(String path, String json) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + path)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)).build(), HttpResponse.BodyHandlers.ofString()).statusCode();
    }

    /** This router's {@code routingTable} actuator entries of collections, by namespace. */
    BsonDocument cachedCollections() throws Exception {
        return ExtendedJson.parse(get("/actuator/routingTable")).getDocument("collections");
    }

    /** This router's {@code routingTable} actuator entry for {@code ns}. */
    BsonDocument cacheEntry(String ns) throws Exception {
        return cachedCollections().getDocument(ns);
    }

    /** The {@code command} requests {@code peer} received for database {@code db}, in arrival order. */
    static List<BsonDocument> sent(StubPeer peer, String db, String command) {
        return peer.received.stream().filter(r -> r.db().equals(db) && r.name().equals(command)).map(StubPeer.Request::command).toList();
    }

    static ChunkVersion shardVersionOf(BsonDocument command) {
        return ChunkVersion.fromBson(command.getDocument("shardVersion"));
    }
}
