package dev.shardstore.config;

import com.sun.net.httpserver.HttpServer;
import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.bson.Replies;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonString;

/**
 * A real HTTP peer speaking the shard side of the internal command API, for the three commands the
 * config service sends ({@code _shardsvrName}, {@code listDatabases}, {@code dropDatabase}). It records
 * what it received so tests can check the config service's calls. The shard service itself is tested
 * in its own module and end to end.
 */
final class StubShard implements AutoCloseable {
    private final HttpServer server;
    private final String name;
    private final long totalSize;
    final List<String> received = new CopyOnWriteArrayList<>();

    StubShard(String name, long totalSize) {
        this.name = name;
        this.totalSize = totalSize;
        try {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.createContext("/internal/v1/databases/", exchange -> {
            BsonDocument command = BsonBytes.decode(exchange.getRequestBody().readAllBytes());
            String db = exchange.getRequestURI().getPath().split("/")[4];
            received.add(command.getFirstKey() + " " + db);
            byte[] reply = BsonBytes.encode(reply(command));
            exchange.getResponseHeaders().add("Content-Type", "application/bson");
            exchange.sendResponseHeaders(200, reply.length);
            exchange.getResponseBody().write(reply);
            exchange.close();
        });
        server.start();
    }

    private BsonDocument reply(BsonDocument command) {
        return switch (command.getFirstKey()) {
            case "_shardsvrName" -> Replies.ok(new BsonDocument("name", new BsonString(name)));
            case "listDatabases" -> Replies.ok(new BsonDocument("totalSize", new BsonInt64(totalSize)));
            default -> Replies.ok();
        };
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
