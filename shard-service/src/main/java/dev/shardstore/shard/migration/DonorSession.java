package dev.shardstore.shard.migration;

import dev.shardstore.contracts.sharding.KeyRange;
import dev.shardstore.contracts.sharding.ShardKeyPattern;
import dev.shardstore.shard.storage.CollectionInfo;
import dev.shardstore.shard.storage.IndexWalk;
import dev.shardstore.shard.storage.OplogReader;
import java.util.Objects;
import org.bson.BsonTimestamp;

/**
 * What a donor's clone source reads for one migration (MongoDB's {@code MigrationChunkClonerSource}): the collection, the
 * range as KeyStrings, the index that supports the shard key, and the oplog pin taken at the clone's start, which keeps
 * every entry after {@code startAfter} until the migration ends. Immutable but for the pin's position.
 *
 * @param collection the donor's collection instance
 * @param shardKey   its shard key
 * @param range      the chunk range as KeyStrings
 * @param index      the index {@code _migrateClone} and range deletion walk ({@code _id} or one whose prefix is the key)
 * @param pin        the oplog pin; advanced to what the recipient has applied, closed when the donation ends
 * @param startAfter the all-durable point when the pin was taken: the clone sees every write at or before it, and
 *                   {@code _transferMods} returns every entry after it
 */
record DonorSession(CollectionInfo collection, ShardKeyPattern shardKey, KeyRange range, IndexWalk.Source index,
        OplogReader.Pin pin, BsonTimestamp startAfter) {
    DonorSession {
        Objects.requireNonNull(collection, "collection");
        Objects.requireNonNull(shardKey, "shardKey");
        Objects.requireNonNull(range, "range");
        Objects.requireNonNull(index, "index");
        Objects.requireNonNull(pin, "pin");
        Objects.requireNonNull(startAfter, "startAfter");
    }
}
