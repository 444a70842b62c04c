package dev.shardstore.router;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.bson.BsonLimits;
import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.infra.EmbeddedInfra;
import dev.shardstore.support.command.CommandHandler;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * The router's bad-input contract (issue: "Bad input"), over real HTTP: every case is refused with a
 * 4xx problem+json body carrying MongoDB's code and a message that names the field or position,
 * before anything is routed. The config service is deliberately unreachable here, which also shows
 * that a dead peer is a clear 503, not a hang or a 500.
 *
 * <p>Hostile input (hardening issue, item 5): nesting past MongoDB's 200 levels and bodies past 48 MB are refused
 * before anything recursive runs; requests the framework refuses before a controller (unknown path, wrong method or
 * media type, missing body) and failures nobody foresaw (an {@link Error} thrown by a command, {@link
 * FailingCommands}) are problem+json too, never Spring's default error body; every answer carries a request id.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"shardstore.config-url=http://127.0.0.1:9", "shardstore.router.balancer-url=http://127.0.0.1:9",
                "shardstore.peer-connect-timeout=500ms"})
@Import(BadInputTest.FailingCommands.class)
class BadInputTest {
    /** Commands that fail in ways no input should ever cause, standing in for a bug. */
    @TestConfiguration
    static class FailingCommands {
        @Bean
        CommandHandler overflowingCommand() {
            return CommandHandler.of("_testStackOverflow", (db, cmd) -> {
                throw new StackOverflowError("simulated");
            });
        }

        @Bean
        CommandHandler nullPointerCommand() {
            return CommandHandler.of("_testNullPointer", (db, cmd) -> {
                throw new NullPointerException("simulated");
            });
        }

        /**
         * A servlet filter that fails (before any controller, and before the command endpoint's own filter, which runs
         * last) when asked to.
         */
        @Bean
        FilterRegistrationBean<OncePerRequestFilter> failingFilter() {
            FilterRegistrationBean<OncePerRequestFilter> registration = new FilterRegistrationBean<>(new OncePerRequestFilter() {
                @Override
                protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
                        throws ServletException, IOException {
                    if (request.getHeader("X-Test-Fail-In-Filter") != null) {
                        throw new IllegalStateException("simulated filter failure");
                    }
                    chain.doFilter(request, response);
                }
            });
            registration.setOrder(0);
            return registration;
        }
    }

    @LocalServerPort
    int port;

    private final HttpClient http = HttpClient.newHttpClient();

    @DynamicPropertySource
    static void kafka(DynamicPropertyRegistry registry) {
        registry.add("spring.kafka.bootstrap-servers", () -> EmbeddedInfra.shared().bootstrapServers());
    }

    private record Reply(int status, String contentType, BsonDocument body, String requestId) {}

    private Reply post(String path, String body) throws Exception {
        return send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)));
    }

    private Reply send(HttpRequest.Builder request) throws Exception {
        HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        return new Reply(response.statusCode(), response.headers().firstValue("Content-Type").orElse(""), ExtendedJson.parse(response.body()),
                response.headers().firstValue("X-Request-Id").orElse(""));
    }

    private HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(URI.create("http://localhost:" + port + path));
    }

    /** {@code depth} levels of {@code {"$and": [ ... ]}} around an empty filter. */
    private static String nestedAnd(int depth) {
        return "{\"$and\": [".repeat(depth) + "{}" + "]}".repeat(depth);
    }

    /** {@code {"a": {"a": ... 1}}} with {@code depth} levels. */
    private static String nestedObject(int depth) {
        return "{\"a\": ".repeat(depth) + "1" + "}".repeat(depth);
    }

    private static void assertOverflow(Reply reply) {
        assertProblem(reply, 400, 15, "Overflow");
        assertThat(reply.body().getString("errmsg").getValue()).contains("maximum nesting depth of 200");
    }

    private static void assertProblem(Reply reply, int status, int code, String codeName) {
        assertThat(reply.status()).isEqualTo(status);
        assertThat(reply.contentType()).startsWith("application/problem+json");
        assertThat(reply.body().getNumber("ok").doubleValue()).isZero();
        assertThat(reply.body().getInt32("code").getValue()).isEqualTo(code);
        assertThat(reply.body().getString("codeName").getValue()).isEqualTo(codeName);
        assertThat(reply.body().getInt32("status").getValue()).isEqualTo(status);
        assertThat(reply.body().getString("type").getValue()).endsWith(codeName);
        assertThat(reply.body().getString("requestId").getValue()).isNotBlank().isEqualTo(reply.requestId());
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

    /** Refused by the router's front end before it routes (the config service here is unreachable): nothing is written. */
    @Test
    void writeConcernsOneCopyCannotSatisfyAreRefusedBeforeRouting() throws Exception {
        assertProblem(post("/v1/databases/geo/command", "{\"insert\": \"cities\", \"documents\": [{\"a\": 1}], \"writeConcern\": {\"w\": 2}}"),
                400, 100, "UnsatisfiableWriteConcern");
        assertProblem(post("/v1/databases/geo/command", "{\"delete\": \"cities\", \"deletes\": [{\"q\": {}, \"limit\": 0}],"
                + " \"writeConcern\": {\"w\": \"dc1\"}}"), 400, 79, "UnknownReplWriteConcern");
        assertProblem(post("/v1/databases/geo/command", "{\"insert\": \"cities\", \"documents\": [{\"a\": 1}],"
                + " \"writeConcern\": {\"w\": 1, \"wtimeout\": \"soon\"}}"), 400, 14, "TypeMismatch");
    }

    @Test
    void aWritingAggregateUnderLinearizableIsMongoDbsInvalidOptions() throws Exception {
        for (String stage : new String[] {"{\"$out\": \"o\"}", "{\"$merge\": {\"into\": \"o\"}}"}) {
            Reply reply = post("/v1/databases/geo/command", "{\"aggregate\": \"cities\", \"pipeline\": [" + stage + "], \"cursor\": {},"
                    + " \"readConcern\": {\"level\": \"linearizable\"}}");
            assertProblem(reply, 400, 72, "InvalidOptions");
            assertThat(reply.body().getString("errmsg").getValue()).endsWith("cannot be used with a 'linearizable' read concern level");
        }
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
                400, 73, "InvalidNamespace"); // MongoDB: {aggregate: 1} is not valid for an empty pipeline
        assertProblem(post("/v1/databases/geo/command", "{\"aggregate\": 2, \"pipeline\": [], \"cursor\": {}}"),
                400, 14, "TypeMismatch");
        assertProblem(post("/v1/databases/geo/collections/c/aggregate", "[{\"$match\": }]"), 400, 9, "FailedToParse");
    }

    @Test
    void distinctAndBothSpellingsOfFindAndModifyAreRoutedToTheShards() throws Exception {
        for (String command : new String[] {"{\"distinct\": \"cities\", \"key\": \"a\"}", "{\"findAndModify\": \"cities\", \"remove\": true}",
                "{\"findandmodify\": \"cities\", \"remove\": true}"}) {
            Reply reply = post("/v1/databases/geo/command", command);
            assertProblem(reply, 503, 6, "HostUnreachable");
        }
        // a field the command does not take (distinct's key on findAndModify) is refused before routing (CommandOptions)
        assertProblem(post("/v1/databases/geo/command", "{\"findAndModify\": \"cities\", \"key\": \"a\", \"remove\": true}"),
                400, 40415, "Location40415");
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
        Reply reply = post("/v1/databases/admin/command", "{\"listShards\": 1}");
        assertProblem(reply, 503, 6, "HostUnreachable");
        assertThat(reply.body().getString("errmsg").getValue()).contains("config").contains("127.0.0.1:9");
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

    @Test
    void swaggerUiServesTheDocumentTitledAfterTheProjectWithoutTheErrorController() throws Exception {
        for (String page : new String[] {"/swagger-ui", "/swagger-ui/index.html", "/swagger-ui.html"}) {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + page)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode()).as(page).isIn(200, 302);
        }
        HttpResponse<String> springdocDefault = http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/swagger-ui.html")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(springdocDefault.headers().firstValue("Location")).as("springdoc's default address leads to the page")
                .hasValueSatisfying(location -> assertThat(location).endsWith("/swagger-ui/index.html"));
        HttpResponse<String> ui = http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/swagger-ui/index.html")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(ui.body()).contains("Swagger UI");
        String document = http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/v3/api-docs")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        assertThat(document).contains("\"title\":\"shardstore router API\"").doesNotContain("OpenAPI definition", "\"/error\"")
                .doesNotContain("\"version\":\"v0\"").contains("\"version\":\"0.1.0-SNAPSHOT\"");
    }

    @Test
    void aFilterNestedThousandsOfLevelsDeepIsA400NamingTheLimit() throws Exception {
        assertOverflow(post("/v1/databases/geo/command", "{\"find\": \"cities\", \"filter\": " + nestedAnd(5000) + "}"));
        assertOverflow(post("/v1/databases/geo/command", "{\"find\": \"cities\", \"filter\": " + nestedObject(5000) + "}"));
        assertOverflow(post("/v1/databases/geo/command", "{\"insert\": \"cities\", \"documents\": [" + nestedObject(3000) + "]}"));
        assertOverflow(post("/v1/databases/geo/collections/cities/aggregate", "[{\"$match\": " + nestedAnd(3000) + "}]"));
        assertOverflow(post("/v1/databases/geo/collections/cities/documents", nestedObject(3000)));
        String filter = java.net.URLEncoder.encode(nestedObject(250), java.nio.charset.StandardCharsets.UTF_8);
        assertOverflow(send(request("/v1/databases/geo/collections/cities/documents?filter=" + filter).GET()));
    }

    @Test
    void aCommandAtTheDepthLimitIsParsedAndRouted() throws Exception {
        // 200 levels in all: the command document and a filter of 199; it gets as far as the (dead) config service
        Reply reply = post("/v1/databases/geo/command", "{\"find\": \"cities\", \"filter\": " + nestedObject(199) + "}");
        assertProblem(reply, 503, 6, "HostUnreachable");
    }

    @Test
    void aBodyOverTheMessageLimitIsA413BeforeItIsRead() throws Exception {
        try (Socket socket = new Socket("localhost", port)) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(("POST /v1/databases/geo/command HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                    + "Content-Length: " + (BsonLimits.MAX_MESSAGE_SIZE + 1) + "\r\nX-Request-Id: big-1\r\n\r\n{").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            RawReply reply = RawReply.read(socket.getInputStream());
            assertThat(reply.status()).isEqualTo(413);
            assertThat(reply.headers()).containsEntry("content-type", "application/problem+json").containsEntry("x-request-id", "big-1");
            BsonDocument body = ExtendedJson.parse(reply.body());
            assertThat(body.getInt32("code").getValue()).isEqualTo(10334);
            assertThat(body.getString("codeName").getValue()).isEqualTo("BSONObjectTooLarge");
            assertThat(body.getString("errmsg").getValue()).contains(String.valueOf(BsonLimits.MAX_MESSAGE_SIZE));
            assertThat(body.getString("requestId").getValue()).isEqualTo("big-1");
        }
    }

    /** Not bad input, but the same raw socket: Tomcat's default would close a client's connection after 100 requests. */
    @Test
    void aClientsKeepAliveConnectionServesRequestsPastTomcatsDefaultLimitOf100() throws Exception {
        try (Socket socket = new Socket("localhost", port)) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            for (int i = 1; i <= 150; i++) {
                out.write(("POST /v1/databases/admin/command HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                        + "Content-Length: 11\r\n\r\n{\"ping\": 1}").getBytes(StandardCharsets.US_ASCII));
                out.flush();
                RawReply reply = RawReply.read(socket.getInputStream());
                assertThat(reply.status()).as("request %d", i).isEqualTo(200);
                assertThat(reply.headers().get("connection")).as("request %d", i).isNotEqualToIgnoringCase("close");
            }
        }
    }

    @Test
    void aChunkedBodyOverTheMessageLimitIsA413OnceTheLimitIsPassed() throws Exception {
        try (Socket socket = new Socket("localhost", port)) {
            socket.setSoTimeout(30_000);
            OutputStream out = new java.io.BufferedOutputStream(socket.getOutputStream(), 1 << 16);
            out.write(("POST /v1/databases/geo/command HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                    + "Transfer-Encoding: chunked\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            byte[] chunk = " ".repeat(1 << 20).getBytes(StandardCharsets.US_ASCII);
            for (long sent = 0; sent <= BsonLimits.MAX_MESSAGE_SIZE; sent += chunk.length) {
                out.write((Integer.toHexString(chunk.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
                out.write(chunk);
                out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
            }
            out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            RawReply reply = RawReply.read(socket.getInputStream());
            assertThat(reply.status()).isEqualTo(413);
            assertThat(ExtendedJson.parse(reply.body()).getInt32("code").getValue()).isEqualTo(10334);
        }
    }

    @Test
    void requestsRefusedBeforeAControllerAreProblems() throws Exception {
        Reply unknownPath = send(request("/v1/nowhere").GET());
        assertProblem(unknownPath, 404, 59, "CommandNotFound");
        assertThat(unknownPath.body().getString("errmsg").getValue()).contains("/v1/nowhere");

        assertProblem(send(request("/v1/databases/geo/command").GET()), 405, 20, "IllegalOperation");
        assertProblem(send(request("/v1/databases/geo/command").header("Content-Type", "text/plain")
                .POST(HttpRequest.BodyPublishers.ofString("{\"ping\": 1}"))), 415, 2, "BadValue");
        assertProblem(send(request("/v1/databases/geo/command").header("Content-Type", "application/json").header("Accept", "text/html")
                .POST(HttpRequest.BodyPublishers.ofString("{\"ping\": 1}"))), 406, 2, "BadValue");
        Reply noBody = send(request("/v1/databases/geo/command").header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.noBody()));
        assertProblem(noBody, 400, 9, "FailedToParse");
        assertProblem(send(request("/v1/databases/geo/collections/c/documents?limit=many").GET()), 400, 9, "FailedToParse");
        assertProblem(send(request("/error").GET()), 500, 1, "InternalError");
        // refused by Tomcat itself, before any filter: an encoded NUL or slash in the path, headers over 8 KiB (whose
        // X-Request-Id Tomcat never read, so the id is a new one)
        for (String path : new String[] {"/v1/databases/admin%00/command", "/v1/databases/a%2Fb/command"}) {
            Reply reply = send(request(path).header("Content-Type", "application/json").header("X-Request-Id", "tomcat-1")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"ping\": 1}")));
            assertProblem(reply, 400, 2, "BadValue");
            assertThat(reply.requestId()).isEqualTo("tomcat-1");
        }
        assertProblem(send(request("/v1/databases/geo/command").header("Content-Type", "application/json").header("X-Padding", "p".repeat(10_000))
                .POST(HttpRequest.BodyPublishers.ofString("{\"ping\": 1}"))), 400, 2, "BadValue");
    }

    @Test
    void anErrorOrAnyOtherUnexpectedThrowableIsAnInternalErrorProblem() throws Exception {
        for (String command : new String[] {"_testStackOverflow", "_testNullPointer"}) {
            Reply reply = post("/v1/databases/geo/command", "{\"" + command + "\": 1}");
            assertProblem(reply, 500, 1, "InternalError");
            assertThat(reply.body().getString("requestId").getValue()).isEqualTo(reply.requestId()).isNotBlank();
        }
        // thrown by a filter, so it reaches the servlet container's error path (/error), not the controller advice
        Reply filter = send(request("/v1/databases/geo/command").header("Content-Type", "application/json").header("X-Test-Fail-In-Filter", "1")
                .header("X-Request-Id", "filter-1").POST(HttpRequest.BodyPublishers.ofString("{\"ping\": 1}")));
        assertProblem(filter, 500, 1, "InternalError");
        assertThat(filter.body().getString("errmsg").getValue()).contains("simulated filter failure");
        assertThat(filter.requestId()).isEqualTo("filter-1");
    }

    @Test
    void everyAnswerCarriesARequestIdTheClientsWhenSane() throws Exception {
        Reply echoed = send(request("/v1/databases/geo/command").header("Content-Type", "application/json").header("X-Request-Id", "client-42.a:b")
                .POST(HttpRequest.BodyPublishers.ofString("{\"frobnicate\": 1}")));
        assertThat(echoed.requestId()).isEqualTo("client-42.a:b");
        assertThat(echoed.body().getString("requestId").getValue()).isEqualTo("client-42.a:b");

        Reply replaced = send(request("/v1/nowhere").header("X-Request-Id", "no spaces <script>").GET());
        assertThat(replaced.requestId()).isNotBlank().isNotEqualTo("no spaces <script>");
        assertThat(replaced.body().getString("requestId").getValue()).isEqualTo(replaced.requestId());

        Reply ok = post("/v1/databases/admin/command", "{\"ping\": 1}");
        assertThat(ok.status()).isEqualTo(200);
        assertThat(ok.requestId()).isNotBlank().isNotEqualTo(replaced.requestId());
    }

    /** A response read off a raw socket: status, headers (lower-case names) and body. */
    private record RawReply(int status, Map<String, String> headers, String body) {
        static RawReply read(InputStream in) throws IOException {
            BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            int status = Integer.parseInt(reader.readLine().split(" ")[1]);
            Map<String, String> headers = new HashMap<>();
            for (String line = reader.readLine(); line != null && !line.isEmpty(); line = reader.readLine()) {
                int colon = line.indexOf(':');
                headers.put(line.substring(0, colon).trim().toLowerCase(Locale.ROOT), line.substring(colon + 1).trim());
            }
            char[] body = new char[Integer.parseInt(headers.getOrDefault("content-length", "0"))];
            int read = 0;
            while (read < body.length) {
                int n = reader.read(body, read, body.length - read);
                if (n < 0) {
                    break;
                }
                read += n;
            }
            return new RawReply(status, headers, new String(body, 0, read));
        }
    }
}
