package dev.shardstore.cluster;

import dev.shardstore.infra.Ports;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Whether a component answers: a service's {@code GET /actuator/health} reports {@code UP}; for
 * PostgreSQL and Kafka, their port accepts connections.
 *
 * @param up     whether it is healthy
 * @param detail what was observed, e.g. {@code UP}, {@code DOWN}, {@code HTTP 503}, {@code connection refused}
 */
public record Health(boolean up, String detail) {
    private static final Duration TIMEOUT = Duration.ofSeconds(2);
    private static final HttpClient HTTP = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1).connectTimeout(TIMEOUT).build();
    private static final JsonMapper JSON = JsonMapper.builder().build();

    /** Probes {@code component} once; never throws, waits at most about 2 s. */
    public static Health of(Component component) {
        if (!component.role().isService()) {
            return Ports.isListening(component.port(), TIMEOUT)
                    ? new Health(true, "UP (port open)") : new Health(false, "port closed");
        }
        HttpRequest request = HttpRequest.newBuilder(URI.create(component.url() + "/actuator/health"))
                .timeout(TIMEOUT).GET().build();
        try {
            HttpResponse<String> response = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
            String status = statusOf(response.body());
            if (response.statusCode() == 200 && "UP".equals(status)) {
                return new Health(true, "UP");
            }
            return new Health(false, status != null ? status : "HTTP " + response.statusCode());
        } catch (java.net.ConnectException e) {
            return new Health(false, "connection refused");
        } catch (IOException e) {
            return new Health(false, e.getClass().getSimpleName() + (e.getMessage() != null ? ": " + e.getMessage() : ""));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Health(false, "interrupted");
        }
    }

    private static @Nullable String statusOf(String body) {
        try {
            JsonNode status = JSON.readTree(body).get("status");
            return status != null && status.isString() ? status.asString() : null;
        } catch (JacksonException e) {
            return null;
        }
    }
}
