package dev.shardstore.shard.command;

import dev.shardstore.contracts.sharding.ShardKeyPattern;
import dev.shardstore.shard.cursor.MatchingScan;
import dev.shardstore.shard.storage.CollectionInfo;
import dev.shardstore.shard.storage.DocumentStore;
import dev.shardstore.shard.storage.Page;
import dev.shardstore.shard.storage.StoredDocument;
import java.util.function.Consumer;
import org.springframework.stereotype.Component;

/**
 * Reads every document of a collection, a keyset page at a time without locks (like a collection scan), for the
 * sharding commands that look at the whole collection: data distribution, and the array check of the shard key.
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
     * Checks that no document's shard key holds an array, reading one document at a time (an error path: prepare
     * and splitVector run it only when no usable shard key index exists, to report the precise error).
     *
     * @throws dev.shardstore.contracts.error.CommandException ShardKeyNotFound (61) naming the field when a
     *                                                         document's shard key holds an array
     */
    void requireNoArrays(CollectionInfo collection, ShardKeyPattern pattern) {
        forEach(collection, stored -> pattern.extractKey(stored.decode()));
    }
}
