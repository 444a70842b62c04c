package dev.shardstore.engine.query;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.util.Set;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * {@code $elemMatch} on one value, as MongoDB's {@code ElemMatchValueMatchExpression} and
 * {@code ElemMatchObjectMatchExpression} (MongoDB manual, "$elemMatch (query)"): the value is an array
 * with at least one element satisfying every condition at once. Two forms, told apart by the argument's
 * first key:
 * <ul>
 *   <li>operator form {@code {$gt: 1, $lt: 5}}: the conditions apply to the element itself;</li>
 *   <li>document form {@code {b: 1, c: {$gt: 2}}} (also {@code $and $or $nor}): the element is a document
 *       that matches the filter.</li>
 * </ul>
 * Used with {@link Paths.Mode#WHOLE_ARRAY}. One departure: in the operator form an element that is itself an
 * array is searched like a field's array (MongoDB tests it as one value).
 *
 * <p>Errors: BadValue (2) "$elemMatch needs an Object"; errors of the inner conditions.
 */
record ElemMatch(Matcher elementMatcher, boolean operatorForm) implements ValuePredicate {
    /** The field name an element is wrapped under to run the operator form's path matchers on it. */
    private static final String ELEMENT = "";
    private static final Set<String> LOGICAL = Set.of("$and", "$or", "$nor");

    /** @throws CommandException as listed on the class */
    static ElemMatch parse(BsonValue argument) {
        if (!argument.isDocument()) {
            throw new CommandException(ErrorCode.BadValue, "$elemMatch needs an Object");
        }
        BsonDocument conditions = argument.asDocument();
        boolean operatorForm = FieldOperators.isOperatorDocument(conditions) && !LOGICAL.contains(conditions.getFirstKey());
        return operatorForm
                ? new ElemMatch(FieldOperators.parseOperatorDocument(ELEMENT, conditions), true)
                : new ElemMatch(FilterParser.parse(conditions), false);
    }

    @Override
    public boolean test(BsonValue value) {
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

    /** Whether one array element satisfies the conditions (also {@code $pull}'s condition test). */
    boolean matchesElement(BsonValue element) {
        return operatorForm ? elementMatcher.matches(new BsonDocument(ELEMENT, element))
                : element.isDocument() && elementMatcher.matches(element.asDocument());
    }
}
