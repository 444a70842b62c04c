package dev.shardstore.engine.aggregate.expression;

import dev.shardstore.contracts.bson.BsonOrder;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.engine.query.TypeNames;
import java.util.List;
import java.util.Map;
import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonNull;
import org.bson.BsonString;
import org.bson.BsonValue;

/**
 * Array expression operators (MongoDB manual, "Array Expression Operators"): {@code $size},
 * {@code $arrayElemAt: [array, index]} (negative indexes count from the end; out of range is missing),
 * {@code $filter: {input, as?, cond, limit?}}, {@code $map: {input, as?, in}} (the element is {@code $$this}
 * unless {@code as} names it) and {@code $in: [value, array]} (BSON equality, so {@code 1} is in
 * {@code [1.0]}, strings equal under the command's collation, and missing is not in {@code [null]}). A null or missing array gives null for {@code $arrayElemAt}, {@code $filter} and
 * {@code $map}.
 *
 * <p>Errors: TypeMismatch (14) for a non-array where an array is needed ({@code "The argument to $size must
 * be an array. Type of argument: missing"}, {@code "$in requires an array as a second argument, found:
 * string"}).
 */
final class Arrays {
    static final Map<String, OperatorParser> OPERATORS = Map.of(
            "$size", (name, arg, p) -> size(Operands.exactly(name, arg, p, 1).getFirst()),
            "$arrayElemAt", (name, arg, p) -> elementAt(Operands.exactly(name, arg, p, 2)),
            "$filter", (name, arg, p) -> iterate(name, arg, p, "cond"),
            "$map", (name, arg, p) -> iterate(name, arg, p, "in"),
            "$in", (name, arg, p) -> in(Operands.exactly(name, arg, p, 2)));

    private Arrays() {}

    private static Expression size(Expression operand) {
        return variables -> {
            BsonValue value = operand.evaluate(variables);
            if (value == null || !value.isArray()) {
                throw new CommandException(ErrorCode.TypeMismatch, "The argument to $size must be an array. Type of argument: "
                        + (value == null ? "missing" : TypeNames.of(value.getBsonType())));
            }
            return new BsonInt32(value.asArray().size());
        };
    }

    private static Expression elementAt(List<Expression> operands) {
        return variables -> {
            BsonValue array = operands.get(0).evaluate(variables);
            BsonValue index = operands.get(1).evaluate(variables);
            if (Operands.nullish(array) || Operands.nullish(index)) {
                return BsonNull.VALUE;
            }
            List<BsonValue> values = array("$arrayElemAt", array, "first").getValues();
            if (!Numbers.isNumber(index) || Numbers.toDouble(index) != Math.floor(Numbers.toDouble(index))) {
                throw new CommandException(ErrorCode.TypeMismatch,
                        "$arrayElemAt's second argument must be a numeric value, but is " + TypeNames.of(index.getBsonType()));
            }
            long i = (long) Numbers.toDouble(index);
            long position = i < 0 ? values.size() + i : i;
            return position < 0 || position >= values.size() ? null : values.get((int) position);
        };
    }

    /** {@code $filter} ({@code body} "cond") or {@code $map} ({@code body} "in"). */
    private static Expression iterate(String name, BsonValue arg, ExpressionParser parser, String body) {
        BsonDocument named = Operands.named(name, arg);
        Expression input = parser.parse(Operands.required(name, named, "input"));
        Expression each = parser.parse(Operands.required(name, named, body));
        BsonValue asName = named.get("as", new BsonString("this"));
        if (!asName.isString() || asName.asString().getValue().isEmpty()) {
            throw new CommandException(ErrorCode.BadValue, name + " 'as' must be a non-empty variable name: " + asName);
        }
        String as = asName.asString().getValue();
        Expression limit = named.containsKey("limit") ? parser.parse(named.get("limit")) : variables -> null;
        boolean filter = body.equals("cond");
        return variables -> {
            BsonValue value = input.evaluate(variables);
            if (Operands.nullish(value)) {
                return BsonNull.VALUE;
            }
            BsonValue max = limit.evaluate(variables);
            long cap = Numbers.isNumber(max) ? (long) Numbers.toDouble(max) : Long.MAX_VALUE;
            BsonArray out = new BsonArray();
            for (BsonValue element : array(name, value, "input").getValues()) {
                BsonValue result = each.evaluate(variables.with(as, element));
                if (!filter) {
                    out.add(ExpressionParser.orNull(result));
                } else if (Booleans.truthy(result) && out.size() < cap) {
                    out.add(element);
                }
            }
            return out;
        };
    }

    private static Expression in(List<Expression> operands) {
        return variables -> {
            BsonValue needle = Comparisons.comparable(operands.get(0).evaluate(variables));
            BsonValue haystack = operands.get(1).evaluate(variables);
            if (haystack == null || !haystack.isArray()) {
                throw new CommandException(ErrorCode.TypeMismatch, "$in requires an array as a second argument, found: "
                        + (haystack == null ? "missing" : TypeNames.of(haystack.getBsonType())));
            }
            return BsonBoolean.valueOf(haystack.asArray().stream().anyMatch(v -> BsonOrder.compare(v, needle, variables.collation()) == 0));
        };
    }

    private static BsonArray array(String name, BsonValue value, String which) {
        if (!value.isArray()) {
            throw new CommandException(ErrorCode.TypeMismatch, name + "'s " + which + " argument must be an array, but is "
                    + TypeNames.of(value.getBsonType()));
        }
        return value.asArray();
    }
}
