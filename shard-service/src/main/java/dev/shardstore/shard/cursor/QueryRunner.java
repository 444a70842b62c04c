package dev.shardstore.shard.cursor;

import dev.shardstore.shard.ShardProperties;
import dev.shardstore.shard.query.Filter;
import dev.shardstore.shard.storage.CollectionInfo;
import dev.shardstore.shard.storage.DocumentStore;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.bson.BsonDocument;
import org.springframework.stereotype.Component;

/**
 * Plans and starts queries over one collection: an {@code _id} equality reads by primary key, any
 * other filter scans in {@code _id} order; a sort is a blocking in-memory sort (capped by
 * {@code shardstore.shard.sort-memory-limit}) whose result the cursor keeps, an unsorted find pages
 * lazily.
 */
@Component
public class QueryRunner {
    private final DocumentStore store;
    private final long sortMemoryLimit;

    public QueryRunner(DocumentStore store, ShardProperties properties) {
        this.store = store;
        this.sortMemoryLimit = properties.sortMemoryLimit().toBytes();
    }

    /**
     * Starts a find.
     *
     * @param expected documents the first batch will probably take (sizes the first page read)
     * @throws dev.shardstore.contracts.error.CommandException QueryExceededMemoryLimitNoDiskUseAllowed (292)
     *                                                         when a sort needs more memory than allowed
     */
    public ShardCursor find(CollectionInfo c, FindQuery query, long expected) {
        UnaryOperator<BsonDocument> projection = Optional.ofNullable(query.projection())
                .<UnaryOperator<BsonDocument>>map(p -> doc -> p.apply(doc, query.filter()))
                .orElse(null);
        if (query.sort() == null) {
            long firstBatch = Math.max(1, query.limit() == 0 ? expected : Math.min(expected, query.limit()));
            int firstPage = (int) Math.min(wanted(query.skip(), firstBatch), MatchingScan.MAX_PAGE_ROWS);
            return new ScanCursor(new MatchingScan(store, c, query.filter(), firstPage), projection, query.skip(), query.limit());
        }
        long keep = wanted(query.skip(), query.limit());
        SortBuffer buffer = new SortBuffer(query.sort().comparator(), keep, sortMemoryLimit);
        MatchingScan scan = new MatchingScan(store, c, query.filter(), MatchingScan.MAX_PAGE_ROWS);
        for (Optional<Match> m = scan.peek(); m.isPresent(); m = scan.peek()) {
            buffer.add(m.get().document(), m.get().stored().size());
            scan.consume();
        }
        List<BsonDocument> sorted = buffer.drainSorted();
        List<BsonDocument> page = sorted.subList((int) Math.min(query.skip(), sorted.size()), sorted.size());
        return new ListCursor(page, projection == null ? UnaryOperator.identity() : projection);
    }

    /**
     * The number of documents matching {@code filter}, after {@code skip} and capped by {@code limit}
     * (0 for none), as MongoDB's {@code count} command computes it. A filter that matches everything
     * counts rows without reading documents.
     */
    public long count(CollectionInfo c, Filter filter, long skip, long limit) {
        long cap = wanted(skip, limit);
        long matching;
        if (filter.isMatchAll()) {
            matching = store.count(c);
        } else {
            matching = 0;
            MatchingScan scan = new MatchingScan(store, c, filter, MatchingScan.MAX_PAGE_ROWS);
            for (Optional<Match> m = scan.peek(); m.isPresent() && matching < cap; m = scan.peek()) {
                matching++;
                scan.consume();
            }
        }
        return Math.max(0, Math.min(matching, cap) - skip);
    }

    /** Matching documents a query with {@code skip} and {@code limit} (0 = none) needs to see at most. */
    private static long wanted(long skip, long limit) {
        return limit == 0 || skip > Long.MAX_VALUE - limit ? Long.MAX_VALUE : skip + limit;
    }
}
