package dev.shardstore.shard.command;

import dev.shardstore.contracts.sharding.ShardKeyPattern;
import dev.shardstore.shard.cursor.MatchingScan;
import dev.shardstore.shard.storage.CollectionInfo;
import dev.shardstore.shard.storage.DocumentStore;
import dev.shardstore.shard.storage.Page;
import dev.shardstore.shard.storage.StoredDocument;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.function.Consumer;
import org.springframework.stereotype.Component;

/**
 * Reads every document of a collection, a keyset page at a time without locks (like a collection scan), for the
 * sharding commands that look at the whole collection: split points and data distribution.
 */
@Component
class ShardKeyScan {
    private static final byte[] START = new byte[0];

    private final DocumentStore store;

    ShardKeyScan(DocumentStore store) {
        this.store = store;
    }

    /** Feeds every document of {@code collection} to {@code each}, in {@code _id} order. */
    void forEach(CollectionInfo collection, Consumer<StoredDocument> each) {
        byte[] position = START;
        while (true) {
            Page page = store.page(collection, position, MatchingScan.MAX_PAGE_ROWS, MatchingScan.MAX_PAGE_BYTES, false);
            page.documents().forEach(each);
            if (page.last() || page.documents().isEmpty()) {
                return;
            }
            position = page.documents().getLast().id();
        }
    }

    /**
     * The shard keys of the documents of {@code collection} whose key lies in the encoded range {@code [low, high)},
     * sorted by key.
     *
     * @throws dev.shardstore.contracts.error.CommandException ShardKeyNotFound (61) naming the field when a
     *                                                         document's shard key holds an array
     */
    List<SplitPoints.KeyedSize> sortedKeys(CollectionInfo collection, ShardKeyPattern pattern, byte[] low, byte[] high) {
        List<SplitPoints.KeyedSize> keys = new ArrayList<>();
        forEach(collection, stored -> {
            var shardKey = pattern.extractKey(stored.decode());
            byte[] key = pattern.encode(shardKey);
            if (Arrays.compareUnsigned(key, low) >= 0 && Arrays.compareUnsigned(key, high) < 0) {
                keys.add(new SplitPoints.KeyedSize(key, shardKey, stored.size()));
            }
        });
        keys.sort(Comparator.comparing(SplitPoints.KeyedSize::key, Arrays::compareUnsigned));
        return keys;
    }
}
