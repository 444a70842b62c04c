package dev.shardstore.cluster.router;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.bson.BsonDocument;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** RouterClient against a JDK HTTP server standing in for a router: what it sends, and what it makes of replies. */
class RouterClientTest {
    private HttpServer server;
    private final List<String> requests = new CopyOnWriteArrayList<>();
    private final CountDownLatch release = new CountDownLatch(1);

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.createContext("/api/v1/auth/token", ex -> {
            record(ex);
            boolean basic = ("Basic " + java.util.Base64.getEncoder().encodeToString("ann:pw".getBytes(StandardCharsets.UTF_8)))
                    .equals(ex.getRequestHeaders().getFirst("Authorization"));
            reply(ex, basic ? 200 : 401, basic ? "{\"token\": \"t-1\"}" : "{\"ok\": 0, \"code\": 18}");
        });
        server.createContext("/v1/databases/", ex -> {
            String body = record(ex);
            switch (ex.getRequestURI().getPath()) {
                case "/v1/databases/db/command" -> reply(ex, 200, "{\"ok\": 1, \"echo\": " + body + "}");
                case "/v1/databases/bad/command" ->
                        reply(ex, 400, "{\"ok\": 0, \"errmsg\": \"no such field\", \"code\": 2, \"codeName\": \"BadValue\"}");
                case "/v1/databases/html/command" -> reply(ex, 502, "<html>bad gateway</html>");
                default -> {
                    try {
                        release.await(10, TimeUnit.SECONDS); // a router that stays silent past the request timeout
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    reply(ex, 200, "{\"ok\": 1}");
                }
            }
        });
        server.start();
    }

    @AfterEach
    void stop() {
        release.countDown();
        server.stop(0);
    }

    private String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    @Test
    void sendsTheCommandAsJsonAndReturnsTheReplyDocument() {
        RouterClient client = new RouterClient(url(), Duration.ofSeconds(5));

        BsonDocument reply = client.run("db", BsonDocument.parse("{find: 'c', filter: {_id: 'user7'}, limit: 1}"));

        assertThat(RouterClient.isOk(reply)).isTrue();
        assertThat(reply.getDocument("echo")).isEqualTo(BsonDocument.parse("{find: 'c', filter: {_id: 'user7'}, limit: 1}"));
        assertThat(requests).singleElement().asString()
                .isEqualTo("POST /v1/databases/db/command application/json; charset=UTF-8 accept=application/json auth=null"
                        + " {\"find\": \"c\", \"filter\": {\"_id\": \"user7\"}, \"limit\": 1}");
    }

    @Test
    void anErrorReplyIsReturnedNotThrownAndAnAnswerThatIsNoReplyIsThrown() {
        RouterClient client = new RouterClient(url(), Duration.ofSeconds(5));

        BsonDocument refused = client.run("bad", new BsonDocument("ping", new org.bson.BsonInt32(1)));
        assertThat(RouterClient.isOk(refused)).isFalse();
        assertThatThrownBy(() -> RouterClient.requireOk("ping", refused)).isInstanceOf(RouterException.class)
                .hasMessage("ping failed: no such field (BadValue, code 2)");

        assertThatThrownBy(() -> client.run("html", new BsonDocument("ping", new org.bson.BsonInt32(1))))
                .isInstanceOf(RouterException.class)
                .hasMessageContaining("answered HTTP 502 to ping with something that is not a command reply: <html>bad gateway</html>");
    }

    @Test
    void aTokenTakenWithBasicCredentialsIsSentAsBearerOnEveryLaterCommand() throws Exception {
        RouterClient client = new RouterClient(url(), Duration.ofSeconds(5), "ann", "pw").withToken();

        client.run("db", new BsonDocument("ping", new org.bson.BsonInt32(1)));
        client.runAsync("db", "ping", "{\"ping\": 1}".getBytes(StandardCharsets.UTF_8)).get(5, TimeUnit.SECONDS);

        assertThat(requests).hasSize(3);
        assertThat(requests.get(0)).startsWith("POST /api/v1/auth/token");
        assertThat(requests.subList(1, 3)).allSatisfy(r -> assertThat(r).contains("auth=Bearer t-1"));
        assertThatThrownBy(() -> new RouterClient(url(), Duration.ofSeconds(5), "ann", "wrong").withToken())
                .isInstanceOf(RouterException.class).hasMessageContaining("refused a token (HTTP 401)");
    }

    @Test
    void aSilentRouterTimesOutWithAMessageNamingTheCommand() {
        RouterClient client = new RouterClient(url(), Duration.ofMillis(300));

        assertThatThrownBy(() -> client.run("slow", new BsonDocument("ping", new org.bson.BsonInt32(1))))
                .isInstanceOf(RouterException.class).hasMessageContaining("did not answer ping within");
    }

    private String record(HttpExchange ex) throws IOException {
        String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        requests.add(ex.getRequestMethod() + " " + ex.getRequestURI().getPath() + " " + ex.getRequestHeaders().getFirst("Content-Type")
                + " accept=" + ex.getRequestHeaders().getFirst("Accept") + " auth=" + ex.getRequestHeaders().getFirst("Authorization")
                + " " + body);
        return body;
    }

    private static void reply(HttpExchange ex, int status, String json) throws IOException {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(status, bytes.length);
        ex.getResponseBody().write(bytes);
        ex.close();
    }
}
