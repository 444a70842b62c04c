package dev.shardstore.engine.aggregate;

import dev.shardstore.contracts.bson.Collation;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.engine.query.Sort;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonDocument;

/**
 * {@code {$sort: {<path>: 1 | -1, ...}}}: a stable sort with find's sort semantics ({@link Sort}), strings ordered under
 * the command's collation.
 * Errors: BadValue (2) for an empty specification ({@code "$sort stage must have at least one sort key"}) and
 * as {@link Sort#parse}.
 */
final class SortStage implements Stage {
    private final Sort sort;

    private SortStage(Sort sort) {
        this.sort = sort;
    }

    static Stage parse(BsonDocument spec, Collation collation) {
        if (spec.isEmpty()) {
            throw new CommandException(ErrorCode.BadValue, "$sort stage must have at least one sort key");
        }
        return new SortStage(Sort.parse(spec, collation));
    }

    @Override
    public List<BsonDocument> apply(List<BsonDocument> input) {
        List<BsonDocument> sorted = new ArrayList<>(input);
        sorted.sort(sort.comparator());
        return sorted;
    }
}
