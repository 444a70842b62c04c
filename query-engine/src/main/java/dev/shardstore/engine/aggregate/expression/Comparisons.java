package dev.shardstore.engine.aggregate.expression;

import dev.shardstore.contracts.bson.BsonOrder;
import java.util.List;
import java.util.Map;
import java.util.function.IntPredicate;
import org.bson.BsonBoolean;
import org.bson.BsonInt32;
import org.bson.BsonUndefined;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * Comparison expression operators (MongoDB manual, "Comparison Expression Operators"):
 * {@code $eq $ne $gt $gte $lt $lte $cmp}, each of exactly two operands compared in BSON order
 * ({@link BsonOrder}) across types, strings under the command's collation ({@link Variables#collation()}), so {@code {$gt: ["a", 5]}} is true (strings sort after numbers).
 * A missing operand is not null: it sorts below null, with undefined (so {@code {$eq: ["$missing", null]}} is
 * false and two missing operands are equal). {@code $cmp} answers -1, 0 or 1.
 */
final class Comparisons {
    static final Map<String, OperatorParser> OPERATORS = Map.of(
            "$eq", (name, arg, p) -> test(Operands.exactly(name, arg, p, 2), c -> c == 0),
            "$ne", (name, arg, p) -> test(Operands.exactly(name, arg, p, 2), c -> c != 0),
            "$gt", (name, arg, p) -> test(Operands.exactly(name, arg, p, 2), c -> c > 0),
            "$gte", (name, arg, p) -> test(Operands.exactly(name, arg, p, 2), c -> c >= 0),
            "$lt", (name, arg, p) -> test(Operands.exactly(name, arg, p, 2), c -> c < 0),
            "$lte", (name, arg, p) -> test(Operands.exactly(name, arg, p, 2), c -> c <= 0),
            "$cmp", (name, arg, p) -> {
                List<Expression> operands = Operands.exactly(name, arg, p, 2);
                return variables -> new BsonInt32(Integer.signum(compare(operands, variables)));
            });

    private Comparisons() {}

    private static Expression test(List<Expression> operands, IntPredicate outcome) {
        return variables -> BsonBoolean.valueOf(outcome.test(compare(operands, variables)));
    }

    private static int compare(List<Expression> operands, Variables variables) {
        return BsonOrder.compare(comparable(operands.get(0).evaluate(variables)), comparable(operands.get(1).evaluate(variables)),
                variables.collation());
    }

    /** The value as it compares: missing as undefined, which shares missing's place in BSON order. */
    static BsonValue comparable(@Nullable BsonValue value) {
        return value == null ? new BsonUndefined() : value;
    }
}
