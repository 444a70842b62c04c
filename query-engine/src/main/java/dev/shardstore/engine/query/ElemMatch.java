package dev.shardstore.engine.query;

import dev.shardstore.contracts.bson.Collation;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.util.Set;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * {@code $elemMatch} on one value, as MongoDB's {@code ElemMatchValueMatchExpression} and
 * {@code ElemMatchObjectMatchExpression} (MongoDB manual, "$elemMatch (query)": the value is an array with at
 * least one element that satisfies every condition at once). Only the top level of that array is iterated: an
 * element that is itself an array is one element, not searched further. Two forms, told apart by the argument's
 * first key ({@link #isOperatorForm}):
 * <ul>
 *   <li>operator form {@code {$gt: 1, $lt: 5}}: each condition tests the element itself as one value
 *       ({@link Matcher#matchesValue}), so {@code {$gt: 3}} does not match an element {@code [4]} and
 *       {@code {$eq: [1, 2]}} matches an element {@code [1, 2]} but not {@code [[1, 2]]}; nest {@code $elemMatch}
 *       to look inside nested arrays;</li>
 *   <li>document form {@code {b: 1, c: {$gt: 2}}} (also {@code $and $or $nor}): the element is a document that
 *       matches the filter, or an array, which the filter sees as the document of its positions
 *       ({@link Values#byPosition}: {@code {"0": "x"}} matches an element {@code ["x"]}); scalars never match.</li>
 * </ul>
 * Used with {@link Paths.Mode#WHOLE_ARRAY}; the projection {@code $elemMatch} uses the same test.
 *
 * <p>Errors: BadValue (2) "$elemMatch needs an Object"; errors of the inner conditions.
 */
record ElemMatch(Matcher conditions, boolean operatorForm) implements ValuePredicate {
    /**
     * The path the operator form's conditions are parsed under, as MongoDB does; they are applied to each element
     * directly, never through this path.
     */
    private static final String ELEMENT = "";
    /** Operators that do not apply to a value, which make the document form (MongoDB's pathless parsers). */
    private static final Set<String> PATHLESS = Set.of("$and", "$or", "$nor", "$expr");

    /** @throws CommandException as listed on the class */
    static ElemMatch parse(BsonValue argument, Collation collation) {
        if (!argument.isDocument()) {
            throw new CommandException(ErrorCode.BadValue, "$elemMatch needs an Object");
        }
        BsonDocument conditions = argument.asDocument();
        return isOperatorForm(conditions)
                ? new ElemMatch(FieldOperators.parseOperatorDocument(ELEMENT, conditions, collation), true)
                : new ElemMatch(FilterParser.element(collation).parse(conditions), false);
    }

    /**
     * Whether {@code conditions} apply to a value (their first key is an operator such as {@code $gt}) rather than
     * being a filter over a document ({@code {b: 1}}, {@code {$and: [...]}}, {@code {}}); {@code $pull} tells its
     * two kinds of condition apart the same way.
     */
    static boolean isOperatorForm(BsonDocument conditions) {
        return FieldOperators.isOperatorDocument(conditions) && !PATHLESS.contains(conditions.getFirstKey());
    }

    @Override
    public boolean test(@Nullable BsonValue value) {
        if (value == null || !value.isArray()) {
            return false;
        }
        return value.asArray().stream().anyMatch(this::matchesElement);
    }

    /** The index of the first element that satisfies the conditions; the caller knows there is one. */
    int firstMatchingIndex(BsonArray array) {
        for (int i = 0; i < array.size(); i++) {
            if (matchesElement(array.get(i))) {
                return i;
            }
        }
        return Paths.NO_POSITION;
    }

    /** Whether one array element satisfies the conditions. */
    boolean matchesElement(BsonValue element) {
        if (operatorForm) {
            return conditions.matchesValue(element);
        }
        return switch (element.getBsonType()) {
            case DOCUMENT -> conditions.matches(element.asDocument());
            case ARRAY -> conditions.matches(Values.byPosition(element.asArray()));
            default -> false;
        };
    }
}
