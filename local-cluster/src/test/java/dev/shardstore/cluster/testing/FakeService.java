package dev.shardstore.cluster.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonValue;

/**
 * A stand-in for every shardstore service in tests that must run without the real ones: answers
 * {@code GET /actuator/health} with UP, {@code GET /args} with its command-line arguments, and the
 * router commands the launcher and the loader use ({@code listShards}, {@code addShard},
 * {@code insert}, {@code drop}, {@code count}, {@code find}). An inserted document with
 * {@code "fail": true} gets a duplicate-key write error. Runs as a process ({@link #main}, with
 * {@code --server.port=N}) or inside a test ({@link #start}).
 */
public final class FakeService {
    private final List<String> args;
    private final BsonArray shards = new BsonArray();
    private final Map<String, AtomicLong> counts = new ConcurrentHashMap<>();
    private final AtomicLong insertCommands = new AtomicLong();

    private FakeService(List<String> args) {
        this.args = List.copyOf(args);
    }

    public static void main(String[] args) throws IOException {
        int port = List.of(args).stream().filter(a -> a.startsWith("--server.port=")).findFirst()
                .map(a -> Integer.parseInt(a.substring("--server.port=".length())))
                .orElseThrow(() -> new IllegalArgumentException("--server.port=N is required"));
        start(port, List.of(args));
        System.out.println("fake service listening on " + port + " with " + String.join(" ", args));
    }

    /** Starts a fake on {@code port} (0 for a free one); returns the server, whose address tells the port. */
    public static Running start(int port, List<String> args) throws IOException {
        FakeService fake = new FakeService(args);
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 50);
        server.setExecutor(Executors.newFixedThreadPool(4));
        server.createContext("/actuator/health", ex -> reply(ex, 200, "{\"status\": \"UP\"}"));
        server.createContext("/args", ex -> {
            BsonArray array = new BsonArray();
            fake.args.forEach(a -> array.add(new BsonString(a)));
            reply(ex, 200, new BsonDocument("args", array).toJson());
        });
        server.createContext("/v1/databases/", fake::command);
        server.start();
        return new Running(server, fake);
    }

    /** A fake started inside the test JVM. */
    public record Running(HttpServer server, FakeService fake) implements AutoCloseable {
        public String url() {
            return "http://localhost:" + server.getAddress().getPort();
        }

        /** Documents the fake counted as inserted into {@code ns}. */
        public long count(String ns) {
            return fake.counts.getOrDefault(ns, new AtomicLong()).get();
        }

        /** Insert commands received. */
        public long insertCommands() {
            return fake.insertCommands.get();
        }

        @Override
        public void close() {
            server.stop(0);
        }
    }

    private void command(HttpExchange ex) throws IOException {
        String db = ex.getRequestURI().getPath().split("/")[3];
        BsonDocument command = BsonDocument.parse(new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
        String name = command.getFirstKey();
        BsonDocument ok = new BsonDocument("ok", new BsonInt32(1));
        switch (name) {
            case "listShards" -> reply(ex, 200, new BsonDocument("shards", shardsCopy()).append("ok", new BsonInt32(1)).toJson());
            case "addShard" -> {
                synchronized (shards) {
                    shards.add(new BsonDocument("_id", command.getString("name")).append("host", command.getString("addShard"))
                            .append("state", new BsonInt32(1)));
                }
                reply(ex, 200, new BsonDocument("shardAdded", command.getString("name")).append("ok", new BsonInt32(1)).toJson());
            }
            case "insert" -> {
                insertCommands.incrementAndGet();
                BsonArray documents = command.getArray("documents");
                BsonArray writeErrors = new BsonArray();
                for (int i = 0; i < documents.size(); i++) {
                    if (documents.get(i).asDocument().getBoolean("fail", org.bson.BsonBoolean.FALSE).getValue()) {
                        writeErrors.add(new BsonDocument("index", new BsonInt32(i)).append("code", new BsonInt32(11000))
                                .append("errmsg", new BsonString("E11000 duplicate key error")));
                    }
                }
                int n = documents.size() - writeErrors.size();
                counts.computeIfAbsent(db + "." + command.getString("insert").getValue(), k -> new AtomicLong()).addAndGet(n);
                BsonDocument reply = new BsonDocument("n", new BsonInt32(n));
                if (!writeErrors.isEmpty()) {
                    reply.append("writeErrors", writeErrors);
                }
                reply(ex, 200, reply.append("ok", new BsonInt32(1)).toJson());
            }
            case "drop" -> reply(ex, 200, counts.remove(db + "." + command.getString("drop").getValue()) != null ? ok.toJson()
                    : "{\"ok\": 0, \"errmsg\": \"ns not found\", \"code\": 26, \"codeName\": \"NamespaceNotFound\"}");
            case "count" -> reply(ex, 200, new BsonDocument("n", new BsonInt64(counts.getOrDefault(db + "." + command.getString("count").getValue(),
                    new AtomicLong()).get())).append("ok", new BsonInt32(1)).toJson());
            case "find" -> reply(ex, 200, new BsonDocument("cursor", new BsonDocument("firstBatch", new BsonArray())
                    .append("id", new BsonInt64(0)).append("ns", new BsonString(db + "." + command.getString("find").getValue())))
                    .append("ok", new BsonInt32(1)).toJson());
            default -> reply(ex, 404, "{\"type\": \"about:blank\", \"status\": 404, \"ok\": 0, \"errmsg\": \"no such command: '" + name
                    + "'\", \"code\": 59, \"codeName\": \"CommandNotFound\"}");
        }
    }

    private BsonArray shardsCopy() {
        synchronized (shards) {
            return new BsonArray(new ArrayList<BsonValue>(shards));
        }
    }

    private static void reply(HttpExchange ex, int status, String json) throws IOException {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", status == 200 ? "application/json" : "application/problem+json");
        ex.sendResponseHeaders(status, body.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(body);
        }
    }
}
