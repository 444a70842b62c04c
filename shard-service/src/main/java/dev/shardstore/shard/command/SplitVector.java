package dev.shardstore.shard.command;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.contracts.sharding.ShardKeyPattern;
import dev.shardstore.shard.storage.CollectionCatalog;
import dev.shardstore.shard.storage.CollectionInfo;
import dev.shardstore.shard.storage.IndexWalk;
import java.util.List;
import java.util.Optional;
import org.bson.BsonDocument;
import org.springframework.stereotype.Component;

/**
 * MongoDB's {@code splitVector()} as a function of this shard, shared by the {@link SplitVectorCommand} and the
 * auto-splitter (mongo/src/mongo/db/s/README.md "The auto split task"): opens a shard key range of a collection over the index that
 * supports the key ({@link ShardKeyIndex}) and chooses split points in it ({@link SplitPoints}).
 */
@Component
public class SplitVector {
    private final CollectionCatalog catalog;
    private final ShardKeyIndex shardKeyIndex;
    private final ShardKeyScan scan;

    SplitVector(CollectionCatalog catalog, ShardKeyIndex shardKeyIndex, ShardKeyScan scan) {
        this.catalog = catalog;
        this.shardKeyIndex = shardKeyIndex;
        this.scan = scan;
    }

    /**
     * The documents of {@code ns} whose shard key under {@code key} is in {@code [low, high)} (KeyStrings).
     *
     * @throws CommandException NamespaceNotFound (26) for a missing collection; without a usable index,
     *                          ShardKeyNotFound (61) for a document whose key holds an array, else IndexNotFound (27)
     */
    public KeyRange range(Namespace ns, ShardKeyPattern key, byte[] low, byte[] high) {
        CollectionInfo c = catalog.find(ns).orElseThrow(() -> new CommandException(ErrorCode.NamespaceNotFound, "ns not found: " + ns));
        IndexWalk.Source index = shardKeyIndex.find(c, key, false).orElseThrow(() -> {
            scan.requireNoArrays(c, key);
            return new CommandException(ErrorCode.IndexNotFound, "couldn't find index over splitting key "
                    + key.pattern().toJson() + " of " + ns + " (not sparse, partial or multikey)");
        });
        return new KeyRange(c, index, key, low, high);
    }

    /** One key range of one collection; each question walks the index afresh (a range is not a snapshot). */
    public final class KeyRange {
        private final CollectionInfo collection;
        private final IndexWalk.Source index;
        private final ShardKeyPattern key;
        private final byte[] low;
        private final byte[] high;

        private KeyRange(CollectionInfo collection, IndexWalk.Source index, ShardKeyPattern key, byte[] low, byte[] high) {
            this.collection = collection;
            this.index = index;
            this.key = key;
            this.low = low.clone();
            this.high = high.clone();
        }

        private SplitPoints.Cursor cursor() {
            return shardKeyIndex.range(collection, index, key, low, high);
        }

        /** The number of documents in the range. */
        public long count() {
            return cursor().count();
        }

        /** The collection's average document size in bytes (MongoDB's avgObjSize; 0 when empty). */
        public long averageObjectSize() {
            return shardKeyIndex.averageObjectSize(collection);
        }

        /** The median key ({@link SplitPoints#median}); none with fewer than two distinct keys. */
        public List<BsonDocument> median() {
            return SplitPoints.median(cursor());
        }

        /**
         * Split points cutting parts of about {@code partBytes} each, every document counted as {@code averageSize}
         * ({@link SplitPoints#bySize}); none when the range fits in one part or holds a single key value.
         */
        public List<BsonDocument> bySize(long averageSize, long partBytes) {
            return SplitPoints.bySize(cursor(), averageSize, partBytes);
        }

        /** The shard key (pattern shape) of the range's first document in key order; empty when the range is empty. */
        public Optional<BsonDocument> firstKey() {
            return cursor().advance(0).map(SplitPoints.Key::shardKey);
        }

        /** The shard key of the range's last document in key order; empty when the range is empty. */
        public Optional<BsonDocument> lastKey() {
            SplitPoints.Cursor cursor = cursor();
            long count = cursor.count();
            return count == 0 ? Optional.empty() : cursor.advance(count - 1).map(SplitPoints.Key::shardKey);
        }
    }
}
