package dev.shardstore.shard.write;

import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.engine.query.Filter;
import dev.shardstore.engine.query.Sort;
import dev.shardstore.shard.cursor.FindQuery;
import dev.shardstore.shard.cursor.Match;
import dev.shardstore.shard.cursor.QueryRunner;
import dev.shardstore.shard.storage.CollectionInfo;
import dev.shardstore.support.failpoint.FailPoints;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;
import org.springframework.stereotype.Component;

/**
 * The write of the first document matching a filter in a sort order, as findAndModify and a single-document
 * {@code update} with {@code sort} (MongoDB 8.0's updateOne/replaceOne) need it: the first match is found with a
 * sorted read (no lock), then its row is locked and the filter checked again ({@link LockedMatches} with the
 * {@code _id} AND-ed to the filter), so the document written is exactly one that matches when it is written; if a
 * concurrent write made it stop matching in between, the search starts again.
 */
@Component
public class FirstMatchInOrder {
    /** Fail point between finding the first match and locking it: where a concurrent write can make it stop matching. */
    public static final String BEFORE_LOCK = "firstMatchInOrder.beforeLock";

    private final QueryRunner queries;
    private final LockedMatches matches;
    private final FailPoints failPoints;

    FirstMatchInOrder(QueryRunner queries, LockedMatches matches, FailPoints failPoints) {
        this.queries = queries;
        this.matches = matches;
        this.failPoints = failPoints;
    }

    /**
     * Runs {@code write} on the first document of {@code collection} matching {@code filter} in {@code sort} order,
     * locked, inside its row's transaction ({@code write} gets the operation in that row's unit of work).
     *
     * @param filterSpec the filter as given, planned with {@code hint} (null for none) to find the first match
     * @param sort the order; null for {@code _id} order
     * @return false when no document matches (nothing was written)
     */
    boolean write(OperationContext opCtx, CollectionInfo collection, BsonDocument filterSpec, Filter filter, @Nullable BsonValue hint, @Nullable Sort sort,
            BiConsumer<OperationContext, Match> write) {
        while (true) {
            Optional<BsonDocument> first = queries.find(opCtx, collection, new FindQuery(filter, sort, null, 0, 1, filterSpec, hint), 1)
                    .next(opCtx, 1).documents().stream().findFirst();
            if (first.isEmpty()) {
                return false;
            }
            BsonValue id = first.get().get("_id");
            failPoints.hit(BEFORE_LOCK);
            AtomicBoolean written = new AtomicBoolean();
            matches.forEach(opCtx, collection, Filter.and(Filter.parse(new BsonDocument("_id", id)), filter), true, (inUnit, page) -> {
                write.accept(inUnit, page.getFirst());
                written.set(true);
                return false;
            });
            if (written.get()) {
                return true;
            }
        }
    }
}
