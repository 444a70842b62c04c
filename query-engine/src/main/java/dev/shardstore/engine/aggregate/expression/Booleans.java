package dev.shardstore.engine.aggregate.expression;

import java.util.List;
import java.util.Map;
import org.bson.BsonBoolean;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * Boolean expression operators (MongoDB manual, "Boolean Expression Operators"): {@code $and} (true for no
 * operands), {@code $or} (false for none), {@code $not} (one operand). Operands are taken by
 * {@link #truthy}: false, null, undefined, missing and numeric zero are false, everything else (including
 * empty strings and arrays) is true.
 */
final class Booleans {
    static final Map<String, OperatorParser> OPERATORS = Map.of(
            "$and", (name, arg, p) -> all(Operands.list(arg, p), true),
            "$or", (name, arg, p) -> all(Operands.list(arg, p), false),
            "$not", (name, arg, p) -> {
                Expression operand = Operands.exactly(name, arg, p, 1).getFirst();
                return variables -> BsonBoolean.valueOf(!truthy(operand.evaluate(variables)));
            });

    private Booleans() {}

    /** Whether {@code $and} ({@code every}) or {@code $or} holds: stops at the first deciding operand. */
    private static Expression all(List<Expression> operands, boolean every) {
        return variables -> {
            for (Expression operand : operands) {
                if (truthy(operand.evaluate(variables)) != every) {
                    return BsonBoolean.valueOf(!every);
                }
            }
            return BsonBoolean.valueOf(every);
        };
    }

    /** MongoDB's truthiness of an expression value ({@code null} is missing). */
    static boolean truthy(@Nullable BsonValue value) {
        if (Operands.nullish(value)) {
            return false;
        }
        if (value.isBoolean()) {
            return value.asBoolean().getValue();
        }
        if (Numbers.isNumber(value)) {
            return Numbers.toDouble(value) != 0;
        }
        return true;
    }
}
