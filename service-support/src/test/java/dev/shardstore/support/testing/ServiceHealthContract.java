package dev.shardstore.support.testing;

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

/**
 * The health contract every service meets (docs/architecture.md "Observability"): booted against real embedded PostgreSQL and
 * Kafka, {@code /actuator/health} answers UP with a Kafka component, and with a database component exactly when the
 * service owns a database; and a request it cannot serve is answered with a problem+json body carrying MongoDB's code
 * and the request id, never Spring's default error body. Subclasses (published in this module's test-jar) only name
 * their database ({@link #register}), or, for a service without one, register the broker alone
 * ({@link #registerBroker}) and answer {@code false} from {@link #ownsDatabase}.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
public abstract class ServiceHealthContract {
    @LocalServerPort
    protected int port;

    /** Points the service at a fresh database of the shared embedded PostgreSQL and at the broker. */
    protected static void register(DynamicPropertyRegistry registry, String database) {
        EmbeddedInfra.shared().springProperties(database).forEach((k, v) -> registry.add(k, () -> v));
    }

    /** Points a service that owns no database at the broker alone. */
    protected static void registerBroker(DynamicPropertyRegistry registry) {
        registry.add("spring.kafka.bootstrap-servers", () -> EmbeddedInfra.shared().bootstrapServers());
    }

    /** Whether the service owns a PostgreSQL database, so that its health reports one: true unless a subclass says not. */
    protected boolean ownsDatabase() {
        return true;
    }

    @Test
    void reportsHealthWithItsDatabaseAndKafka() throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/actuator/health")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).contains("\"status\":\"UP\"").contains("\"kafka\"").contains("\"brokers\":1");
        if (ownsDatabase()) {
            assertThat(response.body()).contains("\"db\"");
        } else {
            assertThat(response.body()).doesNotContain("\"db\"");
        }
    }

    @Test
    void answersAnUnknownPathWithAProblemCarryingTheRequestId() throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/no/such/path")).header("X-Request-Id", "contract-1")
                        .DELETE().build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(404);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("application/problem+json"));
        assertThat(response.headers().firstValue("X-Request-Id")).hasValue("contract-1");
        BsonDocument body = ExtendedJson.parse(response.body());
        assertThat(body.getInt32("status").getValue()).isEqualTo(404);
        assertThat(body.getString("codeName").getValue()).isEqualTo("CommandNotFound");
        assertThat(body.getString("errmsg").getValue()).contains("/no/such/path");
        assertThat(body.getString("requestId").getValue()).isEqualTo("contract-1");
    }
}
