package dev.shardstore.config.sharding;

import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.config.catalog.ChunkCatalog;
import dev.shardstore.config.catalog.CollectionCatalog;
import dev.shardstore.config.catalog.DatabaseCatalog;
import dev.shardstore.config.catalog.ShardCatalog;
import dev.shardstore.config.catalog.ShardEntity;
import dev.shardstore.config.shard.ShardPeers;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.sharding.ShardedCollection;
import java.util.List;
import java.util.Optional;
import org.springframework.stereotype.Service;

/**
 * {@code _configsvrDropCollection}: drops the collection on every shard (orphans may be anywhere), then removes it and
 * its chunks from the catalog with a {@code ROUTING_CHANGED} event without a collection version, then asks the former
 * owners to refresh. The data goes first so that a failure leaves a catalog entry to retry against.
 */
@Service
public class DropCollectionCoordinator {
    private final DatabaseCatalog databases;
    private final ShardCatalog shards;
    private final CollectionCatalog collections;
    private final ChunkCatalog chunks;
    private final ShardPeers peers;
    private final ShardRefresher refresher;

    public DropCollectionCoordinator(DatabaseCatalog databases, ShardCatalog shards, CollectionCatalog collections, ChunkCatalog chunks,
            ShardPeers peers, ShardRefresher refresher) {
        this.databases = databases;
        this.shards = shards;
        this.collections = collections;
        this.chunks = chunks;
        this.peers = peers;
        this.refresher = refresher;
    }

    /**
     * @return true when a sharded collection was removed from the catalog
     * @throws CommandException HostUnreachable/NetworkTimeout or a shard's error when a shard could not drop it (the
     *                          catalog is then unchanged)
     */
    public boolean drop(Namespace namespace) {
        Optional<ShardedCollection> sharded = collections.find(namespace.toString());
        if (sharded.isEmpty() && databases.find(namespace.db()).isEmpty()) {
            return false;
        }
        for (ShardEntity shard : shards.listShards()) {
            peers.dropCollection(shard.id(), shard.host(), namespace.db(), namespace.collection());
        }
        if (sharded.isEmpty()) {
            return false;
        }
        List<String> owners = chunks.shards(sharded.get().uuid());
        boolean removed = collections.remove(namespace.toString(), sharded.get().uuid());
        refresher.refresh(namespace.toString(), owners);
        return removed;
    }

    /**
     * Drops every sharded collection of {@code db}, as dropDatabase must before the database entry goes: their chunks
     * may be on any shard, not only on the primary.
     */
    public void dropShardedCollectionsOf(String db) {
        for (ShardedCollection c : collections.list()) {
            if (c.database().equals(db)) {
                drop(new Namespace(c.database(), c.collection()));
            }
        }
    }
}
