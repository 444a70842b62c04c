package dev.shardstore.shard.autosplit;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.contracts.sharding.Chunk;
import dev.shardstore.contracts.sharding.ChunkRange;
import dev.shardstore.contracts.sharding.RoutingTable;
import dev.shardstore.shard.migration.MigrationPeers;
import dev.shardstore.shard.versioning.CollectionShardingState;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * The last step of top chunk optimization (mongo/src/mongo/db/s/README.md "Top Chunk Optimization"): moves the new top chunk to the least
 * loaded shard, so the hot spot of monotonic inserts leaves this shard. MongoDB asks its balancer for the best recipient
 * of that one chunk; the balancer service has no such command, so this picks it the simple way and documents it:
 * <ul>
 *   <li>candidates are the shards of {@code config.shards} that are not draining; the load of a shard is its number of
 *       chunks of the collection (in the filtering metadata the split just refreshed);</li>
 *   <li>the chunk moves ({@code _configsvrMoveRange} with its exact {@code bounds}, the config service's moveRange, which
 *       runs the migration with this shard as donor) only to a shard with fewer chunks than this one, the fewest of all
 *       (ties by name);</li>
 *   <li>a collection with zone ranges ({@code config.tags}) is left to the balancer, which knows where each range may go.</li>
 * </ul>
 * Best effort, in the background: any refusal (a migration already running on either shard, the chunk changed) or failure
 * is logged, never thrown; the balancer evens out what this leaves.
 */
@Component
public class TopChunkMover {
    private static final Logger log = LoggerFactory.getLogger(TopChunkMover.class);
    /** MongoDB's {@code config.shards} state of a draining shard. */
    private static final int DRAINING = 2;

    private final ConfigCatalogReader config;
    private final CollectionShardingState sharding;
    private final MigrationPeers peers;
    private final Set<String> moving = ConcurrentHashMap.newKeySet();

    public TopChunkMover(ConfigCatalogReader config, CollectionShardingState sharding, MigrationPeers peers) {
        this.config = config;
        this.sharding = sharding;
        this.peers = peers;
    }

    /**
     * Starts moving chunk {@code top} of {@code ns} away, on a thread of its own, when another shard is less loaded (see the
     * class comment): a migration can wait behind the balancer's for a long time, and the auto-split task that asks must not
     * hold its thread or its range meanwhile. At most one such move per collection at a time; a request while one runs is
     * dropped (the balancer evens out the rest).
     */
    void moveAway(Namespace ns, ChunkRange top) {
        if (!moving.add(ns.full())) {
            log.info("auto-split: the new top chunk {} of {} stays on this shard for now: a top chunk move of it is running", top, ns);
            return;
        }
        Thread.ofVirtual().name("autosplit-topchunk").start(() -> {
            try {
                move(ns, top);
            } finally {
                moving.remove(ns.full());
            }
        });
    }

    private void move(Namespace ns, ChunkRange top) {
        try {
            recipient(ns).ifPresent(to -> {
                BsonDocument reply = peers.onConfig(new BsonDocument("_configsvrMoveRange", new BsonString(ns.full()))
                        .append("toShard", new BsonString(to)).append("bounds", new BsonArray(List.of(top.min(), top.max()))));
                log.info("auto-split: asked to move the new top chunk {} of {} to {}: moved {}", top, ns, to,
                        reply.getBoolean("moved", BsonBoolean.FALSE).getValue());
            });
        } catch (CommandException e) {
            log.info("auto-split: the new top chunk {} of {} stays on this shard: {}", top, ns, e.getMessage());
        }
    }

    private Optional<String> recipient(Namespace ns) {
        if (!config.find("tags", new BsonDocument("ns", new BsonString(ns.full()))).isEmpty()) {
            return Optional.empty();
        }
        RoutingTable table = sharding.get(ns.full()).table().orElse(null);
        if (table == null) {
            return Optional.empty();
        }
        Map<String, Long> chunks = new TreeMap<>();
        for (BsonDocument shard : config.find("shards", new BsonDocument())) {
            if (shard.getInt32("state", new BsonInt32(1)).getValue() != DRAINING) {
                chunks.put(shard.getString("_id").getValue(), 0L);
            }
        }
        for (Chunk chunk : table.chunks()) {
            chunks.computeIfPresent(chunk.shard(), (shard, n) -> n + 1);
        }
        long own = table.chunks().stream().filter(c -> c.shard().equals(peers.self())).count();
        return chunks.entrySet().stream().filter(e -> !e.getKey().equals(peers.self()) && e.getValue() < own)
                .min(Map.Entry.<String, Long>comparingByValue().thenComparing(Map.Entry.comparingByKey()))
                .map(Map.Entry::getKey);
    }
}
