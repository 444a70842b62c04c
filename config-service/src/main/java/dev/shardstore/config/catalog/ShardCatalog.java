package dev.shardstore.config.catalog;

import dev.shardstore.config.outbox.Outbox;
import dev.shardstore.config.shard.ShardPeers;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.event.CatalogEvent;
import java.net.URI;
import java.util.List;
import java.util.Optional;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Service;
import org.springframework.transaction.support.TransactionTemplate;

/** {@code addShard}, {@code listShards} and {@code removeShard} over {@code config.shards}. */
@Service
public class ShardCatalog {
    private final ShardRepository shards;
    private final ShardPeers peers;
    private final Outbox outbox;
    private final TransactionTemplate tx;
    private final JdbcClient jdbc;

    public ShardCatalog(ShardRepository shards, ShardPeers peers, Outbox outbox, TransactionTemplate tx, JdbcClient jdbc) {
        this.jdbc = jdbc;
        this.shards = shards;
        this.peers = peers;
        this.outbox = outbox;
        this.tx = tx;
    }

    /**
     * Registers the shard at {@code host} after checking that it answers and that its own name
     * matches {@code name} (when given). Adding the same name and host again is a no-op, as in MongoDB.
     *
     * @param host base URL of the shard service, for example {@code http://localhost:8101}
     * @param name the shard id; null to take the name the shard reports
     * @return the registered shard
     * @throws CommandException BadValue for a malformed host URL; HostUnreachable/NetworkTimeout when the
     *                          shard does not answer; OperationFailed when the name or host is taken by
     *                          another shard, or the shard reports a different name
     */
    public ShardEntity addShard(String host, @Nullable String name) {
        String normalized = normalizeHost(host);
        String reported = peers.name(normalized);
        if (name != null && !name.equals(reported)) {
            throw new CommandException(ErrorCode.OperationFailed,
                    "the shard at " + normalized + " calls itself '" + reported + "', not '" + name + "'");
        }
        return tx.execute(status -> {
            Optional<ShardEntity> byName = shards.findById(reported);
            Optional<ShardEntity> byHost = shards.findByHost(normalized);
            if (byName.isPresent() && byName.get().host().equals(normalized)) {
                return byName.get();
            }
            if (byName.isPresent()) {
                throw new CommandException(ErrorCode.OperationFailed,
                        "a shard named '" + reported + "' already exists at " + byName.get().host());
            }
            if (byHost.isPresent()) {
                throw new CommandException(ErrorCode.OperationFailed,
                        "the host " + normalized + " is already registered as shard '" + byHost.get().id() + "'");
            }
            ShardEntity added = shards.save(new ShardEntity(reported, normalized));
            outbox.append(CatalogEvent.Type.SHARD_ADDED, "", null);
            return added;
        });
    }

    /**
     * MongoDB's {@code removeShard}, called until it completes: the first call marks the shard draining (the balancer then
     * moves its chunks away, and it takes no new ones) → {@code {msg, state: "started", shard, note, dbsToMove}}; while chunks
     * remain on it or databases have it as primary → {@code {msg, state: "ongoing", remaining: {chunks, dbs, jumboChunks},
     * note, dbsToMove}}; then the shard leaves {@code config.shards} (with a SHARD_REMOVED event) → {@code {msg, state:
     * "completed", shard}}. The databases must be moved with {@code movePrimary}, as in MongoDB.
     *
     * @throws CommandException ShardNotFound (70); IllegalOperation (20) when it is the last shard that is not draining
     */
    public BsonDocument removeShard(String id) {
        return tx.execute(status -> {
            jdbc.sql("LOCK TABLE shards IN SHARE ROW EXCLUSIVE MODE").update();
            ShardEntity shard = shards.findById(id).orElseThrow(() -> new CommandException(ErrorCode.ShardNotFound, "shard " + id + " does not exist"));
            List<String> dbsToMove = jdbc.sql("SELECT id FROM databases WHERE primary_shard = ? ORDER BY id").param(id)
                    .query((rs, n) -> rs.getString("id")).list();
            BsonArray dbs = new BsonArray(dbsToMove.stream().map(db -> (BsonValue) new BsonString(db)).toList());
            String note = "you need to call movePrimary for each of dbsToMove once their unsharded collections may move";
            if (!shard.draining()) {
                if (shards.findAll().stream().noneMatch(other -> !other.id().equals(id) && !other.draining())) {
                    throw new CommandException(ErrorCode.IllegalOperation, "Operation not allowed because it would remove the last shard");
                }
                shard.startDraining();
                shards.save(shard);
                return new BsonDocument("msg", new BsonString("draining started successfully")).append("state", new BsonString("started"))
                        .append("shard", new BsonString(id)).append("note", new BsonString(note)).append("dbsToMove", dbs);
            }
            long chunks = jdbc.sql("SELECT count(*) FROM chunks WHERE shard = ?").param(id).query(Long.class).single();
            long jumbo = jdbc.sql("SELECT count(*) FROM chunks WHERE shard = ? AND jumbo").param(id).query(Long.class).single();
            if (chunks > 0 || !dbsToMove.isEmpty()) {
                return new BsonDocument("msg", new BsonString("draining ongoing")).append("state", new BsonString("ongoing"))
                        .append("remaining", new BsonDocument("chunks", new BsonInt64(chunks)).append("dbs", new BsonInt64(dbsToMove.size()))
                                .append("jumboChunks", new BsonInt64(jumbo)))
                        .append("note", new BsonString(note)).append("dbsToMove", dbs);
            }
            shards.delete(shard);
            outbox.append(CatalogEvent.Type.SHARD_REMOVED, "", null);
            return new BsonDocument("msg", new BsonString("removeshard completed successfully")).append("state", new BsonString("completed"))
                    .append("shard", new BsonString(id));
        });
    }

    /** Every registered shard, ordered by id. */
    public List<ShardEntity> listShards() {
        return shards.findAll(org.springframework.data.domain.Sort.by("id"));
    }

    private static String normalizeHost(String host) {
        try {
            URI uri = URI.create(host.strip());
            if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme()) || uri.getHost() == null) {
                throw new IllegalArgumentException("needs an http(s) URL with a host");
            }
            String s = uri.toString();
            return s.endsWith("/") ? s.substring(0, s.length() - 1) : s;
        } catch (IllegalArgumentException e) {
            throw new CommandException(ErrorCode.BadValue, "addShard: '" + host + "' is not a shard URL such as http://localhost:8101 (" + e.getMessage() + ")");
        }
    }
}
