package dev.shardstore.router;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.infra.EmbeddedInfra;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The router's bad-input contract (issue: "Bad input"), over real HTTP: every case is refused with a
 * 4xx problem+json body carrying MongoDB's code and a message that names the field or position,
 * before anything is routed. The config service is deliberately unreachable here, which also shows
 * that a dead peer is a clear 503, not a hang or a 500.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"shardstore.config-url=http://127.0.0.1:9", "shardstore.peer-connect-timeout=500ms"})
class BadInputTest {
    @LocalServerPort
    int port;

    private final HttpClient http = HttpClient.newHttpClient();

    @DynamicPropertySource
    static void kafka(DynamicPropertyRegistry registry) {
        registry.add("spring.kafka.bootstrap-servers", () -> EmbeddedInfra.shared().bootstrapServers());
    }

    private record Reply(int status, String contentType, BsonDocument body) {}

    private Reply post(String path, String body) throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        return new Reply(response.statusCode(), response.headers().firstValue("Content-Type").orElse(""), ExtendedJson.parse(response.body()));
    }

    private static void assertProblem(Reply reply, int status, int code, String codeName) {
        assertThat(reply.status()).isEqualTo(status);
        assertThat(reply.contentType()).startsWith("application/problem+json");
        assertThat(reply.body().getNumber("ok").doubleValue()).isZero();
        assertThat(reply.body().getInt32("code").getValue()).isEqualTo(code);
        assertThat(reply.body().getString("codeName").getValue()).isEqualTo(codeName);
        assertThat(reply.body().getInt32("status").getValue()).isEqualTo(status);
        assertThat(reply.body().getString("type").getValue()).endsWith(codeName);
    }

    @Test
    void malformedJsonIsA400NamingThePosition() throws Exception {
        Reply reply = post("/v1/databases/geo/command", "{\"find\": \"cities\",\n \"filter\": {\"a\": }}");
        assertProblem(reply, 400, 9, "FailedToParse");
        assertThat(reply.body().getString("errmsg").getValue()).contains("line 2");
    }

    @Test
    void movePrimaryRefusesBadArgumentsBeforeAskingTheConfigService() throws Exception {
        assertProblem(post("/v1/databases/geo/command", "{\"movePrimary\": \"geo\", \"to\": \"shard2\"}"), 400, 20, "IllegalOperation");
        assertProblem(post("/v1/databases/admin/command", "{\"movePrimary\": 1, \"to\": \"shard2\"}"), 400, 73, "InvalidNamespace");
        assertProblem(post("/v1/databases/admin/command", "{\"movePrimary\": \"a.b\", \"to\": \"shard2\"}"), 400, 73, "InvalidNamespace");
        assertProblem(post("/v1/databases/admin/command", "{\"movePrimary\": \"config\", \"to\": \"shard2\"}"), 400, 72, "InvalidOptions");
        assertProblem(post("/v1/databases/admin/command", "{\"movePrimary\": \"geo\"}"), 400, 72, "InvalidOptions");
        assertProblem(post("/v1/databases/admin/command", "{\"movePrimary\": \"geo\", \"to\": \"\"}"), 400, 72, "InvalidOptions");
        assertProblem(post("/v1/databases/admin/command", "{\"movePrimary\": \"geo\", \"to\": 2}"), 400, 14, "TypeMismatch");
    }

    @Test
    void unknownCommandIsCommandNotFound() throws Exception {
        Reply reply = post("/v1/databases/geo/command", "{\"frobnicate\": 1}");
        assertProblem(reply, 404, 59, "CommandNotFound");
        assertThat(reply.body().getString("errmsg").getValue()).contains("frobnicate");
    }

    @Test
    void aNonDocumentInDocumentsIsA400NamingTheIndex() throws Exception {
        Reply reply = post("/v1/databases/geo/command", "{\"insert\": \"cities\", \"documents\": [{\"a\": 1}, {\"b\": 2}, {\"c\": 3}, 42]}");
        assertProblem(reply, 400, 14, "TypeMismatch");
        assertThat(reply.body().getString("errmsg").getValue()).contains("documents.3");
    }

    @Test
    void anEmptyOrMissingDocumentsArrayIsRefused() throws Exception {
        assertProblem(post("/v1/databases/geo/command", "{\"insert\": \"cities\", \"documents\": []}"), 400, 16, "InvalidLength");
        Reply missing = post("/v1/databases/geo/command", "{\"insert\": \"cities\"}");
        assertProblem(missing, 400, 9, "FailedToParse");
        assertThat(missing.body().getString("errmsg").getValue()).contains("documents");
    }

    @Test
    void aDocumentOver16MiBIsBsonObjectTooLargeAndNothingIsWritten() throws Exception {
        String big = "x".repeat(17 * 1024 * 1024);
        Reply reply = post("/v1/databases/geo/command", "{\"insert\": \"cities\", \"documents\": [{\"big\": \"" + big + "\"}]}");
        assertThat(reply.status()).isEqualTo(200);
        assertThat(reply.body().getInt32("n").getValue()).isZero();
        BsonDocument error = reply.body().getArray("writeErrors").get(0).asDocument();
        assertThat(error.getInt32("index").getValue()).isZero();
        assertThat(error.getInt32("code").getValue()).isEqualTo(10334);
    }

    @Test
    void invalidDatabaseNamesAreInvalidNamespace() throws Exception {
        Reply reply = post("/v1/databases/bad$name/command", "{\"insert\": \"c\", \"documents\": [{}]}");
        assertProblem(reply, 400, 73, "InvalidNamespace");
        assertThat(reply.body().getString("errmsg").getValue()).contains("bad$name");
    }

    @Test
    void aggregateIsValidatedBeforeRouting() throws Exception {
        assertProblem(post("/v1/databases/bad$name/command", "{\"aggregate\": \"c\", \"pipeline\": [], \"cursor\": {}}"),
                400, 73, "InvalidNamespace");
        assertProblem(post("/v1/databases/geo/command", "{\"aggregate\": 1, \"pipeline\": [], \"cursor\": {}}"),
                400, 14, "TypeMismatch");
        assertProblem(post("/v1/databases/geo/collections/c/aggregate", "[{\"$match\": }]"), 400, 9, "FailedToParse");
    }

    @Test
    void distinctAndBothSpellingsOfFindAndModifyAreRoutedToTheShards() throws Exception {
        for (String command : new String[] {"distinct", "findAndModify", "findandmodify"}) {
            Reply reply = post("/v1/databases/geo/command", "{\"" + command + "\": \"cities\", \"key\": \"a\", \"remove\": true}");
            assertProblem(reply, 503, 6, "HostUnreachable");
        }
    }

    @Test
    void malformedCursorCommandsAre400sNamingTheField() throws Exception {
        Reply getMore = post("/v1/databases/geo/command", "{\"getMore\": \"abc\", \"collection\": \"cities\"}");
        assertProblem(getMore, 400, 14, "TypeMismatch");
        assertThat(getMore.body().getString("errmsg").getValue()).contains("getMore");
        Reply noCollection = post("/v1/databases/geo/command", "{\"getMore\": {\"$numberLong\": \"5\"}}");
        assertProblem(noCollection, 400, 9, "FailedToParse");
        assertThat(noCollection.body().getString("errmsg").getValue()).contains("collection");
        Reply kill = post("/v1/databases/geo/command", "{\"killCursors\": \"cities\", \"cursors\": [1, \"x\"]}");
        assertProblem(kill, 400, 14, "TypeMismatch");
        assertThat(kill.body().getString("errmsg").getValue()).contains("cursors.1");
        assertProblem(post("/v1/databases/geo/command", "{\"killCursors\": \"cities\"}"), 400, 9, "FailedToParse");
        Reply ordered = post("/v1/databases/geo/command", "{\"insert\": \"cities\", \"documents\": [{}], \"ordered\": \"yes\"}");
        assertProblem(ordered, 400, 14, "TypeMismatch");
        assertThat(ordered.body().getString("errmsg").getValue()).contains("ordered");
    }

    @Test
    void addShardOutsideAdminIsRefused() throws Exception {
        assertProblem(post("/v1/databases/geo/command", "{\"addShard\": \"http://localhost:8101\"}"), 400, 20, "IllegalOperation");
    }

    @Test
    void anUnreachableConfigServiceIsAClear503NotAHang() throws Exception {
        long start = System.nanoTime();
        Reply reply = post("/v1/databases/admin/command", "{\"listShards\": 1}");
        assertProblem(reply, 503, 6, "HostUnreachable");
        assertThat(reply.body().getString("errmsg").getValue()).contains("config").contains("127.0.0.1:9");
        assertThat(System.nanoTime() - start).isLessThan(10_000_000_000L);
    }

    @Test
    void pingAndBuildInfoAnswerWithoutPeers() throws Exception {
        Reply ping = post("/v1/databases/admin/command", "{\"ping\": 1}");
        assertThat(ping.status()).isEqualTo(200);
        assertThat(ping.body().getNumber("ok").doubleValue()).isEqualTo(1.0);
        Reply info = post("/v1/databases/admin/command", "{\"buildInfo\": 1}");
        assertThat(info.body().getInt32("maxBsonObjectSize").getValue()).isEqualTo(16 * 1024 * 1024);
    }

    @Test
    void theOpenApiDocumentDescribesTheCommandAndDocumentEndpoints() throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/v3/api-docs")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).contains("/v1/databases/{db}/command").contains("/v1/databases/{db}/collections/{collection}/documents/{id}")
                .contains("/v1/databases/{db}/collections/{collection}/aggregate");
    }
}
