package dev.shardstore.router.sharding;

import dev.shardstore.contracts.clock.ClusterTimeGossip;
import dev.shardstore.contracts.clock.ClusterTimeSigner;
import dev.shardstore.contracts.clock.SigningKey;
import dev.shardstore.router.testing.StubPeer;
import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.support.operation.CurrentOpRequest;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.error.ErrorReplies;
import dev.shardstore.contracts.http.InternalApi;
import dev.shardstore.contracts.sharding.Chunk;
import dev.shardstore.contracts.sharding.ChunkRange;
import dev.shardstore.contracts.sharding.RoutingTable;
import dev.shardstore.contracts.sharding.ShardKeyPattern;
import dev.shardstore.contracts.sharding.ShardedCollection;
import dev.shardstore.contracts.sharding.StaleConfig;
import dev.shardstore.contracts.version.ChunkVersion;
import dev.shardstore.contracts.version.DatabaseVersion;
import dev.shardstore.contracts.version.VersionRules;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.bson.BsonArray;
import org.bson.BsonBinary;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonNull;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;
import org.bson.UuidRepresentation;
import org.bson.types.ObjectId;

/**
 * A config service and two shards ({@code sh1}, {@code sh2}) as real HTTP peers over an in-memory catalog, for
 * driving the router: the config stub answers database lookups, {@code listShards}, {@code update} on the config database (nothing matched) and
 * {@code _configsvrGetRoutingTable} (incremental with {@code sinceVersion} of the current epoch, as the protocol
 * says) from the catalog; the shard stubs check {@code shardVersion} against the catalog like real shards
 * (mismatch → StaleConfig with their version as {@code vWanted}) and answer writes with one document per
 * statement, a document or statement with {@code fail: true} being a DuplicateKey write error, and read commands
 * with empty results of the shapes real shards answer (an empty cursor, {@code n: 0}, no values, an EOF plan) —
 * except namespaces a test stores documents of ({@link #store}), answered from them by the query engine. Tests
 * change the catalog (move a chunk, split) behind the router's back, also between a write's read and write phases
 * ({@link #beforeVersionedWrite}).
 */
final class FakeCluster implements AutoCloseable {
    static final String PRIMARY = "sh1";
    /** The one key of the config stub's {@code admin.system.keys}, valid for a year. */
    static final SigningKey SIGNING_KEY = new SigningKey(7001, new byte[SigningKey.LENGTH],
            new BsonTimestamp((int) (System.currentTimeMillis() / 1000 + 365L * 24 * 3600), 0));

    final StubPeer config = new StubPeer((db, cmd) -> configReply(cmd));
    final StubPeer sh1 = new StubPeer((db, cmd) -> gossiped(shardReply("sh1", db, cmd)));
    final StubPeer sh2 = new StubPeer((db, cmd) -> gossiped(shardReply("sh2", db, cmd)));
    /** When set, the shards' replies carry it as their {@code $clusterTime} and {@code operationTime}. */
    volatile @Nullable BsonTimestamp shardClusterTime;

    private final Map<String, DatabaseVersion> databases = new ConcurrentHashMap<>();
    private final Map<String, RoutingTable> collections = new ConcurrentHashMap<>();
    private final Map<String, Duration> configReplyDelays = new ConcurrentHashMap<>();
    /** Routing-table requests to fail before answering again. */
    final AtomicInteger failRoutingTableRequests = new AtomicInteger();
    /** Run while a routing-table reply is held back (after it is computed), e.g. to deliver an event mid-refresh. */
    volatile @Nullable Runnable beforeRoutingTableReply;
    /** Shards that answer StaleConfig (without vWanted) to every versioned request. */
    final Set<String> alwaysStale = ConcurrentHashMap.newKeySet();
    /** Shards that fail every request: the stub drops the connection, which the router's transport reports as HostUnreachable. */
    final Set<String> broken = ConcurrentHashMap.newKeySet();
    /** Shards whose replies wait until the latch is released (a slow shard). */
    final Map<String, CountDownLatch> held = new ConcurrentHashMap<>();

    /** Documents of namespaces a test stores (by shard and namespace): those answer reads and writes from them. */
    private final Map<String, FakeShardStore> stores = new ConcurrentHashMap<>();
    /**
     * Run once by the first shard to receive a versioned update, delete or findAndModify, before its version check: a
     * split or move of the catalog between the read and the write of a write without the shard key.
     */
    final AtomicReference<@Nullable Runnable> beforeVersionedWrite = new AtomicReference<>();

    /**
     * Views the primary holds, by namespace, as their {@code resolvedView: {ns, pipeline}}: reads of one are answered
     * with CommandOnShardedViewNotSupportedOnMongod (169) carrying it, anything else with CommandNotSupportedOnView (166),
     * as the real primary does.
     */
    final Map<String, BsonDocument> views = new ConcurrentHashMap<>();

    /** The document store of {@code ns} on {@code shard}, created empty: from then on that shard answers {@code ns} from it. */
    FakeShardStore store(String shard, String ns) {
        return stores.computeIfAbsent(shard + "|" + ns, k -> new FakeShardStore());
    }

    /** Inserts {@code documents} into {@code ns} on the shards the catalog says own them. */
    void insertOwned(String ns, List<BsonDocument> documents) {
        documents.forEach(d -> store(collections.get(ns).chunkFor(d).shard(), ns).add(d));
    }

    /** Moves every stored document of {@code ns} to the shard owning it in the catalog now (a migration's data move). */
    void migrateDocuments(String ns) {
        RoutingTable table = collections.get(ns);
        for (String shard : List.of("sh1", "sh2")) {
            store(shard, ns).removeIf(d -> !table.chunkFor(d).shard().equals(shard)).forEach(d -> store(table.chunkFor(d).shard(), ns).add(d));
        }
    }

    StubPeer shard(String id) {
        return id.equals("sh1") ? sh1 : sh2;
    }

    /** Requests every peer received, forgotten. */
    void forgetRequests() {
        config.received.clear();
        sh1.received.clear();
        sh2.received.clear();
    }

    /**
     * Shards {@code ns} with a ranged key on {@code field}: chunks split at {@code splitPoints}, owned in turn by
     * {@code owners}, versions per {@link VersionRules#shardCollection} (1|0, 1|1, ... in key order).
     */
    RoutingTable shardCollection(String ns, BsonDocument key, List<BsonValue> splitPoints, List<String> owners) {
        ShardKeyPattern pattern = ShardKeyPattern.of(key);
        ShardedCollection coll = new ShardedCollection(ns, UUID.randomUUID(), new ObjectId(), new BsonTimestamp((int) (System.currentTimeMillis() / 1000), 1),
                pattern, false, false);
        String field = pattern.fields().get(0);
        List<Chunk> chunks = new ArrayList<>();
        List<ChunkVersion> versions = VersionRules.shardCollection(splitPoints.size() + 1, coll.epoch(), coll.timestamp());
        BsonDocument min = pattern.globalMin();
        for (int i = 0; i <= splitPoints.size(); i++) {
            BsonDocument max = i < splitPoints.size() ? new BsonDocument(field, splitPoints.get(i)) : pattern.globalMax();
            chunks.add(new Chunk(new ChunkRange(min, max), owners.get(i), versions.get(i)));
            min = max;
        }
        RoutingTable table = RoutingTable.of(coll, chunks);
        collections.put(ns, table);
        databases.putIfAbsent(ns.substring(0, ns.indexOf('.')), VersionRules.newDatabase(new BsonTimestamp(1, 1)));
        return table;
    }

    /** Moves chunk {@code index} (key order) to {@code to}: it gets {@link VersionRules#migratedChunk}. */
    RoutingTable moveChunk(String ns, int index, String to) {
        RoutingTable table = collections.get(ns);
        Chunk moved = table.chunks().get(index);
        RoutingTable next = table.withChanges(List.of(new Chunk(moved.range(), to, VersionRules.migratedChunk(table.collectionVersion()))));
        collections.put(ns, next);
        return next;
    }

    /**
     * Splits chunk {@code index} at {@code {field: at}} with the protocol's versions ({@link VersionRules#split}).
     */
    RoutingTable splitChunk(String ns, int index, BsonValue at) {
        RoutingTable table = collections.get(ns);
        Chunk chunk = table.chunks().get(index);
        List<ChunkVersion> halves = VersionRules.split(table.collectionVersion(), table.shardVersion(chunk.shard()), 2);
        BsonDocument middle = new BsonDocument(table.shardKey().fields().get(0), at);
        RoutingTable next = table.withChanges(List.of(
                new Chunk(new ChunkRange(chunk.range().min(), middle), chunk.shard(), halves.get(0)),
                new Chunk(new ChunkRange(middle, chunk.range().max()), chunk.shard(), halves.get(1))));
        collections.put(ns, next);
        return next;
    }

    /** Moves database {@code db}'s version on ({@link VersionRules#movePrimary}, keeping the primary). */
    void bumpDatabaseVersion(String db) {
        databases.computeIfPresent(db, (k, v) -> VersionRules.movePrimary(v, v.timestamp()));
    }

    /** The catalog's table of {@code ns}. */
    RoutingTable table(String ns) {
        return collections.get(ns);
    }

    /**
     * Makes the config service answer {@code command} only after {@code delay}, as a DDL coordinator that waits for a
     * migration does; {@link Duration#ZERO} answers at once again.
     */
    void delayConfigReplies(String command, Duration delay) {
        configReplyDelays.put(command, delay);
    }

    private BsonDocument configReply(BsonDocument cmd) {
        Duration delay = configReplyDelays.getOrDefault(cmd.getFirstKey(), Duration.ZERO);
        if (!delay.isZero()) {
            try {
                Thread.sleep(delay);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return switch (cmd.getFirstKey()) {
            case "_configsvrGetDatabase", "_configsvrCreateDatabase" -> {
                String db = cmd.getString(cmd.getFirstKey()).getValue();
                DatabaseVersion version = databases.computeIfAbsent(db, k -> VersionRules.newDatabase(new BsonTimestamp(1, 1)));
                yield Replies.ok(new BsonDocument("database", new BsonDocument("_id", new BsonString(db))
                        .append("primary", new BsonString(PRIMARY)).append("version", version.toBson())));
            }
            case "listShards" -> Replies.ok(new BsonDocument("shards", new BsonArray(List.of(
                    new BsonDocument("_id", new BsonString("sh1")).append("host", new BsonString(sh1.url())),
                    new BsonDocument("_id", new BsonString("sh2")).append("host", new BsonString(sh2.url()))))));
            case "_configsvrGetRoutingTable" -> routingTable(cmd);
            case "_configsvrShardCollection" -> Replies.ok(new BsonDocument("collectionsharded", cmd.get("_configsvrShardCollection"))
                    .append("collectionUUID", new BsonBinary(UUID.randomUUID(), UuidRepresentation.STANDARD)));
            case "_configsvrListDatabases" -> {
                BsonArray list = new BsonArray();
                databases.keySet().stream().sorted().forEach(db -> list.add(new BsonDocument("_id", new BsonString(db))
                        .append("primary", new BsonString(PRIMARY))));
                yield Replies.ok(new BsonDocument("databases", list));
            }
            // the config service's update of config.settings / config.collections, matching nothing in this empty catalog
            case "update" -> Replies.ok(new BsonDocument("n", new BsonInt32(0)).append("nModified", new BsonInt32(0)));
            case "find" -> cmd.get("find").equals(new BsonString("system.keys"))
                    ? Replies.cursor(true, List.of(SIGNING_KEY.toBson()), 0, "admin.system.keys")
                    : Replies.cursor(true, List.of(), 0, "config." + (cmd.isString("find") ? cmd.getString("find").getValue() : "?"));
            default -> Replies.ok();
        };
    }

    private BsonDocument routingTable(BsonDocument cmd) {
        if (failRoutingTableRequests.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            return ErrorReplies.errorReply(ErrorCode.LockBusy, "catalog busy", new BsonDocument());
        }
        RoutingTable table = collections.get(cmd.getString("_configsvrGetRoutingTable").getValue());
        if (table == null) {
            return Replies.ok(new BsonDocument("collection", BsonNull.VALUE).append("chunks", new BsonArray()).append("full", BsonBoolean.TRUE));
        }
        ChunkVersion since = cmd.isDocument("sinceVersion") ? ChunkVersion.fromBson(cmd.getDocument("sinceVersion")) : null;
        boolean incremental = since != null && since.sameEpoch(table.collectionVersion());
        BsonArray chunks = new BsonArray();
        table.chunks().stream().filter(c -> !incremental || c.lastmod().compareTo(since) > 0).forEach(c -> chunks.add(c.toBson()));
        Runnable hook = beforeRoutingTableReply;
        if (hook != null) {
            hook.run();
        }
        return Replies.ok(new BsonDocument("collection", table.collection().toBson()).append("chunks", chunks)
                .append("full", BsonBoolean.valueOf(!incremental)));
    }

    private BsonDocument shardReply(String shard, String db, BsonDocument cmd) {
        if (broken.contains(shard)) {
            throw new IllegalStateException(shard + " is broken");
        }
        CountDownLatch hold = held.get(shard);
        if (hold != null) {
            try {
                hold.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        BsonValue receivedDb = cmd.get(InternalApi.DATABASE_VERSION_FIELD);
        DatabaseVersion dbVersion = databases.get(db);
        if (receivedDb != null && dbVersion != null && !DatabaseVersion.fromBson(receivedDb.asDocument()).equals(dbVersion)) {
            return ErrorReplies.errorReply(ErrorCode.StaleDbVersion, "database version mismatch for " + db, new BsonDocument("db", new BsonString(db)));
        }
        BsonValue received = cmd.get(InternalApi.SHARD_VERSION_FIELD);
        if (received != null && List.of("update", "delete", "findAndModify").contains(cmd.getFirstKey())) {
            Runnable hook = beforeVersionedWrite.getAndSet(null);
            if (hook != null) {
                hook.run();
            }
        }
        // the collection is named by the command's first value (by the explained command's, for explain)
        BsonDocument named = cmd.isDocument("explain") && !cmd.getDocument("explain").isEmpty() ? cmd.getDocument("explain") : cmd;
        String ns = db + "." + (named.get(named.getFirstKey()).isString() ? named.getString(named.getFirstKey()).getValue() : "");
        if (received != null) {
            RoutingTable table = collections.get(ns);
            ChunkVersion mine = table == null ? ChunkVersion.UNSHARDED : table.shardVersion(shard);
            ChunkVersion sent = ChunkVersion.fromBson(received.asDocument());
            if (alwaysStale.contains(shard) || !mine.equals(sent)) {
                return new StaleConfig(ns, sent, alwaysStale.contains(shard) ? null : mine, shard).toException().toReply();
            }
        }
        BsonDocument view = views.get(ns);
        if (view != null) {
            return List.of("find", "aggregate", "count", "distinct", "explain").contains(cmd.getFirstKey())
                    ? ErrorReplies.errorReply(ErrorCode.CommandOnShardedViewNotSupportedOnMongod, "Resolved views on sharded collections must be"
                            + " executed by mongos", new BsonDocument("resolvedView", view))
                    : ErrorReplies.errorReply(ErrorCode.CommandNotSupportedOnView, "Namespace " + ns + " is a view, not a collection", new BsonDocument());
        }
        FakeShardStore store = stores.get(shard + "|" + ns);
        if (store != null && List.of("find", "aggregate", "update", "delete", "findAndModify").contains(cmd.getFirstKey())) {
            return switch (cmd.getFirstKey()) {
                case "find" -> store.find(cmd, ns);
                case "aggregate" -> store.aggregate(cmd, ns);
                case "update" -> store.update(cmd.getArray("updates"));
                case "delete" -> store.delete(cmd.getArray("deletes"));
                default -> store.findAndModify(cmd);
            };
        }
        if (cmd.getFirstKey().equals("aggregate") && CurrentOpRequest.uses(cmd.get("pipeline"))) {
            return Replies.cursor(true, currentOp(shard), 0, "admin.$cmd.aggregate");
        }
        return switch (cmd.getFirstKey()) {
            case "insert" -> writeReply(cmd.getArray("documents"), cmd, false);
            case "update" -> writeReply(cmd.getArray("updates"), cmd, true);
            case "delete" -> writeReply(cmd.getArray("deletes"), cmd, false);
            case "findAndModify" -> Replies.ok(new BsonDocument("lastErrorObject", new BsonDocument("n", new BsonInt32(0))).append("value", BsonNull.VALUE));
            case "listIndexes", "find", "aggregate", "listCollections" -> Replies.cursor(true, List.of(), 0, ns);
            case "getMore" -> ErrorReplies.errorReply(ErrorCode.CursorNotFound, "cursor not found", new BsonDocument());
            case "count" -> Replies.ok(new BsonDocument("n", new BsonInt32(0)));
            case "distinct" -> Replies.ok(new BsonDocument("values", new BsonArray()));
            case "listDatabases" -> Replies.ok(new BsonDocument("databases", new BsonArray()).append("totalSize", new BsonInt32(0)));
            case "explain" -> Replies.ok(new BsonDocument("queryPlanner", new BsonDocument("namespace", new BsonString(ns))
                    .append("winningPlan", new BsonDocument("stage", new BsonString("EOF"))).append("rejectedPlans", new BsonArray())));
            default -> Replies.ok(new BsonDocument("shard", new BsonString(shard)));
        };
    }

    /** What a shard's {@code $currentOp} lists here: one command (opid 7 on sh1, 8 on sh2) and one migration, which has no opid. */
    static List<BsonDocument> currentOp(String shard) {
        return List.of(ExtendedJson.parse("{type: 'op', opid: {$numberLong: '" + (shard.equals("sh1") ? 7 : 8) + "'}, active: true,"
                + " op: 'command', ns: 'db.c', command: {find: 'c'}, secs_running: {$numberLong: '1'}, desc: 'internal'}"),
                ExtendedJson.parse("{type: 'op', desc: 'MoveChunk', ns: 'db.c', phase: 'clone'}"));
    }

    private BsonDocument gossiped(BsonDocument reply) {
        BsonTimestamp time = shardClusterTime;
        if (time != null) {
            reply.put(ClusterTimeGossip.CLUSTER_TIME, new BsonDocument("clusterTime", time).append("signature", ClusterTimeSigner.UNSIGNED.sign(time)));
            reply.put(ClusterTimeGossip.OPERATION_TIME, time);
        }
        return reply;
    }

    /** One affected document per statement; {@code fail: true} (in the document or the statement's q) fails it. */
    private static BsonDocument writeReply(BsonArray statements, BsonDocument cmd, boolean update) {
        boolean ordered = cmd.getBoolean("ordered", BsonBoolean.TRUE).getValue();
        int n = 0;
        BsonArray errors = new BsonArray();
        for (int i = 0; i < statements.size(); i++) {
            BsonDocument s = statements.get(i).asDocument();
            BsonDocument probe = s.isDocument("q") ? s.getDocument("q") : s;
            if (probe.getBoolean("fail", BsonBoolean.FALSE).getValue()) {
                errors.add(new BsonDocument("index", new BsonInt32(i)).append("code", new BsonInt32(ErrorCode.DuplicateKey.code()))
                        .append("errmsg", new BsonString("E11000 duplicate key")));
                if (ordered) {
                    break;
                }
                continue;
            }
            n++;
        }
        BsonDocument reply = new BsonDocument("n", new BsonInt32(n));
        if (update) {
            reply.append("nModified", new BsonInt32(n));
        }
        if (!errors.isEmpty()) {
            reply.append("writeErrors", errors);
        }
        return Replies.ok(reply);
    }

    @Override
    public void close() {
        config.close();
        sh1.close();
        sh2.close();
    }
}
