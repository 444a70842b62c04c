package dev.shardstore.shard;

import com.sun.net.httpserver.HttpServer;
import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.error.ErrorReplies;
import dev.shardstore.contracts.version.DatabaseVersion;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonString;

/**
 * A real HTTP peer that answers the config service's {@code _configsvrGetDatabase} in BSON from an
 * in-memory table, counting the lookups per database. One per test JVM.
 */
public final class ConfigServerStub {
    private static final ConfigServerStub INSTANCE = start();

    private final HttpServer server;
    private final Map<String, BsonDocument> databases = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> lookups = new ConcurrentHashMap<>();
    private volatile Duration delay = Duration.ZERO;

    private ConfigServerStub(HttpServer server) {
        this.server = server;
    }

    public static ConfigServerStub instance() {
        return INSTANCE;
    }

    private static ConfigServerStub start() {
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            ConfigServerStub stub = new ConfigServerStub(server);
            server.createContext("/internal/v1/databases/admin/command", exchange -> {
                BsonDocument command = BsonBytes.decode(exchange.getRequestBody().readAllBytes());
                byte[] reply = BsonBytes.encode(stub.answer(command));
                exchange.getResponseHeaders().add("Content-Type", "application/bson");
                exchange.sendResponseHeaders(200, reply.length);
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(reply);
                }
            });
            server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
            server.start();
            return stub;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private BsonDocument answer(BsonDocument command) {
        String db = command.getString("_configsvrGetDatabase").getValue();
        lookups.computeIfAbsent(db, k -> new AtomicInteger()).incrementAndGet();
        try {
            Thread.sleep(delay);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        BsonDocument entry = databases.get(db);
        if (entry == null) {
            return ErrorReplies.errorReply(ErrorCode.NamespaceNotFound, "database " + db + " not found", new BsonDocument());
        }
        return new BsonDocument("ok", new BsonDouble(1)).append("database", entry);
    }

    /** The base URL to set as {@code shardstore.config-url}. */
    public String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** Makes the routing table say {@code db} has primary {@code shard} at {@code version}. */
    public void put(String db, String shard, DatabaseVersion version) {
        databases.put(db, new BsonDocument("_id", new BsonString(db))
                .append("primary", new BsonString(shard))
                .append("version", version.toBson()));
    }

    /** How many lookups of {@code db} the stub answered. */
    public int lookups(String db) {
        AtomicInteger count = lookups.get(db);
        return count == null ? 0 : count.get();
    }

    /** Makes every answer wait this long (to let concurrent refreshes overlap). */
    public void delay(Duration delay) {
        this.delay = delay;
    }
}
