package dev.shardstore.config.settings;

import dev.shardstore.config.catalog.ShardedCollectionCatalog;
import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.bson.BsonOrder;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.sharding.ChunkRange;
import dev.shardstore.contracts.sharding.ShardedCollection;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Zones (mongo/src/mongo/db/s/README.md "Auto-balancing", the DistributionStatus's zones; MongoDB's {@code config.shards.tags} and
 * {@code config.tags}): which zones each shard is in (table {@code shard_zones}) and which shard key ranges of a collection
 * belong to a zone (table {@code tags}). Writes serialize on the table lock of {@code tags}, so two overlapping ranges cannot
 * both be accepted.
 */
@Repository
public class ZoneCatalog {
    private final JdbcClient jdbc;
    private final TransactionTemplate tx;
    private final ShardedCollectionCatalog collections;

    public ZoneCatalog(JdbcClient jdbc, TransactionTemplate tx, ShardedCollectionCatalog collections) {
        this.jdbc = jdbc;
        this.tx = tx;
        this.collections = collections;
    }

    /**
     * {@code addShardToZone}: puts {@code shard} in {@code zone} (idempotent).
     *
     * @throws CommandException ShardNotFound (70) naming the shard
     */
    public void addShardToZone(String shard, String zone) {
        requireZoneName(zone);
        tx.executeWithoutResult(status -> {
            requireShard(shard);
            jdbc.sql("INSERT INTO shard_zones (shard, zone) VALUES (?, ?) ON CONFLICT DO NOTHING").params(shard, zone).update();
        });
    }

    /**
     * {@code removeShardFromZone}: takes {@code shard} out of {@code zone} (idempotent).
     *
     * @throws CommandException ShardNotFound (70); ZoneStillInUse (163) when it is the zone's last shard and ranges still
     *                          belong to the zone
     */
    public void removeShardFromZone(String shard, String zone) {
        requireZoneName(zone);
        tx.executeWithoutResult(status -> {
            lockTags();
            requireShard(shard);
            long others = jdbc.sql("SELECT count(*) FROM shard_zones WHERE zone = ? AND shard <> ?").params(zone, shard).query(Long.class).single();
            long ranges = jdbc.sql("SELECT count(*) FROM tags WHERE tag = ?").param(zone).query(Long.class).single();
            if (others == 0 && ranges > 0) {
                throw new CommandException(ErrorCode.ZoneStillInUse, "cannot remove shard " + shard + " from zone '" + zone
                        + "': it is the zone's last shard and " + ranges + " key range(s) are associated with the zone");
            }
            jdbc.sql("DELETE FROM shard_zones WHERE shard = ? AND zone = ?").params(shard, zone).update();
        });
    }

    /**
     * {@code updateZoneKeyRange}: assigns {@code [min, max)} of {@code ns} to {@code zone}, or with a null zone removes the
     * range that has exactly these bounds (removing a range that is not there succeeds, as in MongoDB).
     *
     * @throws CommandException BadValue naming {@code min}/{@code max} when the bounds are malformed or, for a sharded
     *                          collection, not in its shard key's shape; ZoneNotFound (177) when no shard is in the zone;
     *                          RangeOverlapConflict (178) naming the overlapped range
     */
    public void updateZoneKeyRange(String ns, BsonDocument min, BsonDocument max, @Nullable String zone) {
        ChunkRange range = new ChunkRange(min, max);
        collections.find(ns).map(ShardedCollection::key).ifPresent(key -> {
            if (!List.copyOf(min.keySet()).equals(key.fields())) {
                throw new CommandException(ErrorCode.BadValue, "'min' and 'max' of the zone range must have the shard key's fields "
                        + key.fields() + ", not " + min.keySet());
            }
        });
        tx.executeWithoutResult(status -> {
            lockTags();
            if (zone == null) {
                jdbc.sql("DELETE FROM tags WHERE ns = ? AND min_bson = ? AND max_bson = ?")
                        .params(ns, BsonBytes.encode(range.min()), BsonBytes.encode(range.max())).update();
                return;
            }
            requireZoneName(zone);
            long shards = jdbc.sql("SELECT count(*) FROM shard_zones WHERE zone = ?").param(zone).query(Long.class).single();
            if (shards == 0) {
                throw new CommandException(ErrorCode.ZoneNotFound, "zone '" + zone + "' has no shard (addShardToZone first)");
            }
            for (BsonDocument existing : ranges(ns)) {
                ChunkRange other = new ChunkRange(existing.getDocument("min"), existing.getDocument("max"));
                boolean same = other.equals(range) && existing.getString("tag").getValue().equals(zone);
                if (same) {
                    return;
                }
                if (BsonOrder.compare(other.min(), range.max()) < 0 && BsonOrder.compare(range.min(), other.max()) < 0) {
                    throw new CommandException(ErrorCode.RangeOverlapConflict, "zone range " + range + " overlaps " + other
                            + " of zone '" + existing.getString("tag").getValue() + "'");
                }
            }
            jdbc.sql("INSERT INTO tags (ns, min_bson, max_bson, tag) VALUES (?, ?, ?, ?)")
                    .params(ns, BsonBytes.encode(range.min()), BsonBytes.encode(range.max()), zone).update();
        });
    }

    /** {@code config.tags} of {@code ns} (every collection when null): {@code {_id: {ns, min}, ns, min, max, tag}}, by ns then min. */
    public List<BsonDocument> ranges(@Nullable String ns) {
        List<BsonDocument> docs = new ArrayList<>((ns == null ? jdbc.sql("SELECT ns, min_bson, max_bson, tag FROM tags")
                : jdbc.sql("SELECT ns, min_bson, max_bson, tag FROM tags WHERE ns = ?").param(ns))
                .query((rs, n) -> {
                    BsonDocument min = BsonBytes.decode(rs.getBytes("min_bson"));
                    String namespace = rs.getString("ns");
                    return new BsonDocument("_id", new BsonDocument("ns", new BsonString(namespace)).append("min", min))
                            .append("ns", new BsonString(namespace)).append("min", min)
                            .append("max", BsonBytes.decode(rs.getBytes("max_bson"))).append("tag", new BsonString(rs.getString("tag")));
                }).list());
        docs.sort(Comparator.<BsonDocument, String>comparing(d -> d.getString("ns").getValue())
                .thenComparing(d -> d.getDocument("min"), BsonOrder::compare));
        return docs;
    }

    /** The zones of every shard that is in at least one, as {@code config.shards.tags}. */
    public Map<String, Set<String>> zonesByShard() {
        Map<String, Set<String>> zones = new HashMap<>();
        jdbc.sql("SELECT shard, zone FROM shard_zones").query((rs, n) -> zones.computeIfAbsent(rs.getString("shard"), s -> new TreeSet<>())
                .add(rs.getString("zone"))).list();
        return zones;
    }

    private void requireShard(String shard) {
        if (jdbc.sql("SELECT count(*) FROM shards WHERE id = ?").param(shard).query(Long.class).single() == 0) {
            throw new CommandException(ErrorCode.ShardNotFound, "shard " + shard + " does not exist");
        }
    }

    private static void requireZoneName(String zone) {
        if (zone.isEmpty()) {
            throw new CommandException(ErrorCode.BadValue, "'zone' must not be empty");
        }
    }

    private void lockTags() {
        jdbc.sql("LOCK TABLE tags IN SHARE ROW EXCLUSIVE MODE").update();
    }
}
