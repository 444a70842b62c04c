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
import dev.shardstore.contracts.version.VersionRules;
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
 * recording the routing table requests per namespace; for chunk migrations also {@code listShards} (the shards a test
 * registered), {@code _configsvrCommitChunkMigration} and {@code _configsvrEnsureChunkVersionIsGreaterThan} with the
 * config service's version rules on those tables, and {@code _configsvrLogChange} (recorded). For auto-split also
 * {@code _configsvrCommitChunkSplit} (the config service's checks and version rules; refusals counted),
 * {@code _configsvrSetJumboFlag}, {@code _configsvrMoveRange} (recorded, not run: answers {@code moved: false}) and
 * {@code find} on the {@code config} database for {@code settings}, {@code collections} (with per-collection extra fields),
 * {@code shards} (the registered ones) and {@code tags} (none). One per test JVM.
 */
public final class ConfigServerStub {
    private static final ConfigServerStub INSTANCE = start();

    private final HttpServer server;
    private final Map<String, BsonDocument> databases = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> lookups = new ConcurrentHashMap<>();
    private final Map<String, Table> tables = new ConcurrentHashMap<>();
    private final Map<String, List<Optional<ChunkVersion>>> routingRequests = new ConcurrentHashMap<>();
    private final Map<String, String> shards = new ConcurrentHashMap<>();
    private final List<BsonDocument> changelog = new CopyOnWriteArrayList<>();
    private final Map<String, BsonDocument> settings = new ConcurrentHashMap<>();
    private final Map<String, BsonDocument> collectionFields = new ConcurrentHashMap<>();
    private final List<BsonDocument> moveRanges = new CopyOnWriteArrayList<>();
    private final List<BsonDocument> splitCommits = new CopyOnWriteArrayList<>();
    private final AtomicInteger refusedSplits = new AtomicInteger();
    private volatile Duration delay = Duration.ZERO;
    private volatile boolean failRoutingTables;
    private volatile java.util.function.@org.jspecify.annotations.Nullable UnaryOperator<BsonDocument> commitOverride;

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
            server.createContext("/internal/v1/databases/", exchange -> {
                BsonDocument command = BsonBytes.decode(exchange.getRequestBody().readAllBytes());
                boolean config = exchange.getRequestURI().getPath().equals("/internal/v1/databases/config/command");
                byte[] reply = BsonBytes.encode(config ? stub.find(command) : stub.answer(command));
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
        switch (command.getFirstKey()) {
            case "listShards" -> {
                BsonArray list = new BsonArray();
                shards.forEach((name, host) -> list.add(new BsonDocument("_id", new BsonString(name)).append("host", new BsonString(host))));
                return new BsonDocument("ok", new BsonDouble(1)).append("shards", list);
            }
            case "_configsvrCommitChunkMigration" -> {
                var override = commitOverride;
                return override != null ? override.apply(command) : commitMigration(command);
            }
            case "_configsvrEnsureChunkVersionIsGreaterThan" -> {
                return ensureChunkVersion(command);
            }
            case "_configsvrLogChange" -> {
                changelog.add(command.clone());
                return new BsonDocument("ok", new BsonDouble(1));
            }
            case "_configsvrCommitChunkSplit" -> {
                return commitSplit(command);
            }
            case "_configsvrSetJumboFlag" -> {
                return setJumbo(command);
            }
            case "_configsvrMoveRange" -> {
                moveRanges.add(command.clone());
                return new BsonDocument("ok", new BsonDouble(1)).append("moved", BsonBoolean.FALSE);
            }
            default -> { }
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

    /**
     * {@code _configsvrCommitChunkMigration} with the config service's rules: the chunk {@code migratedChunk} of
     * {@code fromShard} (with version {@code migratedChunk.lastmod}) moves to {@code toShard} at {@code (cv.major + 1)|0}, a
     * chunk left on the donor gets {@code (cv.major + 1)|1}.
     */
    private synchronized BsonDocument commitMigration(BsonDocument command) {
        String ns = command.getString("_configsvrCommitChunkMigration").getValue();
        Table table = tables.get(ns);
        BsonDocument migrated = command.getDocument("migratedChunk");
        String from = command.getString("fromShard").getValue();
        Chunk chunk = table == null ? null : table.chunks().stream()
                .filter(c -> c.range().min().equals(migrated.getDocument("min")) && c.range().max().equals(migrated.getDocument("max"))
                        && c.shard().equals(from)).findFirst().orElse(null);
        if (chunk == null || migrated.isDocument("lastmod") && !ChunkVersion.fromBson(migrated.getDocument("lastmod")).equals(chunk.lastmod())) {
            return ErrorReplies.errorReply(ErrorCode.BadValue, "'migratedChunk' is not a chunk of " + from + " at that version", new BsonDocument());
        }
        ChunkVersion cv = collectionVersion(table);
        List<Chunk> updated = new java.util.ArrayList<>();
        boolean controlled = false;
        for (Chunk c : table.chunks()) {
            if (c == chunk) {
                updated.add(new Chunk(c.range(), command.getString("toShard").getValue(), VersionRules.migratedChunk(cv)));
            } else if (!controlled && c.shard().equals(from)) {
                updated.add(new Chunk(c.range(), c.shard(), VersionRules.controlChunk(cv)));
                controlled = true;
            } else {
                updated.add(c);
            }
        }
        tables.put(ns, new Table(table.collection(), updated));
        return new BsonDocument("ok", new BsonDouble(1));
    }

    /** {@code find} on the config database (equality on {@code _id} or {@code ns} only, which is what shards ask). */
    private BsonDocument find(BsonDocument command) {
        BsonDocument filter = command.getDocument("filter", new BsonDocument());
        List<BsonDocument> all = switch (command.getString("find").getValue()) {
            case "settings" -> settings.entrySet().stream().map(e -> {
                BsonDocument doc = new BsonDocument("_id", new BsonString(e.getKey()));
                doc.putAll(e.getValue());
                return doc;
            }).toList();
            case "collections" -> tables.values().stream().map(t -> {
                BsonDocument doc = t.collection().toBson();
                doc.putAll(collectionFields.getOrDefault(t.collection().namespace(), new BsonDocument()));
                return doc;
            }).toList();
            case "shards" -> shards.entrySet().stream().map(e -> new BsonDocument("_id", new BsonString(e.getKey()))
                    .append("host", new BsonString(e.getValue())).append("state", new org.bson.BsonInt32(1))).toList();
            default -> List.of();
        };
        BsonArray batch = new BsonArray();
        all.stream().filter(doc -> filter.entrySet().stream().allMatch(f -> f.getValue().equals(doc.get(f.getKey())))).forEach(batch::add);
        return new BsonDocument("ok", new BsonDouble(1)).append("cursor", new BsonDocument("id", new org.bson.BsonInt64(0))
                .append("ns", new BsonString("config." + command.getString("find").getValue())).append("firstBatch", batch));
    }

    /**
     * {@code _configsvrCommitChunkSplit} with the config service's rules: {@code [min, max)} must be exactly a chunk of
     * {@code shard} (BadValue otherwise, counted in {@link #refusedSplits}); the pieces get {@link VersionRules#split}.
     */
    private synchronized BsonDocument commitSplit(BsonDocument command) {
        String ns = command.getString("_configsvrCommitChunkSplit").getValue();
        Table table = tables.get(ns);
        String shard = command.getString("shard").getValue();
        BsonDocument min = command.getDocument("min");
        BsonDocument max = command.getDocument("max");
        Chunk chunk = table == null ? null : table.chunks().stream().filter(c -> c.range().min().equals(min) && c.range().max().equals(max)
                && c.shard().equals(shard)).findFirst().orElse(null);
        if (chunk == null || !command.getObjectId("collEpoch").getValue().equals(table.collection().epoch())) {
            refusedSplits.incrementAndGet();
            return ErrorReplies.errorReply(ErrorCode.BadValue, "min/max is not a chunk of " + shard + " of " + ns, new BsonDocument());
        }
        List<BsonDocument> bounds = new java.util.ArrayList<>();
        bounds.add(min);
        command.getArray("splitPoints").forEach(p -> bounds.add(p.asDocument()));
        bounds.add(max);
        ChunkVersion cv = collectionVersion(table);
        ChunkVersion shardVersion = table.chunks().stream().filter(c -> c.shard().equals(shard)).map(Chunk::lastmod).max(ChunkVersion::compareTo).orElseThrow();
        List<ChunkVersion> versions = VersionRules.split(cv, shardVersion, bounds.size() - 1);
        List<Chunk> updated = new java.util.ArrayList<>(table.chunks());
        updated.remove(chunk);
        for (int i = 0; i + 1 < bounds.size(); i++) {
            updated.add(new Chunk(new dev.shardstore.contracts.sharding.ChunkRange(bounds.get(i), bounds.get(i + 1)), shard, versions.get(i)));
        }
        updated.sort((a, b) -> dev.shardstore.contracts.bson.BsonOrder.compare(a.range().min(), b.range().min()));
        tables.put(ns, new Table(table.collection(), updated));
        splitCommits.add(command.clone());
        return new BsonDocument("ok", new BsonDouble(1));
    }

    /** {@code _configsvrSetJumboFlag}: sets the flag of the chunk starting at {@code min} (no version change). */
    private synchronized BsonDocument setJumbo(BsonDocument command) {
        String ns = command.getString("_configsvrSetJumboFlag").getValue();
        Table table = tables.get(ns);
        BsonDocument min = command.getDocument("min");
        boolean jumbo = command.getBoolean("jumbo", BsonBoolean.TRUE).getValue();
        List<Chunk> updated = table.chunks().stream().map(c -> c.range().min().equals(min)
                ? new Chunk(c.range(), c.shard(), c.lastmod(), jumbo) : c).toList();
        tables.put(ns, new Table(table.collection(), updated));
        return new BsonDocument("ok", new BsonDouble(1)).append("jumbo", BsonBoolean.valueOf(jumbo));
    }

    /** Sets (or with null removes) the {@code config.settings} document {@code id} (fields without {@code _id}). */
    public void putSetting(String id, @org.jspecify.annotations.Nullable BsonDocument fields) {
        if (fields == null) {
            settings.remove(id);
        } else {
            settings.put(id, fields.clone());
        }
    }

    /** Adds {@code fields} (e.g. {@code maxChunkSizeBytes}) to {@code ns}'s {@code config.collections} entry. */
    public void putCollectionFields(String ns, BsonDocument fields) {
        collectionFields.put(ns, fields.clone());
    }

    /** The {@code _configsvrMoveRange} commands received, in order. */
    public List<BsonDocument> moveRanges() {
        return List.copyOf(moveRanges);
    }

    /** The {@code _configsvrCommitChunkSplit} commands committed, in order. */
    public List<BsonDocument> splitCommits() {
        return List.copyOf(splitCommits);
    }

    /** How many {@code _configsvrCommitChunkSplit} commands were refused. */
    public int refusedSplits() {
        return refusedSplits.get();
    }

    /** {@code _configsvrEnsureChunkVersionIsGreaterThan}: a chunk still at or below {@code version} gets {@link VersionRules#fence}. */
    private synchronized BsonDocument ensureChunkVersion(BsonDocument command) {
        String ns = command.getString("_configsvrEnsureChunkVersionIsGreaterThan").getValue();
        Table table = tables.get(ns);
        ChunkVersion version = ChunkVersion.fromBson(command.getDocument("version"));
        boolean fenced = false;
        if (table != null) {
            ChunkVersion cv = collectionVersion(table);
            List<Chunk> updated = new java.util.ArrayList<>();
            for (Chunk c : table.chunks()) {
                if (c.range().min().equals(command.getDocument("minKey")) && c.range().max().equals(command.getDocument("maxKey"))
                        && !version.isOlderThan(c.lastmod())) {
                    updated.add(new Chunk(c.range(), c.shard(), VersionRules.fence(cv)));
                    fenced = true;
                } else {
                    updated.add(c);
                }
            }
            tables.put(ns, new Table(table.collection(), updated));
        }
        return new BsonDocument("ok", new BsonDouble(1)).append("fenced", BsonBoolean.valueOf(fenced));
    }

    private static ChunkVersion collectionVersion(Table table) {
        return table.chunks().stream().map(Chunk::lastmod).max(ChunkVersion::compareTo).orElseThrow();
    }

    /** Makes {@code listShards} name {@code shard} at {@code url}. */
    public void registerShard(String shard, String url) {
        shards.put(shard, url);
    }

    /** Answers {@code _configsvrCommitChunkMigration} with {@code answer} instead of committing; null commits again. */
    public void overrideMigrationCommit(java.util.function.@org.jspecify.annotations.Nullable UnaryOperator<BsonDocument> answer) {
        this.commitOverride = answer;
    }

    /** The chunks of {@code ns} now (empty when it has no table). */
    public List<Chunk> chunks(String ns) {
        Table table = tables.get(ns);
        return table == null ? List.of() : table.chunks();
    }

    /** The {@code _configsvrLogChange} commands received, in order. */
    public List<BsonDocument> changelog() {
        return List.copyOf(changelog);
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
