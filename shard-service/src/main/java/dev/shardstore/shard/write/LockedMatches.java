package dev.shardstore.shard.write;

import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.shard.cursor.Match;
import dev.shardstore.shard.cursor.MatchingScan;
import dev.shardstore.engine.query.Filter;
import dev.shardstore.shard.storage.CollectionInfo;
import dev.shardstore.shard.storage.DocumentStore;
import dev.shardstore.shard.storage.StoredDocument;
import dev.shardstore.shard.storage.WriteUnitOfWork;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import dev.shardstore.shard.versioning.OperationShardingState;
import dev.shardstore.shard.plan.Plan;
import dev.shardstore.shard.plan.QueryPlanner;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;
import org.springframework.stereotype.Component;

/**
 * Feeds the documents matching a write's filter to the write, a page at a time, each page in its own
 * {@link WriteUnitOfWork} with its rows locked ({@code FOR UPDATE}) — so every document is read, changed and
 * logged atomically, as MongoDB guarantees per document, while a multi-document write commits page
 * by page as MongoDB's multi-updates do. An {@code _id} equality locks just that row. Documents this shard does
 * not own according to the command's filtering metadata ({@link OperationShardingState}) are left alone.
 */
@Component
class LockedMatches {
    private static final int FIRST_PAGE_ROWS = 16;
    private static final byte[] START = new byte[0];

    private final DocumentStore store;
    private final WriteUnitOfWork units;
    private final QueryPlanner planner;

    LockedMatches(DocumentStore store, WriteUnitOfWork units, QueryPlanner planner) {
        this.store = store;
        this.units = units;
        this.planner = planner;
    }

    /**
     * {@link #forEach(OperationContext, CollectionInfo, Filter, boolean, PageWrite)} planned on {@code filterSpec} and the statement's
     * {@code hint} (null for none; see {@link QueryPlanner}): when an index (the {@code _id} index too) bounds it, candidates come from an index scan (read without locks, a page of matches at a
     * time), then each page's documents are locked by {@code _id} and the filter checked again on the
     * locked versions. Documents a write moves further along the index are not visited twice.
     */
    void forEach(OperationContext opCtx, CollectionInfo collection, BsonDocument filterSpec, Filter filter, @Nullable BsonValue hint, boolean justOne,
            PageWrite write) {
        Plan plan = planner.plan(collection, filterSpec, filter, hint);
        if (plan instanceof Plan.CollScan || plan instanceof Plan.IdLookup) {
            forEach(opCtx, collection, filter, justOne, write);
            return;
        }
        MatchingScan scan = new MatchingScan(opCtx, store, collection, filter, FIRST_PAGE_ROWS, plan);
        Predicate<BsonDocument> visible = OperationShardingState.visible(opCtx, collection.namespace().full());
        int rows = FIRST_PAGE_ROWS;
        boolean goOn = true;
        while (goOn) {
            opCtx.checkForInterrupt(); // maxTimeMS: the pages written so far stay written, as in MongoDB
            List<byte[]> ids = new ArrayList<>();
            for (Optional<Match> m = scan.peek(); m.isPresent() && ids.size() < rows; m = scan.peek()) {
                ids.add(m.get().stored().id());
                scan.consume();
                if (justOne) {
                    break;
                }
            }
            if (ids.isEmpty()) {
                return;
            }
            scan.release();
            goOn = units.write(opCtx, inUnit -> {
                List<Match> matches = new ArrayList<>();
                for (StoredDocument row : store.lockByIds(collection, ids)) {
                    Match candidate = new Match(row);
                    if (candidate.matches(filter, visible)) {
                        matches.add(candidate);
                        if (justOne) {
                            break;
                        }
                    }
                }
                boolean more = matches.isEmpty() || write.write(inUnit, matches);
                return more && !(justOne && !matches.isEmpty());
            });
            rows = Math.min(rows * 2, MatchingScan.MAX_PAGE_ROWS);
        }
    }

    /** The write applied to one page's matches inside that page's transaction. */
    @FunctionalInterface
    interface PageWrite {
        /**
         * @param inUnit  the operation in the page's unit of work, for the writes of the page
         * @param matches the page's matching documents, in {@code _id} order, locked
         * @return false to stop (the write failed or is done)
         */
        boolean write(OperationContext inUnit, List<Match> matches);
    }

    /**
     * Runs {@code write} over the documents of {@code collection} matching {@code filter}.
     *
     * @param justOne stop after the first matching document
     */
    void forEach(OperationContext opCtx, CollectionInfo collection, Filter filter, boolean justOne, PageWrite write) {
        Optional<byte[]> idKey = MatchingScan.idKey(filter);
        Predicate<BsonDocument> visible = OperationShardingState.visible(opCtx, collection.namespace().full());
        byte[] position = START;
        int rows = FIRST_PAGE_ROWS;
        while (position != null) {
            opCtx.checkForInterrupt(); // maxTimeMS: the pages written so far stay written, as in MongoDB
            byte[] after = position;
            int pageRows = rows;
            position = units.write(opCtx, inUnit -> {
                List<StoredDocument> page = idKey.isPresent()
                        ? store.findById(collection, idKey.get(), true).map(List::of).orElse(List.of())
                        : store.page(collection, after, pageRows, MatchingScan.MAX_PAGE_BYTES, true).documents();
                List<Match> matches = new ArrayList<>();
                for (StoredDocument row : page) {
                    Match candidate = new Match(row);
                    if (candidate.matches(filter, visible)) {
                        matches.add(candidate);
                        if (justOne) {
                            break;
                        }
                    }
                }
                boolean goOn = matches.isEmpty() || write.write(inUnit, matches);
                boolean more = goOn && !page.isEmpty() && idKey.isEmpty() && !(justOne && !matches.isEmpty());
                return more ? page.getLast().id() : null;
            });
            rows = Math.min(rows * 2, MatchingScan.MAX_PAGE_ROWS);
        }
    }
}
