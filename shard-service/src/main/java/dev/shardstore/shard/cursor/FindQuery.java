package dev.shardstore.shard.cursor;

import dev.shardstore.engine.query.Filter;
import dev.shardstore.engine.query.Projection;
import dev.shardstore.engine.query.Sort;
import java.util.Objects;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * The query part of a find: which documents, in which order, which fields.
 *
 * @param filter     which documents match
 * @param sort       the order; null for {@code _id} (storage) order
 * @param projection the fields to return; null for whole documents
 * @param skip       matching documents to pass over first
 * @param limit      most documents to return in total; 0 for no limit
 * @param filterSpec the filter document as given, for the planner's index bounds; null plans without bounds
 * @param hint       the {@code hint} argument ({@link dev.shardstore.shard.plan.QueryPlanner}), or null
 */
public record FindQuery(Filter filter, @Nullable Sort sort, @Nullable Projection projection, long skip, long limit,
        @Nullable BsonDocument filterSpec, @Nullable BsonValue hint) {
    public FindQuery(Filter filter, @Nullable Sort sort, @Nullable Projection projection, long skip, long limit) {
        this(filter, sort, projection, skip, limit, null, null);
    }

    public FindQuery {
        Objects.requireNonNull(filter, "filter");
        if (skip < 0 || limit < 0) {
            throw new IllegalArgumentException("skip and limit must be >= 0");
        }
    }
}
