package dev.shardstore.engine.query;

import dev.shardstore.contracts.bson.Collation;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * The {@code $elemMatch} projection (MongoDB manual, "$elemMatch (projection)"): {@code {field: {$elemMatch:
 * <conditions>}}} returns the array field with only its first element that satisfies the conditions (as the
 * query operator {@link ElemMatch} tests it), placed after the other included fields; the field is left out when
 * no element matches or it is not an array. It counts as an inclusion.
 *
 * <p>Errors (BadValue, 2): "Cannot use $elemMatch projection on a nested field"; the conditions' errors.
 *
 * @param field the top-level field
 * @param conditions the element test
 */
record ProjectionElemMatch(String field, ElemMatch conditions) {
    /** @throws CommandException as listed on the class */
    static ProjectionElemMatch parse(String path, BsonValue argument) {
        if (path.contains(".")) {
            throw new CommandException(ErrorCode.BadValue, "Cannot use $elemMatch projection on a nested field: " + path);
        }
        return new ProjectionElemMatch(path, ElemMatch.parse(argument, Collation.SIMPLE));
    }

    /**
     * Replaces the field of {@code projected} by the first matching element of the field in {@code original}.
     */
    void applyTo(BsonDocument original, BsonDocument projected) {
        projected.remove(field);
        BsonValue value = original.get(field);
        if (value == null || !value.isArray()) {
            return;
        }
        value.asArray().stream().filter(conditions::matchesElement).findFirst()
                .ifPresent(element -> projected.put(field, new BsonArray(List.of(Values.copy(element)))));
    }
}
