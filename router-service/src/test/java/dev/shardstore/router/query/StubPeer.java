package dev.shardstore.router.query;

import com.sun.net.httpserver.HttpServer;
import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.error.ErrorReplies;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiFunction;
import org.bson.BsonDocument;

/**
 * A real HTTP peer speaking the internal command API ({@code POST /internal/v1/databases/{db}/command}, BSON
 * bodies), answering with {@code handler(db, command)} and recording every command it received.
 */
final class StubPeer implements AutoCloseable {
    private final HttpServer server;
    final List<BsonDocument> received = new CopyOnWriteArrayList<>();

    StubPeer(BiFunction<String, BsonDocument, BsonDocument> handler) {
        try {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.createContext("/internal/v1/databases/", exchange -> {
            BsonDocument command = BsonBytes.decode(exchange.getRequestBody().readAllBytes());
            String db = exchange.getRequestURI().getPath().split("/")[4];
            received.add(command);
            byte[] reply;
            try {
                reply = BsonBytes.encode(handler.apply(db, command));
            } catch (RuntimeException e) {
                reply = BsonBytes.encode(ErrorReplies.errorReply(ErrorCode.InternalError, e.toString(), new BsonDocument()));
            }
            exchange.getResponseHeaders().add("Content-Type", "application/bson");
            exchange.sendResponseHeaders(200, reply.length);
            exchange.getResponseBody().write(reply);
            exchange.close();
        });
        server.start();
    }

    /** The commands received whose name is {@code name}. */
    List<BsonDocument> received(String name) {
        return received.stream().filter(c -> c.getFirstKey().equals(name)).toList();
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
