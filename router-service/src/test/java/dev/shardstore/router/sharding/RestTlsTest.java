package dev.shardstore.router.sharding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.router.wire.TestCertificates;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * REST over HTTPS: the router's Tomcat takes a PEM certificate and key through Spring Boot's SSL bundle properties
 * ({@code server.ssl.bundle} and {@code spring.ssl.bundle.pem.*}; README "Security"), and then answers HTTPS only.
 */
class RestTlsTest extends RouterAgainstFakeCluster {
    private static final TestCertificates.Identity AUTHORITY = TestCertificates.authority("test CA");

    @DynamicPropertySource
    static void tls(DynamicPropertyRegistry registry) {
        Path dir;
        try {
            dir = Files.createTempDirectory("shardstore-rest-tls-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        dir.toFile().deleteOnExit();
        Path pem = TestCertificates.writeCertificateKeyFile(TestCertificates.leaf("router", AUTHORITY), dir.resolve("router.pem"));
        pem.toFile().deleteOnExit();
        registry.add("server.ssl.bundle", () -> "rest");
        registry.add("spring.ssl.bundle.pem.rest.keystore.certificate", () -> "file:" + pem);
        registry.add("spring.ssl.bundle.pem.rest.keystore.private-key", () -> "file:" + pem);
    }

    @Test
    void theRestApiAnswersOverHttpsWithTheConfiguredCertificateAndRefusesPlainHttp() throws Exception {
        HttpClient https = HttpClient.newBuilder().sslContext(TestCertificates.clientContext(AUTHORITY, null)).build();
        HttpResponse<String> reply = https.send(HttpRequest.newBuilder(URI.create("https://localhost:" + port + "/v1/databases/admin/command"))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString("{\"ping\": 1}")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(reply.statusCode()).as(reply.body()).isEqualTo(200);
        assertThat(reply.body()).contains("\"ok\": 1");

        HttpResponse<String> plain = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/actuator/health"))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(plain.statusCode()).as("Tomcat's answer to plain HTTP on its TLS port").isEqualTo(400);

        HttpClient untrusting = HttpClient.newBuilder().sslContext(TestCertificates.clientContext(TestCertificates.authority("other"), null)).build();
        assertThatThrownBy(() -> untrusting.send(HttpRequest.newBuilder(URI.create("https://localhost:" + port + "/actuator/health")).build(),
                HttpResponse.BodyHandlers.ofString())).isInstanceOf(IOException.class);
    }
}
