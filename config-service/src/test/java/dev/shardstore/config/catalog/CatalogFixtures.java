package dev.shardstore.config.catalog;

import dev.shardstore.contracts.sharding.ChunkRange;
import dev.shardstore.contracts.sharding.ShardKeyPattern;
import dev.shardstore.contracts.sharding.ShardedCollection;
import dev.shardstore.contracts.version.ChunkVersion;
import java.util.List;
import java.util.UUID;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonTimestamp;
import org.bson.types.ObjectId;

/** Catalog states the config service's tests start from, written through {@link ShardedCollectionCatalog}. */
public final class CatalogFixtures {
    private CatalogFixtures() {}

    /**
     * Registers {@code namespace} as sharded on {@code {x: 1}} (a fresh uuid and epoch, timestamp {@code 100|1}) with one
     * chunk, the whole key space, on {@code shard}, version {@code 1|0}.
     */
    public static void shardedOnOneChunk(ShardedCollectionCatalog collections, String namespace, String shard) {
        ObjectId epoch = new ObjectId();
        BsonTimestamp timestamp = new BsonTimestamp(100, 1);
        UUID uuid = UUID.randomUUID();
        ShardKeyPattern key = ShardKeyPattern.of(new BsonDocument("x", new BsonInt32(1)));
        collections.create(new ShardedCollection(namespace, uuid, epoch, timestamp, key, false, false),
                List.of(CatalogChunk.placed(uuid, new ChunkRange(key.globalMin(), key.globalMax()), shard,
                        new ChunkVersion(1, 0, epoch, timestamp), timestamp)));
    }
}
