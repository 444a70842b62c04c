package dev.shardstore.shard.migration;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.sharding.KeyRange;
import dev.shardstore.contracts.sharding.ShardKeyPattern;
import dev.shardstore.shard.command.ShardKeyIndex;
import dev.shardstore.shard.storage.CollectionInfo;
import dev.shardstore.shard.storage.DocumentStore;
import dev.shardstore.shard.storage.IndexWalk;
import dev.shardstore.shard.storage.StoredDocument;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.stereotype.Component;

/**
 * Reads the documents of a shard key range in pages over the index that supports the shard key (as MongoDB's migration
 * cloner and range deleter walk the shard key index): {@code _migrateClone} on the donor and the range deleter on either
 * side. Pages are keyset-paged on the index position {@code (key, _id)}, so no connection is held between them.
 */
@Component
public class ChunkRangeReader {
    private static final byte[] BEFORE_EVERY_ID = new byte[0];

    private final DocumentStore store;
    private final ShardKeyIndex shardKeyIndex;

    public ChunkRangeReader(DocumentStore store, ShardKeyIndex shardKeyIndex) {
        this.store = store;
        this.shardKeyIndex = shardKeyIndex;
    }

    /**
     * The index of {@code collection} that supports {@code shardKey}.
     *
     * @throws CommandException IndexNotFound (27) when there is none (every shard holding chunks has one)
     */
    IndexWalk.Source index(CollectionInfo collection, ShardKeyPattern shardKey) {
        return shardKeyIndex.find(collection, shardKey, false).orElseThrow(() -> new CommandException(ErrorCode.IndexNotFound,
                "no index of " + collection.namespace() + " supports the shard key " + shardKey.pattern().toJson()));
    }

    /**
     * The next documents of {@code range} after {@code after}, in index order, read with one cursor
     * ({@link DocumentStore#indexRange}): at most {@code maxDocuments}, cut after the document that reaches
     * {@code maxBytes} (at least one when any follows).
     *
     * @param after        the previous page's {@link Page#next()}; null to start at the range's beginning
     * @param maxDocuments {@link Integer#MAX_VALUE} for a page bounded by bytes only
     */
    Page read(CollectionInfo collection, IndexWalk.Source index, KeyRange range, @Nullable Position after, int maxDocuments,
            long maxBytes) {
        List<DocumentStore.IndexedDocument> rows = store.indexRange(collection, index, after == null ? range.min() : after.key(),
                after == null ? BEFORE_EVERY_ID : after.id(), range.max(), maxDocuments, maxBytes);
        List<StoredDocument> documents = new ArrayList<>(rows.size());
        long bytes = 0;
        for (DocumentStore.IndexedDocument row : rows) {
            documents.add(row.document());
            bytes += row.document().size();
        }
        boolean more = rows.size() == maxDocuments || bytes >= maxBytes;
        if (!more || rows.isEmpty()) {
            return new Page(documents, null);
        }
        DocumentStore.IndexedDocument last = rows.getLast();
        return new Page(documents, new Position(last.key(), last.document().id()));
    }

    /**
     * An index position: the entry {@code (key, id)}; reading resumes after it. The arrays are owned by this value.
     *
     * @param key the index KeyString
     * @param id  the document's {@code _id} KeyString
     */
    record Position(byte[] key, byte[] id) {
        Position {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(id, "id");
        }
    }

    /**
     * One page.
     *
     * @param documents in index order
     * @param next      where the next page starts; null when the range has no more documents
     */
    record Page(List<StoredDocument> documents, @Nullable Position next) {
        Page {
            documents = List.copyOf(documents);
        }
    }
}
