package dev.shardstore.shard.cursor;

import dev.shardstore.contracts.keystring.KeyString;
import dev.shardstore.shard.query.Filter;
import dev.shardstore.shard.storage.CollectionInfo;
import dev.shardstore.shard.storage.DocumentStore;
import dev.shardstore.shard.storage.Page;
import dev.shardstore.shard.storage.StoredDocument;
import java.util.List;
import java.util.Optional;
import org.bson.BsonValue;

/**
 * Walks the documents of one collection that match a filter, in {@code _id} order, one keyset page at
 * a time (no connection or snapshot is held between pages, so a scan may see writes made while it
 * runs, as a yielding MongoDB scan does). A filter with an {@code _id} equality reads that one row by
 * primary key instead. Pages grow from {@code firstPageRows} to {@value #MAX_PAGE_ROWS} rows while a
 * scan keeps going, and are capped at {@value #MAX_PAGE_BYTES} bytes. Not thread-safe.
 *
 * <p>The position is the last <em>consumed</em> row: {@link #release} drops the buffered page, and the
 * next {@link #peek} reads again from after that row.
 */
public final class MatchingScan {
    /** Most rows one page read returns. */
    public static final int MAX_PAGE_ROWS = 1000;
    /** Most document bytes one page read returns (beyond its first row). */
    public static final long MAX_PAGE_BYTES = 16L * 1024 * 1024;
    private static final byte[] START = new byte[0];

    private final DocumentStore store;
    private final CollectionInfo collection;
    private final Filter filter;
    private final Optional<byte[]> idKey;
    private int pageRows;
    private byte[] position = START;
    private List<StoredDocument> page = List.of();
    private int index;
    private boolean noRowsAfterPage;
    private Match current;

    /**
     * @param firstPageRows rows to read in the first page (the number of documents the caller expects to need)
     */
    public MatchingScan(DocumentStore store, CollectionInfo collection, Filter filter, int firstPageRows) {
        this.store = store;
        this.collection = collection;
        this.filter = filter;
        this.idKey = idKey(filter);
        this.pageRows = Math.clamp(firstPageRows, 1, MAX_PAGE_ROWS);
    }

    /**
     * The KeyString of the filter's {@code _id} equality, when it has one: such a filter can only match
     * the document with that {@code _id} (no document's {@code _id} is an array, so implicit array
     * traversal cannot widen the match).
     */
    public static Optional<byte[]> idKey(Filter filter) {
        BsonValue id = filter.equalities().get("_id");
        return id == null || id.isArray() || id.isRegularExpression() ? Optional.empty() : Optional.of(KeyString.encode(id));
    }

    /** The next matching document, without consuming it; empty when there is none. */
    public Optional<Match> peek() {
        while (current == null) {
            if (index < page.size()) {
                StoredDocument row = page.get(index);
                Match candidate = new Match(row, row.decode());
                if (filter.matches(candidate.document())) {
                    current = candidate;
                } else {
                    advancePast(row);
                }
            } else if (noRowsAfterPage) {
                return Optional.empty();
            } else {
                load();
            }
        }
        return Optional.of(current);
    }

    /** Moves past the document {@link #peek} returned. */
    public void consume() {
        if (current == null) {
            throw new IllegalStateException("nothing peeked to consume");
        }
        advancePast(current.stored());
    }

    /** True when the scan knows, without reading, that no matching document is left. */
    public boolean knownExhausted() {
        return current == null && index >= page.size() && noRowsAfterPage;
    }

    /** Drops the buffered page (between getMores); the scan resumes after the last consumed document. */
    public void release() {
        if (index < page.size()) {
            noRowsAfterPage = false;
        }
        page = List.of();
        index = 0;
        current = null;
    }

    private void advancePast(StoredDocument row) {
        position = row.id();
        index++;
        current = null;
    }

    private void load() {
        index = 0;
        if (idKey.isPresent()) {
            byte[] id = idKey.get();
            page = KeyString.compare(position, id) < 0
                    ? store.findById(collection, id, false).map(List::of).orElse(List.of())
                    : List.of();
            noRowsAfterPage = true;
            return;
        }
        Page next = store.page(collection, position, pageRows, MAX_PAGE_BYTES, false);
        page = next.documents();
        noRowsAfterPage = next.last();
        pageRows = Math.min(pageRows * 2, MAX_PAGE_ROWS);
    }
}
