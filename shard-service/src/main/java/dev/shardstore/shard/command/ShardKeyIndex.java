package dev.shardstore.shard.command;

import dev.shardstore.contracts.sharding.ShardKeyPattern;
import dev.shardstore.shard.storage.CollectionInfo;
import dev.shardstore.shard.storage.DocumentStore;
import dev.shardstore.shard.storage.IndexCatalog;
import dev.shardstore.shard.storage.IndexSpec;
import dev.shardstore.shard.storage.IndexWalk;
import java.util.List;
import java.util.Optional;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.springframework.stereotype.Component;

/**
 * The index that supports a shard key (MongoDB's {@code findShardKeyPrefixedIndex}) and walks over it for split
 * points: the {@code _id} index for {@code {_id: 1}}, else an index whose key pattern starts with the shard key
 * pattern (the hashed field hashed in both) that is not sparse, partial or multikey and has the simple collation — for
 * a unique shard key, a unique index on exactly the shard key.
 */
@Component
public class ShardKeyIndex {
    private static final BsonDocument ID_KEY = new BsonDocument("_id", new BsonInt32(1));

    private final IndexCatalog indexes;
    private final IndexWalk walk;
    private final DocumentStore store;

    ShardKeyIndex(IndexCatalog indexes, IndexWalk walk, DocumentStore store) {
        this.indexes = indexes;
        this.walk = walk;
        this.store = store;
    }

    /** Whether {@code key} is {@code {_id: 1}}, which the {@code _id} index serves. */
    static boolean isIdKey(ShardKeyPattern key) {
        return IndexSpec.normalizeKey(key.pattern()).equals(ID_KEY);
    }

    /** The index supporting {@code key} on {@code c}; empty when there is none usable. */
    public Optional<IndexWalk.Source> find(CollectionInfo c, ShardKeyPattern key, boolean unique) {
        if (isIdKey(key)) {
            return Optional.of(IndexWalk.Source.idIndex(c));
        }
        BsonDocument pattern = IndexSpec.normalizeKey(key.pattern());
        for (IndexSpec index : indexes.list(c)) {
            // chunk ranges are binary: an index ordering strings under a collation cannot serve them (MongoDB's rule)
            boolean usable = !index.sparse() && index.partial() == null && !index.multikey() && index.collation().isSimple();
            if (usable && (unique ? index.unique() && index.key().equals(pattern) : startsWith(index.key(), pattern))) {
                return Optional.of(IndexWalk.Source.of(index));
            }
        }
        return Optional.empty();
    }

    /** A walk over the encoded shard key range {@code [low, high)} of {@code index}. */
    SplitPoints.Cursor range(CollectionInfo c, IndexWalk.Source index, ShardKeyPattern key, byte[] low, byte[] high) {
        return new ShardKeyIndexCursor(walk, store, c, index, key, low, high);
    }

    /** MongoDB's avgObjSize of the collection: its data size over its document count (0 when empty). */
    long averageObjectSize(CollectionInfo c) {
        return walk.dataSize(c).averageObjectSize();
    }

    private static boolean startsWith(BsonDocument indexKey, BsonDocument pattern) {
        var index = List.copyOf(indexKey.entrySet());
        var wanted = List.copyOf(pattern.entrySet());
        return index.size() >= wanted.size() && index.subList(0, wanted.size()).equals(wanted);
    }
}
