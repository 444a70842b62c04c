package dev.shardstore.config;

import com.sun.net.httpserver.HttpServer;
import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.bson.Replies;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;
import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;

/**
 * A real HTTP peer speaking the shard side of the internal command API, for the commands the config
 * service sends: {@code _shardsvrName}, {@code listDatabases}, {@code dropDatabase}, and for sharded
 * collections {@code _shardsvrPrepareShardCollection} (default: an empty collection), {@code splitVector}
 * (default: no split key), {@code _shardsvrRefreshCollection} and {@code drop}; a test can replace any reply
 * with {@link #answer}. It records what it received so tests can check the config service's calls. The shard
 * service itself is tested in its own module and end to end.
 */
final class StubShard implements AutoCloseable {
    private final HttpServer server;
    private final String name;
    private final long totalSize;
    final List<String> received = new CopyOnWriteArrayList<>();
    /** Every command document received, in order. */
    final List<BsonDocument> commands = new CopyOnWriteArrayList<>();
    private final Map<String, UnaryOperator<BsonDocument>> answers = new ConcurrentHashMap<>();

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
            commands.add(command);
            byte[] reply = BsonBytes.encode(reply(command));
            exchange.getResponseHeaders().add("Content-Type", "application/bson");
            exchange.sendResponseHeaders(200, reply.length);
            exchange.getResponseBody().write(reply);
            exchange.close();
        });
        server.start();
    }

    /** Answers {@code command} with {@code reply(command)} from now on (until {@link #reset}). */
    void answer(String command, UnaryOperator<BsonDocument> reply) {
        answers.put(command, reply);
    }

    /** Back to the default replies, with nothing recorded. */
    void reset() {
        answers.clear();
        received.clear();
        commands.clear();
    }

    /** The recorded command documents named {@code command}. */
    List<BsonDocument> received(String command) {
        return commands.stream().filter(c -> c.getFirstKey().equals(command)).toList();
    }

    private BsonDocument reply(BsonDocument command) {
        UnaryOperator<BsonDocument> configured = answers.get(command.getFirstKey());
        if (configured != null) {
            return configured.apply(command);
        }
        return switch (command.getFirstKey()) {
            case "_shardsvrName" -> Replies.ok(new BsonDocument("name", new BsonString(name)));
            case "listDatabases" -> Replies.ok(new BsonDocument("totalSize", new BsonInt64(totalSize)));
            case "_shardsvrPrepareShardCollection" -> Replies.ok(new BsonDocument("empty", BsonBoolean.TRUE)
                    .append("count", new BsonInt64(0)).append("splitKeys", new BsonArray()));
            case "splitVector" -> Replies.ok(new BsonDocument("splitKeys", new BsonArray()));
            case "listIndexes" -> Replies.cursor(true, List.of(new BsonDocument("v", new BsonInt32(2))
                    .append("key", new BsonDocument("_id", new BsonInt32(1))).append("name", new BsonString("_id_"))), 0,
                    "?." + command.getString("listIndexes").getValue());
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
