package dev.shardstore.console;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.shardstore.contracts.bson.ExtendedJson;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.bson.BsonDocument;
import org.jspecify.annotations.Nullable;

/**
 * A stand-in for the cluster in the console's tests: a JDK HTTP server on a free port whose {@link Handler} answers the
 * router's commands and the services' Actuator requests in their shapes. It records every request it got.
 */
public final class StandIn implements AutoCloseable {
    /**
     * One request: its path, its {@code Authorization} header, and for a command (a POST to
     * {@code /v1/databases/{db}/command}) the command.
     */
    public record Request(String path, @Nullable String authorization, @Nullable BsonDocument command) {}

    /** An answer: HTTP status, content type and body. */
    public record Answer(int status, String contentType, String body) {
        public static Answer json(String body) {
            return new Answer(200, "application/json", body);
        }
    }

    /** Answers a request. */
    @FunctionalInterface
    public interface Handler {
        Answer answer(Request request);
    }

    private final HttpServer server;
    private final List<Request> requests = new CopyOnWriteArrayList<>();

    public StandIn(Handler handler) {
        try {
            server = HttpServer.create(new InetSocketAddress("localhost", 0), 0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.createContext("/", exchange -> respond(exchange, handler));
        server.start();
    }

    /** Its base URL, {@code http://localhost:<port>}. */
    public String url() {
        return "http://localhost:" + server.getAddress().getPort();
    }

    /** The requests it got, oldest first. */
    public List<Request> requests() {
        return List.copyOf(requests);
    }

    private void respond(HttpExchange exchange, Handler handler) throws IOException {
        String path = exchange.getRequestURI().getPath();
        String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        BsonDocument command = path.endsWith("/command") ? ExtendedJson.parse(body) : null;
        Request request = new Request(path, exchange.getRequestHeaders().getFirst("Authorization"), command);
        requests.add(request);
        Answer answer = handler.answer(request);
        byte[] bytes = answer.body().getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", answer.contentType());
        exchange.sendResponseHeaders(answer.status(), bytes.length);
        exchange.getResponseBody().write(bytes);
        exchange.close();
    }

    /** A cursor reply of one batch holding {@code documents} (JSON objects separated by commas). */
    public static String cursor(String documents) {
        return "{\"cursor\": {\"firstBatch\": [" + documents + "], \"id\": 0}, \"ok\": 1}";
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
