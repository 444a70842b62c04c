package dev.shardstore.engine.query;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * The {@code $slice} projection (MongoDB manual, "$slice (projection)"): {@code {path: {$slice: n}}} keeps the
 * first {@code n} elements of the array at the path, {@code -n} the last {@code n}; {@code [skip, limit]} skips
 * {@code skip} elements (negative: counts from the end, from the start when that is before it) and keeps
 * {@code limit}. Values that are not arrays are left as they are; a dotted path reaches through embedded
 * documents and arrays of documents. It does not make a projection an inclusion or an exclusion.
 *
 * <p>Errors (BadValue, 2): "$slice only supports numbers and [skip, limit] arrays"; "$slice array wrong size";
 * "$slice limit must be positive".
 *
 * @param path the path's components
 * @param skip elements to skip, negative from the end, or {@code null} for the single-number form
 * @param limit the single number, or the limit of the array form
 */
record ProjectionSlice(List<String> path, @Nullable Long skip, long limit) {
    /** @throws CommandException as listed on the class */
    static ProjectionSlice parse(String path, BsonValue argument) {
        if (isWhole(argument)) {
            return new ProjectionSlice(Paths.split(path), null, argument.asNumber().longValue());
        }
        if (!argument.isArray()) {
            throw new CommandException(ErrorCode.BadValue, "$slice only supports numbers and [skip, limit] arrays");
        }
        if (argument.asArray().size() != 2 || !isWhole(argument.asArray().get(0)) || !isWhole(argument.asArray().get(1))) {
            throw new CommandException(ErrorCode.BadValue, "$slice array wrong size or non-integer elements");
        }
        long limit = argument.asArray().get(1).asNumber().longValue();
        if (limit <= 0) {
            throw new CommandException(ErrorCode.BadValue, "$slice limit must be positive");
        }
        return new ProjectionSlice(Paths.split(path), argument.asArray().get(0).asNumber().longValue(), limit);
    }

    private static boolean isWhole(BsonValue value) {
        return value.isNumber() && value.asNumber().doubleValue() == Math.rint(value.asNumber().doubleValue());
    }

    /** Slices the arrays at the path in {@code doc}, a projected copy, in place. */
    void applyTo(BsonDocument doc) {
        applyAt(doc, 0);
    }

    private void applyAt(BsonValue container, int index) {
        if (container.isArray()) {
            container.asArray().forEach(element -> applyAt(element, index));
            return;
        }
        if (!container.isDocument()) {
            return;
        }
        BsonValue value = container.asDocument().get(path.get(index));
        if (value == null) {
            return;
        }
        if (index + 1 < path.size()) {
            applyAt(value, index + 1);
        } else if (value.isArray()) {
            container.asDocument().put(path.get(index), slice(value.asArray()));
        }
    }

    private BsonArray slice(BsonArray array) {
        int size = array.size();
        long from;
        long count;
        if (skip == null) {
            from = limit >= 0 ? 0 : Math.max(0, size + limit);
            count = Math.abs(limit);
        } else {
            from = skip >= 0 ? Math.min(skip, size) : Math.max(0, size + skip);
            count = limit;
        }
        long to = Math.min(size, from + count);
        return new BsonArray(new ArrayList<>(array.getValues().subList((int) from, (int) to)));
    }
}
