package dev.shardstore.engine.query;

import dev.shardstore.contracts.bson.BsonOrder;
import dev.shardstore.contracts.bson.Collation;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * {@code $push} (MongoDB manual, "$push"): appends a value to an array, creating the field when missing. With
 * modifiers, {@code {$each: [..], $position: p, $sort: s, $slice: n}}: inserts every {@code $each} element at
 * {@code p} (negative counts from the end), then sorts ({@code 1}/{@code -1} on whole elements in BSON order,
 * or a sort document on fields of document elements; strings ordered under the statement's collation, as MongoDB's
 * {@code PushNode}), then keeps the first {@code n} (or last {@code -n}).
 *
 * <p>Errors (BadValue, 2): "Unrecognized clause in $push: $foo"; "The argument to $each in $push must be an
 * array"; "The value for $slice must be an integer value"; "The value for $position must be an integer value";
 * "The $sort is invalid"; when applied to a non-array: "The field 'a' must be an array but is of type int".
 *
 * @param path the update path, for messages
 * @param each the values to insert
 * @param position where to insert, or {@code null} for the end
 * @param sort the order after inserting, or {@code null}
 * @param slice how many to keep (negative: from the end), or {@code null}
 */
record PushField(String path, List<BsonValue> each, @Nullable Integer position, @Nullable Comparator<BsonValue> sort,
        @Nullable Integer slice)
        implements UpdateOperation {
    private static final Set<String> CLAUSES = Set.of("$each", "$position", "$sort", "$slice");

    /** @throws CommandException as listed on the class */
    static PushField parse(String path, BsonValue argument, Collation collation) {
        if (!(argument instanceof BsonDocument modifiers) || !modifiers.containsKey("$each")) {
            return new PushField(path, List.of(argument), null, null, null);
        }
        for (String clause : modifiers.keySet()) {
            if (!CLAUSES.contains(clause)) {
                throw new CommandException(ErrorCode.BadValue, "Unrecognized clause in $push: " + clause);
            }
        }
        BsonValue each = modifiers.get("$each");
        if (!each.isArray()) {
            throw new CommandException(ErrorCode.BadValue, "The argument to $each in $push must be an array but it was of type: "
                    + TypeNames.of(each.getBsonType()));
        }
        return new PushField(path, each.asArray().getValues(), integer(modifiers.get("$position"), "$position"),
                modifiers.containsKey("$sort") ? sortOrder(modifiers.get("$sort"), collation) : null,
                integer(modifiers.get("$slice"), "$slice"));
    }

    private static @Nullable Integer integer(@Nullable BsonValue value, String clause) {
        if (value == null) {
            return null;
        }
        if ((value.isNumber() || value.isDecimal128())) {
            double d = value.isDecimal128() ? value.asDecimal128().doubleValue() : value.asNumber().doubleValue();
            if (d == Math.rint(d) && !Double.isInfinite(d)) {
                return (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, d));
            }
        }
        throw new CommandException(ErrorCode.BadValue, "The value for " + clause
                + " must be an integer value but was given type: " + TypeNames.of(value.getBsonType()));
    }

    /** The whole-element order for 1/-1, or a {@link Sort} on the fields of document elements, under {@code collation}. */
    static Comparator<BsonValue> sortOrder(BsonValue spec, Collation collation) {
        if (spec.isNumber() && Math.abs(spec.asNumber().doubleValue()) == 1) {
            Comparator<BsonValue> ascending = (a, b) -> BsonOrder.compare(a, b, collation);
            return spec.asNumber().doubleValue() > 0 ? ascending : ascending.reversed();
        }
        if (spec.isDocument() && !spec.asDocument().isEmpty()) {
            for (Map.Entry<String, BsonValue> key : spec.asDocument().entrySet()) {
                if (key.getKey().startsWith("$") || !key.getValue().isNumber()
                        || Math.abs(key.getValue().asNumber().doubleValue()) != 1) {
                    throw invalidSort();
                }
            }
            Comparator<BsonDocument> byFields = Sort.parse(spec.asDocument(), collation).comparator();
            return Comparator.comparing(element -> element.isDocument() ? element.asDocument() : new BsonDocument(), byFields);
        }
        throw invalidSort();
    }

    private static CommandException invalidSort() {
        return new CommandException(ErrorCode.BadValue,
                "The $sort is invalid: use 1/-1 to sort the whole element, or {field:1/-1} to sort embedded fields");
    }

    @Override
    public boolean createsPath() {
        return true;
    }

    @Override
    public void apply(Slot slot, @Nullable BsonValue existing, UpdateContext context) {
        List<BsonValue> elements = new ArrayList<>(ArrayFields.require(existing, field -> "The field '" + path
                + "' must be an array but is of type " + TypeNames.of(field.getBsonType()) + " in document "
                + Values.element("_id", context.root().get("_id", new BsonDocument()))));
        int at = position == null ? elements.size()
                : position >= 0 ? Math.min(position, elements.size()) : Math.max(0, elements.size() + position);
        elements.addAll(at, each.stream().map(Values::copy).toList());
        if (sort != null) {
            elements.sort(sort);
        }
        if (slice != null) {
            elements = slice >= 0 ? elements.subList(0, Math.min(slice, elements.size()))
                    : elements.subList(Math.max(0, elements.size() + slice), elements.size());
        }
        slot.set(new BsonArray(new ArrayList<>(elements)));
    }
}
