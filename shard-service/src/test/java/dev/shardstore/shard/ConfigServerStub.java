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
import dev.shardstore.contracts.sharding.Chunk;
import dev.shardstore.contracts.sharding.ShardedCollection;
import dev.shardstore.contracts.version.ChunkVersion;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonNull;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonString;

/**
 * A real HTTP peer that answers the config service's {@code _configsvrGetDatabase} and
 * {@code _configsvrGetRoutingTable} in BSON from in-memory tables, counting the lookups per database and
 * recording the routing table requests per namespace. One per test JVM.
 */
public final class ConfigServerStub {
    private static final ConfigServerStub INSTANCE = start();

    private final HttpServer server;
    private final Map<String, BsonDocument> databases = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> lookups = new ConcurrentHashMap<>();
    private final Map<String, Table> tables = new ConcurrentHashMap<>();
    private final Map<String, List<Optional<ChunkVersion>>> routingRequests = new ConcurrentHashMap<>();
    private volatile Duration delay = Duration.ZERO;
    private volatile boolean failRoutingTables;

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
        if (command.containsKey("_configsvrGetRoutingTable")) {
            return routingTable(command);
        }
        String db = command.getString("_configsvrGetDatabase").getValue();
        lookups.computeIfAbsent(db, k -> new AtomicInteger()).incrementAndGet();
        sleep();
        BsonDocument entry = databases.get(db);
        if (entry == null) {
            return ErrorReplies.errorReply(ErrorCode.NamespaceNotFound, "database " + db + " not found", new BsonDocument());
        }
        return new BsonDocument("ok", new BsonDouble(1)).append("database", entry);
    }

    /**
     * {@code _configsvrGetRoutingTable} as docs/sharding-protocol.md has it: with a {@code sinceVersion} of the
     * current epoch only the newer chunks ({@code full: false}), else all of them; {@code collection: null} for a
     * namespace without a table.
     */
    private BsonDocument routingTable(BsonDocument command) {
        String ns = command.getString("_configsvrGetRoutingTable").getValue();
        ChunkVersion since = command.isDocument("sinceVersion") ? ChunkVersion.fromBson(command.getDocument("sinceVersion")) : null;
        routingRequests.computeIfAbsent(ns, k -> new CopyOnWriteArrayList<>()).add(Optional.ofNullable(since));
        sleep();
        if (failRoutingTables) {
            return ErrorReplies.errorReply(ErrorCode.ShutdownInProgress, "the config service is shutting down", new BsonDocument());
        }
        Table table = tables.get(ns);
        BsonDocument reply = new BsonDocument("ok", new BsonDouble(1));
        if (table == null) {
            return reply.append("collection", BsonNull.VALUE).append("chunks", new BsonArray()).append("full", BsonBoolean.TRUE);
        }
        boolean incremental = since != null && since.sameEpoch(table.chunks().getFirst().lastmod());
        BsonArray chunks = new BsonArray();
        table.chunks().stream().filter(c -> !incremental || c.lastmod().compareTo(since) > 0).forEach(c -> chunks.add(c.toBson()));
        return reply.append("collection", table.collection().toBson()).append("chunks", chunks)
                .append("full", BsonBoolean.valueOf(!incremental));
    }

    /** Makes the routing table say {@code collection} is sharded with {@code chunks}. */
    public void putRoutingTable(ShardedCollection collection, List<Chunk> chunks) {
        tables.put(collection.namespace(), new Table(collection, List.copyOf(chunks)));
    }

    /** Makes {@code _configsvrGetRoutingTable} answer ShutdownInProgress (true) or normally again (false). */
    public void failRoutingTables(boolean fail) {
        this.failRoutingTables = fail;
    }

    private void sleep() {
        try {
            Thread.sleep(delay);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Makes the routing table say {@code ns} is unsharded. */
    public void removeRoutingTable(String ns) {
        tables.remove(ns);
    }

    /** The {@code sinceVersion} of each routing table request for {@code ns} (empty: a full request), in order. */
    public List<Optional<ChunkVersion>> routingRequests(String ns) {
        return List.copyOf(routingRequests.getOrDefault(ns, List.of()));
    }

    private record Table(ShardedCollection collection, List<Chunk> chunks) {}

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
