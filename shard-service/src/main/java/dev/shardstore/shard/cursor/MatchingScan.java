package dev.shardstore.shard.cursor;

import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.contracts.keystring.KeyString;
import dev.shardstore.engine.query.Filter;
import dev.shardstore.shard.storage.CollectionInfo;
import dev.shardstore.shard.storage.DocumentStore;
import dev.shardstore.shard.storage.IndexWalk;
import dev.shardstore.shard.storage.Page;
import dev.shardstore.shard.storage.SnapshotRead;
import dev.shardstore.shard.storage.StoredDocument;
import dev.shardstore.shard.storage.VersionStore;
import dev.shardstore.engine.bounds.IndexBounds;
import dev.shardstore.shard.plan.Plan;
import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.Optional;
import java.util.function.Predicate;
import dev.shardstore.shard.versioning.OperationShardingState;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * Walks the documents of one collection that match a filter, in {@code _id} order (an index scan: in index
 * order), one keyset page at a time (no connection or snapshot is held between pages, so a scan may see writes
 * made while it runs, as a yielding MongoDB scan does). A filter with an {@code _id} equality reads that one row by
 * primary key instead, and a plan over {@code _id} ranges only the rows within them. Pages grow from {@code firstPageRows} to {@value #MAX_PAGE_ROWS} rows while a
 * scan keeps going, and are capped at {@value #MAX_PAGE_BYTES} bytes. Not thread-safe.
 *
 * <p>Documents the running command's filtering metadata says this shard does not own (orphans, see
 * {@link OperationShardingState}) are skipped like non-matching ones. A snapshot read ({@link SnapshotRead}) skips the
 * rows changed after its time and, after the last row, walks their versions of that time in {@code _id} order
 * ({@link VersionStore}): its documents come in plan order, then those, so a sorted snapshot read sorts in memory.
 *
 * <p>The position is the last <em>consumed</em> row: {@link #release} drops the buffered page, and the
 * next {@link #peek} reads again from after that row.
 */
public final class MatchingScan {
    /** Most rows one page read returns. */
    public static final int MAX_PAGE_ROWS = 1000;
    /** Documents examined between two checks for interrupt (killOp, maxTimeMS) within a page (the check reads the clock). */
    private static final int DEADLINE_CHECK_INTERVAL = 64;
    /** Most document bytes one page read returns (beyond its first row). */
    public static final long MAX_PAGE_BYTES = 16L * 1024 * 1024;
    private static final byte[] START = new byte[0];

    private final DocumentStore store;
    private final CollectionInfo collection;
    private final Filter filter;
    /** The command's orphan filter, captured at creation so that getMores keep the command's snapshot. */
    private final Predicate<BsonDocument> visible;
    private final Optional<byte[]> idKey;
    private int pageRows;
    private byte[] position = START;
    private List<StoredDocument> page = List.of();
    private int index;
    private boolean noRowsAfterPage;
    private @Nullable Match current;
    private final @Nullable Plan plan;
    /** Whether the plan's bounds answer the filter exactly ({@link Plan#exact}): documents are not matched again. */
    private final boolean exact;
    /** The key ranges a range plan reads in order, and the index (or collection table) it reads them from; null for none. */
    private final @Nullable List<IndexBounds.KeyRange> ranges;
    private final IndexWalk.@Nullable Source rangeSource;
    private List<byte[]> pageKeys = List.of();
    private int rangeIndex;
    private byte @Nullable [] positionKey;
    private final Set<ByteBuffer> seen = new HashSet<>();
    private long keysExamined;
    private long docsExamined;
    /** The operation reading now ({@link #within}): its kill and its deadline stop the scan. */
    private OperationContext reading;
    /** For a snapshot read, what it sees differently from the current rows ({@link VersionStore}); null otherwise. */
    private final VersionStore.@Nullable Overlay overlay;
    /** The overlay's versions, walked once the rows are done; null until then. */
    private @Nullable List<StoredDocument> tail;
    private int tailIndex;
    private boolean currentFromTail;

    /**
     * @param firstPageRows rows to read in the first page (the number of documents the caller expects to need)
     */
    public MatchingScan(OperationContext opCtx, DocumentStore store, CollectionInfo collection, Filter filter, int firstPageRows) {
        this(opCtx, store, collection, filter, firstPageRows, null);
    }

    /**
     * A scan following {@code plan} ({@code null}: the default, an {@code _id} lookup for an {@code _id}
     * equality, else the whole collection). An index scan reads its KeyString ranges in index order,
     * keyset-paged on {@code (key, _id)}, and skips documents it already returned (multikey entries).
     *
     * @param opCtx the operation that opens the scan: its filtering metadata decides what the scan sees for its whole
     *              life, its deadline and a kill of it bound the reads until {@link #within} gives another
     */
    public MatchingScan(OperationContext opCtx, DocumentStore store, CollectionInfo collection, Filter filter, int firstPageRows,
            @Nullable Plan plan) {
        this.store = store;
        this.collection = collection;
        this.filter = filter;
        SnapshotRead snapshot = SnapshotRead.of(opCtx);
        this.visible = OperationShardingState.visible(opCtx, collection.namespace().full(), snapshot == null ? null : snapshot.atClusterTime());
        this.reading = opCtx;
        this.plan = plan;
        this.exact = plan != null && plan.exact();
        this.idKey = plan == null ? idKey(filter)
                : plan instanceof Plan.IdLookup(byte[] id) ? Optional.of(id) : Optional.empty();
        this.pageRows = Math.clamp(firstPageRows, 1, MAX_PAGE_ROWS);
        this.ranges = switch (plan) {
            case Plan.IndexScan scan -> scan.bounds().ranges();
            case Plan.IdRange range -> range.bounds().ranges();
            case null, default -> null;
        };
        this.rangeSource = switch (plan) {
            case Plan.IndexScan scan -> IndexWalk.Source.of(scan.index());
            case Plan.IdRange range -> IndexWalk.Source.idIndex(collection);
            case null, default -> null;
        };
        if (ranges != null && !ranges.isEmpty()) {
            positionKey = ranges.getFirst().low();
        }
        this.overlay = store.overlay(opCtx, collection);
    }

    /**
     * Bounds the reads from now on by {@code opCtx}: a cursor's batch, read by a later getMore, spends what that
     * getMore has left of the cursor's {@code maxTimeMS}, and stops when that getMore is killed.
     */
    public void within(OperationContext opCtx) {
        this.reading = opCtx;
    }

    /** Index entries read so far (explain's totalKeysExamined). */
    public long keysExamined() {
        return keysExamined;
    }

    /** Documents read so far (explain's totalDocsExamined). */
    public long docsExamined() {
        return docsExamined;
    }

    /**
     * The KeyString of the filter's {@code _id} equality, when it has one: such a filter can only match
     * the document with that {@code _id} (no document's {@code _id} is an array, so implicit array
     * traversal cannot widen the match). None for an {@code _id} holding strings under a non-simple collation: other
     * {@code _id}s may equal it there.
     */
    public static Optional<byte[]> idKey(Filter filter) {
        BsonValue id = filter.equalities().get("_id");
        return id == null || id.isArray() || id.isRegularExpression() || filter.collation().affects(id)
                ? Optional.empty() : Optional.of(KeyString.encode(id));
    }

    /** The next matching document, without consuming it; empty when there is none. */
    public Optional<Match> peek() {
        while (current == null) {
            if (index < page.size()) {
                StoredDocument row = page.get(index);
                if (plan instanceof Plan.IndexScan && !seen.add(ByteBuffer.wrap(row.id())) || overlay != null && overlay.changed(row.id())) {
                    advancePast(row); // a row changed after a snapshot read's time comes from the overlay, as it was then
                    continue;
                }
                if (++docsExamined % DEADLINE_CHECK_INTERVAL == 0) {
                    reading.checkForInterrupt();
                }
                Match candidate = new Match(row);
                // on exact bounds only the orphan filter is left, and it reads the shard key fields from the bytes
                if (exact ? visible.test(row.raw()) : candidate.matches(filter, visible)) {
                    current = candidate;
                } else {
                    advancePast(row);
                }
            } else if (noRowsAfterPage) {
                return overlay == null ? Optional.empty() : peekTail(overlay);
            } else {
                load();
            }
        }
        return Optional.of(current);
    }

    /**
     * The next matching version of the overlay, after the rows: each is matched against the whole filter (an exact
     * plan's bounds say nothing of it) and the orphan filter.
     */
    private Optional<Match> peekTail(VersionStore.Overlay overlay) {
        List<StoredDocument> versions = tail;
        if (versions == null) {
            versions = overlay.present().stream().sorted((a, b) -> KeyString.compare(a.id(), b.id())).toList();
            tail = versions;
        }
        while (tailIndex < versions.size()) {
            Match candidate = new Match(versions.get(tailIndex));
            docsExamined++;
            if (candidate.matches(filter, visible)) {
                current = candidate;
                currentFromTail = true;
                return Optional.of(candidate);
            }
            tailIndex++;
        }
        return Optional.empty();
    }

    /** Moves past the document {@link #peek} returned. */
    public void consume() {
        if (current == null) {
            throw new IllegalStateException("nothing peeked to consume");
        }
        if (currentFromTail) {
            tailIndex++;
            current = null;
            currentFromTail = false;
            return;
        }
        advancePast(current.stored());
    }

    /** True when the scan knows, without reading, that no matching document is left. */
    public boolean knownExhausted() {
        return current == null && index >= page.size() && noRowsAfterPage
                && (overlay == null || tail != null && tailIndex >= tail.size());
    }

    /** Drops the buffered page (between getMores); the scan resumes after the last consumed document. */
    public void release() {
        if (index < page.size()) {
            noRowsAfterPage = false;
        }
        if (current != null && !currentFromTail) {
            seen.remove(ByteBuffer.wrap(current.stored().id())); // read again after the release
        }
        page = List.of();
        index = 0;
        current = null;
        currentFromTail = false; // an unconsumed overlay version stays at tailIndex
    }

    private void advancePast(StoredDocument row) {
        if (ranges != null) {
            positionKey = pageKeys.get(index);
        }
        position = row.id();
        index++;
        current = null;
    }

    private void load() {
        reading.checkForInterrupt(); // killOp and the command's maxTimeMS, before each round trip
        index = 0;
        if (ranges != null) {
            loadRangePage(ranges, Objects.requireNonNull(rangeSource, "a range plan has its source"));
            return;
        }
        if (idKey.isPresent()) {
            keysExamined++;
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

    private void loadRangePage(List<IndexBounds.KeyRange> ranges, IndexWalk.Source rangeSource) {
        while (rangeIndex < ranges.size()) {
            IndexBounds.KeyRange range = ranges.get(rangeIndex);
            int asked = pageRows;
            byte[] afterKey = Objects.requireNonNull(positionKey, "a range plan's scan starts at its first range's low key");
            List<DocumentStore.IndexedDocument> rows = store.indexPage(collection, rangeSource, afterKey, position,
                    range.high(), asked);
            pageRows = Math.min(pageRows * 2, MAX_PAGE_ROWS);
            if (!rows.isEmpty()) {
                keysExamined += rows.size();
                page = rows.stream().map(DocumentStore.IndexedDocument::document).toList();
                pageKeys = rows.stream().map(DocumentStore.IndexedDocument::key).toList();
                // a short page of the last range ends the scan (release() reopens it if rows stay unconsumed)
                noRowsAfterPage = rows.size() < asked && rangeIndex == ranges.size() - 1;
                return;
            }
            rangeIndex++;
            if (rangeIndex < ranges.size()) {
                positionKey = ranges.get(rangeIndex).low();
                position = START;
            }
        }
        page = List.of();
        pageKeys = List.of();
        noRowsAfterPage = true;
    }
}
