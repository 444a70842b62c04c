package dev.shardstore.engine.query;

import dev.shardstore.contracts.bson.Collation;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * The table of operators allowed under a field ({@code {path: {$op: argument, ...}}}), as MongoDB's
 * {@code expression_parser.cpp}. Each entry turns one operator into a {@link Matcher} for the path; an
 * operator document is the AND of its entries: comparisons, {@code $in $nin $exists $not $regex}, and
 * {@code $type} ({@link TypePredicate}), {@code $mod} ({@link ModPredicate}), {@code $size}
 * ({@link SizePredicate}), {@code $elemMatch} ({@link ElemMatch}), {@code $all} ({@link AllOperator}).
 *
 * <p>Errors (all BadValue, code 2): {@code "unknown operator: $foo"}; {@code "$in needs an array"};
 * {@code "$not needs a regex or a document"}; {@code "$not cannot be empty"};
 * {@code "$regex has to be a string"}; {@code "$options needs a $regex"}; {@code "cannot compare to undefined"};
 * and those of the operator classes named above.
 */
final class FieldOperators {
    /** Parses one operator's argument for a path; {@code siblings} is the whole operator document. */
    @FunctionalInterface
    private interface OperatorParser {
        Matcher parse(String path, BsonValue argument, BsonDocument siblings, Collation collation);
    }

    private static final Set<String> DBREF_FIELDS = Set.of("$ref", "$id", "$db");

    private static final Map<String, OperatorParser> TABLE = Map.ofEntries(
            Map.entry("$eq", comparison(Comparison.Operator.EQ)),
            Map.entry("$gt", comparison(Comparison.Operator.GT)),
            Map.entry("$gte", comparison(Comparison.Operator.GTE)),
            Map.entry("$lt", comparison(Comparison.Operator.LT)),
            Map.entry("$lte", comparison(Comparison.Operator.LTE)),
            Map.entry("$ne", (path, arg, siblings, collation) ->
                    new Logical.Not(new PathMatcher(path, new Comparison(Comparison.Operator.EQ, arg, collation)))),
            Map.entry("$in", (path, arg, siblings, collation) -> new PathMatcher(path, new InSet("$in", arg, collation))),
            Map.entry("$nin", (path, arg, siblings, collation) -> new Logical.Not(new PathMatcher(path, new InSet("$nin", arg, collation)))),
            Map.entry("$exists", FieldOperators::exists),
            Map.entry("$not", FieldOperators::not),
            Map.entry("$regex", FieldOperators::regex),
            Map.entry("$type", (path, arg, siblings, collation) -> new PathMatcher(path, TypePredicate.parse(arg))),
            Map.entry("$mod", (path, arg, siblings, collation) -> new PathMatcher(path, ModPredicate.parse(arg))),
            Map.entry("$size", (path, arg, siblings, collation) -> PathMatcher.wholeArray(path, SizePredicate.parse(arg))),
            Map.entry("$elemMatch", (path, arg, siblings, collation) -> PathMatcher.wholeArray(path, ElemMatch.parse(arg, collation))),
            Map.entry("$all", (path, arg, siblings, collation) -> AllOperator.parse(path, arg, collation)));

    private FieldOperators() {}

    /**
     * Whether a field's value is an operator document: a non-empty document whose first field starts with
     * {@code $} and is not a DBRef field ({@code $ref $id $db}). Anything else is compared by equality.
     */
    static boolean isOperatorDocument(BsonValue value) {
        if (!value.isDocument() || value.asDocument().isEmpty()) {
            return false;
        }
        String first = value.asDocument().getFirstKey();
        return first.startsWith("$") && !DBREF_FIELDS.contains(first);
    }

    /**
     * The AND of every operator in {@code operators}, applied to {@code path}; string comparisons ({@code $eq $ne
     * $gt $gte $lt $lte $in $nin $all}) use {@code collation}, {@code $regex} does not (MongoDB manual, "Collation").
     */
    static Matcher parseOperatorDocument(String path, BsonDocument operators, Collation collation) {
        List<Matcher> matchers = new ArrayList<>();
        for (Map.Entry<String, BsonValue> entry : operators.entrySet()) {
            String name = entry.getKey();
            if (name.equals("$options")) {
                if (!operators.containsKey("$regex")) {
                    throw new CommandException(ErrorCode.BadValue, "$options needs a $regex");
                }
                continue; // consumed by $regex
            }
            OperatorParser parser = TABLE.get(name);
            if (parser == null) {
                throw new CommandException(ErrorCode.BadValue, "unknown operator: " + name);
            }
            matchers.add(parser.parse(path, entry.getValue(), operators, collation));
        }
        return Logical.allOf(matchers);
    }

    private static OperatorParser comparison(Comparison.Operator operator) {
        return (path, arg, siblings, collation) -> new PathMatcher(path, new Comparison(operator, arg, collation));
    }

    private static Matcher exists(String path, BsonValue argument, BsonDocument siblings, Collation collation) {
        Matcher exists = new PathMatcher(path, value -> value != null);
        return isTrue(argument) ? exists : new Logical.Not(exists);
    }

    private static Matcher not(String path, BsonValue argument, BsonDocument siblings, Collation collation) {
        if (argument.isRegularExpression()) {
            return new Logical.Not(new PathMatcher(path, RegexPredicate.of(argument.asRegularExpression())));
        }
        if (!argument.isDocument()) {
            throw new CommandException(ErrorCode.BadValue, "$not needs a regex or a document");
        }
        if (argument.asDocument().isEmpty()) {
            throw new CommandException(ErrorCode.BadValue, "$not cannot be empty");
        }
        return new Logical.Not(parseOperatorDocument(path, argument.asDocument(), collation));
    }

    private static Matcher regex(String path, BsonValue argument, BsonDocument siblings, Collation collation) {
        BsonValue optionsValue = siblings.get("$options");
        if (optionsValue != null && !optionsValue.isString()) {
            throw new CommandException(ErrorCode.BadValue, "$options has to be a string");
        }
        String options = optionsValue == null ? "" : optionsValue.asString().getValue();
        RegexPredicate predicate;
        if (argument.isString()) {
            predicate = RegexPredicate.of(argument.asString().getValue(), options);
        } else if (argument.isRegularExpression()) {
            String own = argument.asRegularExpression().getOptions();
            if (!own.isEmpty() && !options.isEmpty()) {
                throw new CommandException(ErrorCode.BadValue, "options set in both $regex and $options");
            }
            predicate = RegexPredicate.of(argument.asRegularExpression().getPattern(), own + options);
        } else {
            throw new CommandException(ErrorCode.BadValue, "$regex has to be a string");
        }
        return new PathMatcher(path, predicate);
    }

    /** BSON truthiness ({@code BSONElement::trueValue}): false, 0, null and undefined are false. */
    private static boolean isTrue(BsonValue value) {
        return switch (value.getBsonType()) {
            case BOOLEAN -> value.asBoolean().getValue();
            case INT32, INT64, DOUBLE, DECIMAL128 -> value.asNumber().doubleValue() != 0;
            case NULL, UNDEFINED -> false;
            default -> true;
        };
    }
}
