package dev.shardstore.shard.command;

import dev.shardstore.contracts.keystring.KeyString;
import dev.shardstore.contracts.sharding.ShardKeyPattern;
import dev.shardstore.shard.storage.CollectionInfo;
import dev.shardstore.shard.storage.DocumentStore;
import dev.shardstore.shard.storage.IndexWalk;
import java.util.Optional;

/**
 * Walks the shard key range {@code [low, high)} over the index that supports the shard key (its keys start with
 * the shard key's KeyString, so shard key bounds compare correctly against them as prefixes), reading only the
 * documents it stops at, to take their shard keys. Keeps one position, so memory stays bounded.
 */
final class ShardKeyIndexCursor implements SplitPoints.Cursor {
    private final IndexWalk walk;
    private final DocumentStore store;
    private final CollectionInfo collection;
    private final IndexWalk.Source index;
    private final ShardKeyPattern pattern;
    private final byte[] low;
    private final byte[] high;
    private IndexWalk.Entry position;

    ShardKeyIndexCursor(IndexWalk walk, DocumentStore store, CollectionInfo collection, IndexWalk.Source index,
            ShardKeyPattern pattern, byte[] low, byte[] high) {
        this.walk = walk;
        this.store = store;
        this.collection = collection;
        this.index = index;
        this.pattern = pattern;
        this.low = low;
        this.high = high;
        this.position = IndexWalk.Entry.before(low);
    }

    @Override
    public long count() {
        return walk.count(index, low, high);
    }

    @Override
    public Optional<SplitPoints.Key> advance(long steps) {
        return moveTo(walk.ahead(index, position, steps, high));
    }

    @Override
    public Optional<SplitPoints.Key> skipPast(byte[] key) {
        return moveTo(walk.ahead(index, IndexWalk.Entry.before(KeyString.afterPrefix(key)), 0, high));
    }

    /** Stands on {@code entry} and reads its document's shard key; a document deleted meanwhile is stepped over. */
    private Optional<SplitPoints.Key> moveTo(Optional<IndexWalk.Entry> entry) {
        Optional<IndexWalk.Entry> at = entry;
        while (at.isPresent()) {
            position = at.get();
            var document = store.findById(collection, position.id(), false);
            if (document.isPresent()) {
                var shardKey = pattern.extractKey(document.get().decode());
                return Optional.of(new SplitPoints.Key(pattern.encode(shardKey), shardKey));
            }
            at = walk.ahead(index, position, 1, high);
        }
        return Optional.empty();
    }
}
