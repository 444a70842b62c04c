package dev.shardstore.engine.query;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * Parses a filter document into a {@link Matcher} tree, as MongoDB's {@code MatchExpressionParser}: the
 * fields are AND-ed; a field's value is an operator document ({@link FieldOperators}), a regular
 * expression, or a value compared by equality; {@code $}-prefixed top-level keys are the logical
 * operators {@code $and $or $nor} (each a non-empty array of filter documents) or {@code $comment}.
 */
final class FilterParser {
    private static final Map<String, Function<List<Matcher>, Matcher>> LOGICAL = Map.of(
            "$and", Logical::allOf,
            "$or", Logical.AnyOf::new,
            "$nor", Logical.NoneOf::new);

    private FilterParser() {}

    /** @throws CommandException BadValue for an unknown operator or a malformed argument */
    static Matcher parse(BsonDocument filter) {
        List<Matcher> matchers = new ArrayList<>();
        for (Map.Entry<String, BsonValue> entry : filter.entrySet()) {
            String key = entry.getKey();
            if (key.equals("$comment")) {
                continue;
            }
            matchers.add(key.startsWith("$") ? parseLogical(key, entry.getValue()) : parseField(key, entry.getValue()));
        }
        return matchers.isEmpty() ? new Logical.AllOf(List.of()) : Logical.allOf(matchers);
    }

    private static Matcher parseField(String path, BsonValue value) {
        if (FieldOperators.isOperatorDocument(value)) {
            return FieldOperators.parseOperatorDocument(path, value.asDocument());
        }
        if (value.isRegularExpression()) {
            return new PathMatcher(path, RegexPredicate.of(value.asRegularExpression()));
        }
        return new PathMatcher(path, new Comparison(Comparison.Operator.EQ, value));
    }

    private static Matcher parseLogical(String operator, BsonValue argument) {
        Function<List<Matcher>, Matcher> combinator = LOGICAL.get(operator);
        if (combinator == null) {
            throw new CommandException(ErrorCode.BadValue, "unknown top level operator: " + operator);
        }
        if (!argument.isArray() || argument.asArray().isEmpty()) {
            throw new CommandException(ErrorCode.BadValue, operator + " must be a nonempty array");
        }
        List<Matcher> children = new ArrayList<>();
        for (BsonValue child : argument.asArray()) {
            if (!child.isDocument()) {
                throw new CommandException(ErrorCode.BadValue, operator + " argument's entries must be objects");
            }
            children.add(parse(child.asDocument()));
        }
        return combinator.apply(List.copyOf(children));
    }
}
