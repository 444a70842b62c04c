package dev.shardstore.engine.query;

import dev.shardstore.contracts.bson.BsonOrder;
import dev.shardstore.contracts.bson.Collation;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.util.ArrayList;
import java.util.List;
import java.util.NavigableSet;
import java.util.TreeSet;
import org.bson.BsonNull;
import org.bson.BsonType;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * {@code $in} on one value, as MongoDB's {@code InMatchExpression}: the value equals (in BSON order, so
 * {@code 1 == 1.0}) one of the listed values or matches one of the listed regular expressions; a null in
 * the list also matches a missing or undefined value. {@code $nin} is its negation at the path level.
 */
final class InSet implements ValuePredicate {
    private final NavigableSet<BsonValue> equalities;
    private final List<RegexPredicate> regexes = new ArrayList<>();
    private final boolean hasNull;

    /**
     * @param operator {@code $in} or {@code $nin}, for messages
     * @param collation the query's collation: strings equal under it match
     * @throws CommandException BadValue when the argument is not an array ("$in needs an array"), or holds
     *     undefined or an operator document ("cannot nest $ under $in")
     */
    InSet(String operator, BsonValue argument, Collation collation) {
        equalities = new TreeSet<>((a, b) -> BsonOrder.compare(a, b, collation));
        if (!argument.isArray()) {
            throw new CommandException(ErrorCode.BadValue, operator + " needs an array");
        }
        for (BsonValue element : argument.asArray()) {
            switch (element.getBsonType()) {
                case UNDEFINED -> throw new CommandException(ErrorCode.BadValue, operator + " cannot contain undefined");
                case REGULAR_EXPRESSION -> regexes.add(RegexPredicate.of(element.asRegularExpression()));
                case DOCUMENT -> {
                    if (FieldOperators.isOperatorDocument(element)) {
                        throw new CommandException(ErrorCode.BadValue, "cannot nest $ under " + operator);
                    }
                    equalities.add(element);
                }
                default -> equalities.add(element);
            }
        }
        hasNull = argument.asArray().contains(BsonNull.VALUE);
    }

    @Override
    public boolean test(@Nullable BsonValue value) {
        if (value == null || value.getBsonType() == BsonType.UNDEFINED) {
            return hasNull;
        }
        return equalities.contains(value) || regexes.stream().anyMatch(regex -> regex.test(value));
    }
}
