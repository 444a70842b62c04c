package dev.shardstore.engine.query;

import dev.shardstore.contracts.bson.Collation;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.engine.aggregate.expression.CommandVariables;
import dev.shardstore.engine.aggregate.expression.ExprCondition;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * Parses a filter document into a {@link Matcher} tree, as MongoDB's {@code MatchExpressionParser}: the
 * fields are AND-ed; a field's value is an operator document ({@link FieldOperators}), a regular
 * expression, or a value compared by equality; {@code $}-prefixed top-level keys are the logical
 * operators {@code $and $or $nor} (each a non-empty array of filter documents), {@code $comment} and
 * {@code $expr}.
 *
 * <p>{@code $expr} needs the command's variables, so it is accepted only by a parser made for a command's filter
 * ({@link #forCommand}); inside {@code $elemMatch} it is BadValue (2) "$expr can only be applied to the top-level
 * document", and in filters that are not a command's query (partial index filters, array filters, catalog
 * filters) QueryFeatureNotAllowed (224) "$expr is not allowed in this context", as MongoDB refuses it there.
 */
final class FilterParser {
    private static final Map<String, Function<List<Matcher>, Matcher>> LOGICAL = Map.of(
            "$and", Logical::allOf,
            "$or", Logical.AnyOf::new,
            "$nor", Logical.NoneOf::new);

    /** The parser of filters that are not a command's query (they compare strings with the simple collation). */
    static final FilterParser WITHOUT_EXPR = withoutExpr(Collation.SIMPLE);

    private final @Nullable CommandVariables variables;
    private final boolean element;
    private final Collation collation;

    private FilterParser(@Nullable CommandVariables variables, boolean element, Collation collation) {
        this.variables = variables;
        this.element = element;
        this.collation = collation;
    }

    /** The parser of a command's filter, whose {@code $expr} sees {@code variables} and whose strings compare with {@code collation}. */
    static FilterParser forCommand(CommandVariables variables, Collation collation) {
        return new FilterParser(variables, false, collation);
    }

    /**
     * The parser of a filter that is part of an update rather than its query ({@code arrayFilters}, {@code $pull}
     * conditions): no {@code $expr}, strings compared under the statement's {@code collation}.
     */
    static FilterParser withoutExpr(Collation collation) {
        return new FilterParser(null, false, collation);
    }

    /** The parser of {@code $elemMatch}'s document form: a filter over an array element, under the query's collation. */
    static FilterParser element(Collation collation) {
        return new FilterParser(null, true, collation);
    }

    /** @throws CommandException BadValue for an unknown operator or a malformed argument; {@code $expr} as above */
    Matcher parse(BsonDocument filter) {
        List<Matcher> matchers = new ArrayList<>();
        for (Map.Entry<String, BsonValue> entry : filter.entrySet()) {
            String key = entry.getKey();
            if (key.equals("$comment")) {
                continue;
            }
            if (key.equals("$expr")) {
                matchers.add(parseExpr(entry.getValue()));
            } else {
                matchers.add(key.startsWith("$") ? parseLogical(key, entry.getValue()) : parseField(key, entry.getValue()));
            }
        }
        return matchers.isEmpty() ? new Logical.AllOf(List.of()) : Logical.allOf(matchers);
    }

    private Matcher parseExpr(BsonValue argument) {
        if (element) {
            throw new CommandException(ErrorCode.BadValue, "$expr can only be applied to the top-level document");
        }
        if (variables == null) {
            throw new CommandException(ErrorCode.QueryFeatureNotAllowed, "$expr is not allowed in this context");
        }
        return new ExprMatcher(ExprCondition.parse(argument, variables.withCollation(collation))); // $expr compares as the filter does
    }

    private Matcher parseField(String path, BsonValue value) {
        if (FieldOperators.isOperatorDocument(value)) {
            return FieldOperators.parseOperatorDocument(path, value.asDocument(), collation);
        }
        if (value.isRegularExpression()) {
            return new PathMatcher(path, RegexPredicate.of(value.asRegularExpression()));
        }
        return new PathMatcher(path, new Comparison(Comparison.Operator.EQ, value, collation));
    }

    private Matcher parseLogical(String operator, BsonValue argument) {
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
