package dev.shardstore.shard.resharding;

import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.contracts.sharding.ShardKeyPattern;
import dev.shardstore.shard.storage.CollectionCatalog;
import java.util.List;
import org.bson.BsonDocument;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * A donor's random sample of a collection's new-key values, from which the resharding coordinator cuts the new chunks
 * (MongoDB's coordinator samples with {@code $sample} through the shards' aggregation). A PostgreSQL
 * {@code ORDER BY random()} over the collection's table: one pass over it, once per operation.
 */
@Component
public class ReshardingKeySampler {
    private final CollectionCatalog catalog;
    private final JdbcClient jdbc;

    public ReshardingKeySampler(CollectionCatalog catalog, JdbcClient jdbc) {
        this.catalog = catalog;
        this.jdbc = jdbc;
    }

    /**
     * At most {@code size} documents' new keys, chosen at random.
     *
     * @return keys as {@link ShardKeyPattern#extractKey} gives them (pattern order, a hashed field hashed, a missing field
     *         null); none when this shard has no such collection
     * @throws dev.shardstore.contracts.error.CommandException ShardKeyNotFound when a sampled document has an array in a
     *                                                        key field (the new key cannot hold it)
     */
    public List<BsonDocument> sample(Namespace namespace, ShardKeyPattern newKey, int size) {
        return catalog.find(namespace)
                .map(c -> jdbc.sql("SELECT doc FROM " + c.table() + " ORDER BY random() LIMIT ?").param(size)
                        .query((rs, n) -> newKey.extractKey(BsonBytes.decode(rs.getBytes(1)))).list())
                .orElse(List.of());
    }
}
