package dev.shardstore.router.testing;

import com.sun.net.httpserver.HttpServer;
import dev.shardstore.contracts.bson.BsonBytes;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.function.BiFunction;
import org.bson.BsonDocument;

/**
 * A real HTTP peer (JDK HttpServer) standing in for the config service or a shard in router tests, speaking the internal command API ({@code POST /internal/v1/databases/{db}/command}, BSON both
 * ways), answering with {@code handler} and recording every request so tests can check what the router sent.
 */
public final class StubPeer implements AutoCloseable {
    /** One request: the database in the path and the command document. */
    public record Request(String db, BsonDocument command) {
        public String name() {
            return command.getFirstKey();
        }
    }

    private final HttpServer server;
    public final List<Request> received = new CopyOnWriteArrayList<>();

    public StubPeer(BiFunction<String, BsonDocument, BsonDocument> handler) {
        try {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.createContext("/internal/v1/databases/", exchange -> {
            try (exchange) {
                BsonDocument command = BsonBytes.decode(exchange.getRequestBody().readAllBytes());
                String db = exchange.getRequestURI().getPath().split("/")[4];
                received.add(new Request(db, command));
                byte[] reply = BsonBytes.encode(handler.apply(db, command));
                exchange.getResponseHeaders().add("Content-Type", "application/bson");
                exchange.sendResponseHeaders(200, reply.length);
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(reply);
                }
            } catch (RuntimeException e) {
                exchange.sendResponseHeaders(500, -1);
            }
        });
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.start();
    }

    /** The requests named {@code command} (the command document's first key), in arrival order. */
    public List<BsonDocument> received(String command) {
        return received.stream().filter(r -> r.name().equals(command)).map(Request::command).toList();
    }

    public String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
