package dev.shardstore.engine.query;

import dev.shardstore.contracts.bson.BsonOrder;
import dev.shardstore.contracts.bson.Collation;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import org.bson.BsonType;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * {@code $eq $gt $gte $lt $lte} on one value, as MongoDB's {@code ComparisonMatchExpression::matchesSingleElement}
 * ({@code src/mongo/db/matcher/expression_leaf.cpp}):
 * <ul>
 *   <li>values of different canonical type brackets ({@link BsonOrder#typeRank}) never match, except that
 *       null matches missing/undefined for {@code $eq $lte $gte}, and MinKey/MaxKey bounds admit
 *       everything below/above them;</li>
 *   <li>within a bracket the values compare in BSON order (numbers across int/long/double/decimal by value);</li>
 *   <li>NaN equals NaN; otherwise NaN is neither greater nor less than anything.</li>
 * </ul>
 *
 * Strings (also inside arrays and documents) compare under the query's collation ({@link BsonOrder#compare(BsonValue,
 * BsonValue, Collation)}).
 *
 * @param operator the comparison
 * @param operand the right-hand side; never undefined
 * @param collation the query's collation
 */
record Comparison(Operator operator, BsonValue operand, Collation collation) implements ValuePredicate {
    /** The comparison operators and their outcome for a given {@code compare(value, operand)}. */
    enum Operator {
        EQ, GT, GTE, LT, LTE;

        boolean holds(int comparison) {
            return switch (this) {
                case EQ -> comparison == 0;
                case GT -> comparison > 0;
                case GTE -> comparison >= 0;
                case LT -> comparison < 0;
                case LTE -> comparison <= 0;
            };
        }

        boolean includesEquality() {
            return this == EQ || this == GTE || this == LTE;
        }
    }

    private static final int MISSING_RANK = BsonOrder.typeRank(BsonType.UNDEFINED);
    private static final int NULL_RANK = BsonOrder.typeRank(BsonType.NULL);

    /** @throws CommandException BadValue when the operand is undefined ("cannot compare to undefined") */
    Comparison {
        if (operand.getBsonType() == BsonType.UNDEFINED) {
            throw new CommandException(ErrorCode.BadValue, "cannot compare to undefined");
        }
    }

    @Override
    public boolean test(@Nullable BsonValue value) {
        int valueRank = value == null ? MISSING_RANK : BsonOrder.typeRank(value.getBsonType());
        int operandRank = BsonOrder.typeRank(operand.getBsonType());
        if (value == null || valueRank != operandRank) { // missing shares undefined's bracket, which no operand has
            return crossBracket(valueRank, operandRank);
        }
        if (operator != Operator.EQ && (isNaN(value) || isNaN(operand))) {
            return operator.includesEquality() && isNaN(value) && isNaN(operand);
        }
        return operator.holds(BsonOrder.compare(value, operand, collation));
    }

    private boolean crossBracket(int valueRank, int operandRank) {
        if (valueRank + operandRank == MISSING_RANK + NULL_RANK) {
            return operator.includesEquality();
        }
        return switch (operand.getBsonType()) {
            case MAX_KEY -> operator == Operator.LT || operator == Operator.LTE;
            case MIN_KEY -> operator == Operator.GT || operator == Operator.GTE;
            default -> false;
        };
    }

    private static boolean isNaN(BsonValue v) {
        return switch (v.getBsonType()) {
            case DOUBLE -> Double.isNaN(v.asDouble().getValue());
            case DECIMAL128 -> v.asDecimal128().getValue().isNaN();
            default -> false;
        };
    }
}
