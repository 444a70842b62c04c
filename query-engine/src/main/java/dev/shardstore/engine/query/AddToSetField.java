package dev.shardstore.engine.query;

import dev.shardstore.contracts.bson.BsonOrder;
import dev.shardstore.contracts.bson.Collation;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * {@code $addToSet} (MongoDB manual, "$addToSet"): appends the value, or each value of {@code {$each: [..]}},
 * unless the array already holds an equal one (BSON order equality under the statement's collation, so {@code 1}
 * equals {@code 1.0} and, at strength 2, {@code "a"} equals {@code "A"}; documents must match field order); creates
 * the field when missing. A value that is an array is added as one element.
 *
 * <p>Errors (BadValue, 2): "Cannot apply $addToSet to non-array field. Field named 'a' has non-array type int";
 * "The argument to $each in $addToSet must be an array but it was of type int"; "Found unexpected fields after
 * $each in $addToSet".
 *
 * @param path the update path, for messages
 * @param values the values to add
 * @param collation the statement's collation
 */
record AddToSetField(String path, List<BsonValue> values, Collation collation) implements UpdateOperation {
    /** @throws CommandException as listed on the class */
    static AddToSetField parse(String path, BsonValue argument, Collation collation) {
        if (!argument.isDocument() || argument.asDocument().isEmpty() || !argument.asDocument().getFirstKey().equals("$each")) {
            return new AddToSetField(path, List.of(argument), collation);
        }
        BsonDocument modifiers = argument.asDocument();
        if (modifiers.size() > 1) {
            throw new CommandException(ErrorCode.BadValue,
                    "Found unexpected fields after $each in $addToSet: " + modifiers.toJson());
        }
        BsonValue each = modifiers.values().iterator().next(); // the one field, $each
        if (!each.isArray()) {
            throw new CommandException(ErrorCode.BadValue,
                    "The argument to $each in $addToSet must be an array but it was of type " + TypeNames.of(each.getBsonType()));
        }
        return new AddToSetField(path, each.asArray().getValues(), collation);
    }

    @Override
    public boolean createsPath() {
        return true;
    }

    @Override
    public void apply(Slot slot, @Nullable BsonValue existing, UpdateContext context) {
        List<BsonValue> elements = new ArrayList<>(ArrayFields.require(existing, field -> "Cannot apply $addToSet to"
                + " non-array field. Field named '" + path + "' has non-array type " + TypeNames.of(field.getBsonType())));
        boolean added = false;
        for (BsonValue value : values) {
            if (elements.stream().noneMatch(element -> BsonOrder.compare(element, value, collation) == 0)) {
                elements.add(Values.copy(value));
                added = true;
            }
        }
        if (existing == null || added) {
            slot.set(new BsonArray(elements));
        }
    }
}
