package dev.shardstore.engine.query;

import dev.shardstore.contracts.bson.BsonOrder;
import dev.shardstore.contracts.bson.Collation;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * {@code $pull} and {@code $pullAll} (MongoDB manual, "$pull", "$pullAll"): remove every element that matches.
 * <ul>
 *   <li>{@code $pull: {a: <value>}}: elements equal to the value (BSON order, so {@code 1} equals {@code 1.0};
 *       an array value removes equal arrays); a regex removes the strings it matches;</li>
 *   <li>{@code $pull: {a: {$gte: 6}}} and {@code $pull: {a: /^x/}}: elements that the condition matches the way a
 *       query matches a field's value: MongoDB matches the filter {@code {"": <condition>}} against
 *       {@code {"": <element>}} (its {@code PullNode} "wrapped" matcher), so unlike {@code $elemMatch} an element
 *       that is an array is searched ({@code {$gte: 6}} removes {@code [7, 1]});</li>
 *   <li>{@code $pull: {a: {b: 1, c: {$gt: 2}}}} (any document whose first key is not an operator): document
 *       elements that match the filter, each one matched like a whole document (MongoDB manual, "$pull"; its
 *       {@code PullNode} "object" matcher); arrays and scalars are kept;</li>
 *   <li>{@code $pullAll: {a: [v1, v2]}}: elements equal to one of the values.</li>
 * </ul>
 * Equality and conditions compare strings under the statement's collation (MongoDB's {@code PullNode} and
 * {@code PullAllNode} take the collator); a missing field is left alone.
 *
 * <p>Errors (BadValue, 2): "Cannot apply $pull to a non-array value"; "$pullAll requires an array argument but
 * was given a int"; and those of the condition's filter.
 *
 * @param operator {@code $pull} or {@code $pullAll}, for messages
 * @param removes which elements go
 */
record PullField(String operator, Predicate<BsonValue> removes) implements UpdateOperation {
    /** The field name under which an operator or regex condition and each element are wrapped to be matched. */
    private static final String WRAPPER = "";

    /** {@code $pull} under {@code collation}. @throws CommandException as listed on the class */
    static PullField pull(BsonValue condition, Collation collation) {
        FilterParser parser = FilterParser.withoutExpr(collation);
        if (condition.isDocument() && !ElemMatch.isOperatorForm(condition.asDocument())) {
            Matcher filter = parser.parse(condition.asDocument());
            return new PullField("$pull", element -> element.isDocument() && filter.matches(element.asDocument()));
        }
        if (condition.isDocument() || condition.isRegularExpression()) {
            Matcher wrapped = parser.parse(new BsonDocument(WRAPPER, condition));
            return new PullField("$pull", element -> wrapped.matches(new BsonDocument(WRAPPER, element)));
        }
        return new PullField("$pull", element -> BsonOrder.compare(element, condition, collation) == 0);
    }

    /** {@code $pullAll} under {@code collation}. @throws CommandException as listed on the class */
    static PullField pullAll(BsonValue values, Collation collation) {
        if (!values.isArray()) {
            throw new CommandException(ErrorCode.BadValue,
                    "$pullAll requires an array argument but was given a " + TypeNames.of(values.getBsonType()));
        }
        List<BsonValue> all = values.asArray().getValues();
        return new PullField("$pullAll", element -> all.stream().anyMatch(value -> BsonOrder.compare(element, value, collation) == 0));
    }

    @Override
    public boolean createsPath() {
        return false;
    }

    @Override
    public void apply(Slot slot, @Nullable BsonValue existing, UpdateContext context) {
        List<BsonValue> elements = ArrayFields.require(existing, field -> "Cannot apply " + operator + " to a non-array value");
        List<BsonValue> kept = elements.stream().filter(removes.negate()).toList();
        if (kept.size() != elements.size()) {
            slot.set(new BsonArray(new ArrayList<>(kept)));
        }
    }
}
