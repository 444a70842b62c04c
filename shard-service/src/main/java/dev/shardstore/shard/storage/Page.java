package dev.shardstore.shard.storage;

import java.util.List;

/**
 * One keyset page of a collection table in {@code _id} KeyString order.
 *
 * @param documents the rows, ascending by id
 * @param last      true when no row follows this page (at the time of the read)
 */
public record Page(List<StoredDocument> documents, boolean last) {
    public Page {
        documents = List.copyOf(documents);
    }
}
