package dev.shardstore.config.sharding;

import dev.shardstore.config.catalog.DatabaseCatalog;
import dev.shardstore.config.catalog.DatabaseEntity;
import dev.shardstore.config.catalog.ShardCatalog;
import dev.shardstore.config.catalog.ShardEntity;
import dev.shardstore.config.shard.ShardPeers;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.contracts.sharding.ShardKeyPattern;
import org.bson.BsonDocument;
import org.springframework.stereotype.Component;

/**
 * MongoDB's unique index rule for {@code refineCollectionShardKey}: every unique index of the collection must still be
 * led by the new key's fields ({@link ShardKeyPattern#isUniqueIndexCompatible}), read from the database's primary
 * shard, which holds every index of the collection (the shards' own checks cover createIndexes and shardCollection).
 * MongoDB manual, "Sharding": unique indexes on sharded collections.
 */
@Component
public class UniqueIndexRule {
    private final DatabaseCatalog databases;
    private final ShardCatalog shards;
    private final ShardPeers peers;

    public UniqueIndexRule(DatabaseCatalog databases, ShardCatalog shards, ShardPeers peers) {
        this.databases = databases;
        this.shards = shards;
        this.peers = peers;
    }

    /**
     * @throws CommandException InvalidOptions (72) with MongoDB's message naming the first unique index {@code key} does
     *                          not lead; the primary's errors (HostUnreachable, ...) when it cannot be asked
     */
    public void requireCompatible(Namespace namespace, ShardKeyPattern key) {
        DatabaseEntity database = databases.find(namespace.db()).orElse(null);
        if (database == null) {
            return; // no database: no collection, refine refuses it as not sharded
        }
        ShardEntity primary = shards.listShards().stream().filter(s -> s.id().equals(database.primaryShard())).findFirst().orElse(null);
        if (primary == null) {
            return;
        }
        for (BsonDocument index : peers.listIndexes(primary.id(), primary.host(), namespace.db(), namespace.collection())) {
            boolean unique = index.containsKey("unique") && index.get("unique").isBoolean() && index.getBoolean("unique").getValue();
            if (unique && !key.isUniqueIndexCompatible(index.getDocument("key"))) {
                throw new CommandException(ErrorCode.InvalidOptions, "can't refine the shard key of '" + namespace + "' to " + key.pattern().toJson()
                        + ": unique index on " + index.getDocument("key").toJson() + ". Uniqueness can't be maintained unless shard key is a prefix");
            }
        }
    }
}
