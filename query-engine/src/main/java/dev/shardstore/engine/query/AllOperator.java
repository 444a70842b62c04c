package dev.shardstore.engine.query;

import dev.shardstore.contracts.bson.Collation;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonValue;

/**
 * {@code $all} under a field, as MongoDB's parser rewrites it (MongoDB manual, "$all"): {@code {a: {$all:
 * [x, y]}}} is {@code {$and: [{a: x}, {a: y}]}} (regex elements match as regexes), and {@code {a: {$all:
 * [{$elemMatch: c1}, {$elemMatch: c2}]}}} is the AND of the {@code $elemMatch}es. An empty list matches
 * nothing.
 *
 * <p>Errors (BadValue, 2): "$all needs an array"; "$all/$elemMatch has to be consistent" when only some
 * elements are {@code $elemMatch}; "no $ expressions in $all" for another operator document.
 */
final class AllOperator {
    private AllOperator() {}

    /** @throws CommandException as listed on the class */
    static Matcher parse(String path, BsonValue argument, Collation collation) {
        if (!argument.isArray()) {
            throw new CommandException(ErrorCode.BadValue, "$all needs an array");
        }
        if (argument.asArray().isEmpty()) {
            return new Logical.AnyOf(List.of());
        }
        long elemMatches = argument.asArray().stream().filter(AllOperator::isElemMatch).count();
        if (elemMatches > 0 && elemMatches < argument.asArray().size()) {
            throw new CommandException(ErrorCode.BadValue, "$all/$elemMatch has to be consistent");
        }
        List<Matcher> matchers = new ArrayList<>();
        for (BsonValue element : argument.asArray()) {
            matchers.add(matcher(path, element, collation));
        }
        return Logical.allOf(matchers);
    }

    private static Matcher matcher(String path, BsonValue element, Collation collation) {
        if (isElemMatch(element)) {
            return PathMatcher.wholeArray(path, ElemMatch.parse(element.asDocument().values().iterator().next(), collation)); // $elemMatch, the first field
        }
        if (FieldOperators.isOperatorDocument(element)) {
            throw new CommandException(ErrorCode.BadValue, "no $ expressions in $all");
        }
        return new PathMatcher(path, element.isRegularExpression()
                ? RegexPredicate.of(element.asRegularExpression())
                : new Comparison(Comparison.Operator.EQ, element, collation));
    }

    private static boolean isElemMatch(BsonValue element) {
        return element.isDocument() && !element.asDocument().isEmpty()
                && element.asDocument().getFirstKey().equals("$elemMatch");
    }
}
