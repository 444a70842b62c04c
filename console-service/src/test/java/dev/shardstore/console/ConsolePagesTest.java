package dev.shardstore.console;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The console's pages against a cluster that does not answer (every service URL is a closed port): each page and each
 * live part renders, naming the failure with MongoDB's code (HostUnreachable, 6) and never a stack trace; an action
 * reports the refusal with its code; the operations charts' data is JSON; the browser's libraries are served from the
 * jar. The pages against a real cluster
 * are local-cluster's ConsoleIT.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class ConsolePagesTest {
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @Value("${local.server.port}")
    int port;

    @DynamicPropertySource
    static void deadCluster(DynamicPropertyRegistry registry) throws IOException {
        String dead = "http://localhost:" + closedPort();
        for (String service : new String[] {"router-urls", "config-url", "balancer-url", "session-url", "resharding-url"}) {
            registry.add("shardstore.console." + service, () -> dead);
        }
        registry.add("shardstore.console.request-timeout", () -> "500ms");
    }

    private static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    @Test
    void everyPageAndLivePartShowsTheUnreachableClusterWithItsCode() throws Exception {
        for (String path : new String[] {"/", "/live/overview", "/collections/geo.cities", "/live/collections/geo.cities?width=bytes",
                "/movements", "/live/movements", "/balancer", "/live/balancer", "/operations", "/live/operations"}) {
            HttpResponse<String> page = get(path);
            assertThat(page.statusCode()).as(path).isEqualTo(200);
            assertThat(page.body()).as(path).contains("HostUnreachable (6)").doesNotContain("Exception", "\tat ");
        }
        assertThat(get("/").body()).contains("hx-get=\"/live/overview\"", "hx-trigger=\"every 2s\"", "/swagger-ui");
        assertThat(get("/live/overview").body()).doesNotContain("<html");
        assertThat(get("/operations").body()).contains("id=\"throughput-chart\"", "id=\"latency-chart\"", "id=\"meters-table\"",
                "No sample yet");
    }

    @Test
    void theChartsDataIsJsonOfNoShardWhileTheClusterDoesNotAnswer() throws Exception {
        HttpResponse<String> meters = get("/operations/meters");
        assertThat(meters.statusCode()).isEqualTo(200);
        assertThat(meters.headers().firstValue("Content-Type")).hasValueSatisfying(type -> assertThat(type).startsWith("application/json"));
        assertThat(meters.body()).isEqualTo("{\"intervalSeconds\": 5, \"historySeconds\": 900, \"shards\": []}");
    }

    @Test
    void anActionReportsTheRefusalWithItsCode() throws Exception {
        assertThat(post("/balancer/stop", "").body()).contains("balancerStop refused: HostUnreachable (6)");
        assertThat(post("/balancer/move", "ns=geo.cities&find=%7Bbad&to=shard2").body()).contains("moveChunk refused: FailedToParse (9)");
    }

    @Test
    void theBrowsersLibrariesAreServedFromTheJar() throws Exception {
        assertThat(get("/webjars/htmx.org/dist/htmx.min.js").statusCode()).isEqualTo(200);
        assertThat(get("/webjars/echarts/dist/echarts.min.js").statusCode()).isEqualTo(200);
        assertThat(get("/console.css").statusCode()).isEqualTo(200);
    }

    private HttpResponse<String> get(String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + path)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> post(String path, String form) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
                .header("Content-Type", "application/x-www-form-urlencoded").POST(HttpRequest.BodyPublishers.ofString(form)).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
