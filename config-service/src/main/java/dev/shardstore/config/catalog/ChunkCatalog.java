package dev.shardstore.config.catalog;

import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.sharding.Chunk;
import dev.shardstore.contracts.sharding.ChunkHistory;
import dev.shardstore.contracts.sharding.ChunkRange;
import dev.shardstore.contracts.sharding.ShardKeyPattern;
import dev.shardstore.contracts.version.ChunkVersion;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.bson.types.ObjectId;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.jdbc.core.namedparam.SqlParameterSource;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * {@code config.chunks} over JDBC. Bounds are compared as their KeyString encodings ({@link ShardKeyPattern#encode}),
 * which PostgreSQL orders with unsigned byte comparison exactly as BSON orders the bounds; "in key order" means
 * ordered by {@code min_key}. Writes run inside the caller's transaction.
 */
@Repository
public class ChunkCatalog {
    private static final String COLUMNS = "c.id, c.collection_uuid, c.min_bson, c.max_bson, c.shard, c.major, c.minor, c.epoch, "
            + "c.timestamp_secs, c.timestamp_inc, c.jumbo, c.history";

    private final JdbcClient jdbc;
    private final NamedParameterJdbcTemplate batches;

    public ChunkCatalog(JdbcClient jdbc, NamedParameterJdbcTemplate batches) {
        this.jdbc = jdbc;
        this.batches = batches;
    }

    /** Inserts {@code chunks} of a collection whose shard key is {@code key}, as one JDBC batch. */
    public void insert(ShardKeyPattern key, Collection<CatalogChunk> chunks) {
        batches.batchUpdate("""
                INSERT INTO chunks (id, collection_uuid, min_key, max_key, min_bson, max_bson, shard, major, minor, epoch,
                                    timestamp_secs, timestamp_inc, jumbo, history)
                VALUES (:id, :uuid, :minKey, :maxKey, :minBson, :maxBson, :shard, :major, :minor, :epoch, :secs, :inc, :jumbo, :history)""",
                chunks.stream().map(c -> new MapSqlParameterSource(rowParams(key, c))).toArray(SqlParameterSource[]::new));
    }

    /** Rewrites the row of {@code chunk.id()} with every field of {@code chunk}. */
    public void update(ShardKeyPattern key, CatalogChunk chunk) {
        int updated = jdbc.sql("""
                UPDATE chunks SET min_key = :minKey, max_key = :maxKey, min_bson = :minBson, max_bson = :maxBson, shard = :shard,
                                  major = :major, minor = :minor, epoch = :epoch, timestamp_secs = :secs, timestamp_inc = :inc,
                                  jumbo = :jumbo, history = :history
                WHERE id = :id AND collection_uuid = :uuid""")
                .params(rowParams(key, chunk))
                .update();
        if (updated != 1) {
            throw new IllegalStateException("chunk " + chunk.id() + " of collection " + chunk.collectionUuid() + " does not exist");
        }
    }

    /** Deletes the chunks with these ids. */
    public void delete(Collection<ObjectId> ids) {
        jdbc.sql("DELETE FROM chunks WHERE id = ANY (?)").param(ids.stream().map(ObjectId::toHexString).toArray(String[]::new)).update();
    }

    /** Every chunk of the collection, in key order. */
    public List<CatalogChunk> all(UUID collection) {
        return jdbc.sql("SELECT " + COLUMNS + " FROM chunks c WHERE c.collection_uuid = ? ORDER BY c.min_key")
                .param(collection).query(ChunkCatalog::row).list();
    }

    /** The chunks whose version is above {@code since}'s major|minor, in key order (an incremental refresh). */
    public List<CatalogChunk> newerThan(UUID collection, ChunkVersion since) {
        return jdbc.sql("SELECT " + COLUMNS + " FROM chunks c WHERE c.collection_uuid = ? AND (c.major, c.minor) > (?, ?) ORDER BY c.min_key")
                .params(collection, since.major(), since.minor()).query(ChunkCatalog::row).list();
    }

    /** Every chunk of every collection, ordered by namespace, then key order ({@code find} on config.chunks). */
    public List<CatalogChunk> everything() {
        return jdbc.sql("SELECT " + COLUMNS + " FROM chunks c JOIN collections k ON k.uuid = c.collection_uuid ORDER BY k.namespace, c.min_key")
                .query(ChunkCatalog::row).list();
    }

    /** The collection version: its highest chunk version; empty when it has no chunk. */
    public Optional<ChunkVersion> collectionVersion(UUID collection) {
        return jdbc.sql("SELECT " + COLUMNS + " FROM chunks c WHERE c.collection_uuid = ? ORDER BY c.major DESC, c.minor DESC LIMIT 1")
                .param(collection).query(ChunkCatalog::row).optional().map(CatalogChunk::lastmod);
    }

    /** {@code shard}'s version: its highest chunk version; empty when it owns no chunk of the collection. */
    public Optional<ChunkVersion> shardVersion(UUID collection, String shard) {
        return jdbc.sql("SELECT " + COLUMNS + " FROM chunks c WHERE c.collection_uuid = ? AND c.shard = ? ORDER BY c.major DESC, c.minor DESC LIMIT 1")
                .params(collection, shard).query(ChunkCatalog::row).optional().map(CatalogChunk::lastmod);
    }

    /** The chunk whose range is exactly {@code [min, max)} (encoded bounds). */
    public Optional<CatalogChunk> exact(UUID collection, byte[] min, byte[] max) {
        return jdbc.sql("SELECT " + COLUMNS + " FROM chunks c WHERE c.collection_uuid = ? AND c.min_key = ? AND c.max_key = ?")
                .params(collection, min, max).query(ChunkCatalog::row).optional();
    }

    /** The chunk that contains the encoded key: the last one starting at or below it, as {@code RoutingTable.findChunk}. */
    public Optional<CatalogChunk> owning(UUID collection, byte[] key) {
        return jdbc.sql("SELECT " + COLUMNS + " FROM chunks c WHERE c.collection_uuid = ? AND c.min_key <= ? ORDER BY c.min_key DESC LIMIT 1")
                .params(collection, key).query(ChunkCatalog::row).optional();
    }

    /** The chunks that start inside the encoded range {@code [min, max)}, in key order. */
    public List<CatalogChunk> startingIn(UUID collection, byte[] min, byte[] max) {
        return jdbc.sql("SELECT " + COLUMNS + " FROM chunks c WHERE c.collection_uuid = ? AND c.min_key >= ? AND c.min_key < ? ORDER BY c.min_key")
                .params(collection, min, max).query(ChunkCatalog::row).list();
    }

    /** Some chunk of the collection on {@code shard} other than {@code excluded}, the one with the lowest range. */
    public Optional<CatalogChunk> anotherOn(UUID collection, String shard, ObjectId excluded) {
        return jdbc.sql("SELECT " + COLUMNS + " FROM chunks c WHERE c.collection_uuid = ? AND c.shard = ? AND c.id <> ? ORDER BY c.min_key LIMIT 1")
                .params(collection, shard, excluded.toHexString()).query(ChunkCatalog::row).optional();
    }

    /** Sets {@code chunk}'s jumbo flag (mongo/src/mongo/db/s/README.md "Jumbo Chunks"); no version changes, only the balancer reads it. */
    public void setJumbo(CatalogChunk chunk, boolean jumbo) {
        jdbc.sql("UPDATE chunks SET jumbo = ? WHERE id = ?").params(jumbo, chunk.id().toHexString()).update();
    }

    /** The shards owning at least one chunk of the collection, sorted. */
    public List<String> shards(UUID collection) {
        return jdbc.sql("SELECT DISTINCT shard FROM chunks WHERE collection_uuid = ? ORDER BY shard").param(collection)
                .query((rs, n) -> rs.getString("shard")).list();
    }

    private static Map<String, Object> rowParams(ShardKeyPattern key, CatalogChunk c) {
        ChunkVersion v = c.lastmod();
        return Map.ofEntries(
                Map.entry("id", c.id().toHexString()),
                Map.entry("uuid", c.collectionUuid()),
                Map.entry("minKey", key.encode(c.range().min())),
                Map.entry("maxKey", key.encode(c.range().max())),
                Map.entry("minBson", BsonBytes.encode(c.range().min())),
                Map.entry("maxBson", BsonBytes.encode(c.range().max())),
                Map.entry("shard", c.shard()),
                Map.entry("major", v.major()),
                Map.entry("minor", v.minor()),
                Map.entry("epoch", v.epoch().toHexString()),
                Map.entry("secs", Integer.toUnsignedLong(v.timestamp().getTime())),
                Map.entry("inc", Integer.toUnsignedLong(v.timestamp().getInc())),
                Map.entry("jumbo", c.chunk().jumbo()),
                Map.entry("history", BsonBytes.encode(new BsonDocument("history", ChunkHistory.toBson(c.history())))));
    }

    private static CatalogChunk row(ResultSet rs, int n) throws SQLException {
        ChunkVersion version = new ChunkVersion(rs.getInt("major"), rs.getInt("minor"), new ObjectId(rs.getString("epoch")),
                new BsonTimestamp((int) rs.getLong("timestamp_secs"), (int) rs.getLong("timestamp_inc")));
        List<ChunkHistory> history = ChunkHistory.listFromBson(BsonBytes.decode(rs.getBytes("history")).getArray("history"));
        Chunk chunk = new Chunk(new ChunkRange(BsonBytes.decode(rs.getBytes("min_bson")), BsonBytes.decode(rs.getBytes("max_bson"))),
                rs.getString("shard"), version, rs.getBoolean("jumbo"), history);
        return new CatalogChunk(new ObjectId(rs.getString("id")), rs.getObject("collection_uuid", UUID.class), chunk);
    }
}
