package dev.shardstore.engine.bounds;

import dev.shardstore.contracts.bson.BsonOrder;
import dev.shardstore.contracts.keystring.KeyString;
import dev.shardstore.contracts.keystring.Ordering;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;
import java.util.function.UnaryOperator;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonDateTime;
import org.bson.BsonDouble;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * Index bounds derived from a filter, as MongoDB's planner derives them for the predicates it can use:
 * per key field, equality ({@code {a: v}}, {@code $eq}) and {@code $in} give points, {@code $gt $gte $lt
 * $lte} give a range within the value's type bracket (numbers: {@code [-inf.0, inf.0]}, strings:
 * {@code ["", {})}, dates: {@code [Date(min long), Date(max long)]}; other types: {@code [MinKey, MaxKey]}, looser
 * than MongoDB but never too tight),
 * all AND-ed at the top level or in {@code $and}. Anything else ({@code $or}, {@code $ne}, {@code
 * $regex}, arrays as values, ...) leaves the field unbounded. The filter is still applied to every
 * fetched document, so bounds only need to contain every match.
 *
 * <p>On a multikey index, ranges on one field are not intersected (one element may satisfy {@code $gt}
 * and another {@code $lt}): the first range is used, as MongoDB does.
 *
 * <p>The scan is a list of KeyString ranges {@code [low, high)}: the cross product of the leading point
 * fields, then the interval of the next field; later fields are unbounded.
 *
 * @param fields       the per-field intervals the scan uses, in index order (unused fields: {@code [MinKey, MaxKey]})
 * @param ranges       the KeyString ranges, in index order
 * @param pointPrefix  how many leading fields are points
 * @param bounded      whether the first field is constrained at all
 */
public record IndexBounds(List<List<Interval>> fields, List<KeyRange> ranges, int pointPrefix, boolean bounded) {
    /** Most point combinations turned into ranges; beyond that the prefix is shortened. */
    static final int MAX_RANGES = 1000;

    /** A KeyString range {@code [low, high)}. */
    public record KeyRange(byte[] low, byte[] high) {
        @Override
        public String toString() {
            return "[" + Arrays.toString(low) + ", " + Arrays.toString(high) + ")";
        }
    }

    /**
     * Bounds of the key {@code fields} (with their {@code ordering}) for {@code filter} ({@code null}:
     * everything); {@code multikey}: whether a field may hold array elements.
     */
    public static IndexBounds derive(BsonDocument filter, List<String> fields, Ordering ordering, boolean multikey) {
        return derive(filter, fields, ordering, multikey, UnaryOperator.identity());
    }

    /**
     * Bounds as {@link #derive(BsonDocument, List, Ordering, boolean)}, for an index that stores each value as
     * {@code keyOf} maps it (an index with a collation stores strings as collation keys): every operand of an
     * equality, {@code $in} or comparison is mapped before it becomes a bound. {@code keyOf} must keep a value in its
     * type bracket and preserve the order the index's keys are in.
     */
    public static IndexBounds derive(BsonDocument filter, List<String> fields, Ordering ordering, boolean multikey,
            UnaryOperator<BsonValue> keyOf) {
        List<List<Interval>> perField = new ArrayList<>();
        for (String field : fields) {
            perField.add(field(filter == null ? new BsonDocument() : filter, field, multikey, keyOf));
        }
        return build(perField, ordering);
    }

    /** Full-range bounds: every entry of the index (a hinted index with no usable predicate). */
    public static IndexBounds all(List<String> fields, Ordering ordering) {
        List<List<Interval>> perField = new ArrayList<>();
        fields.forEach(f -> perField.add(List.of(Interval.ALL)));
        return build(perField, ordering);
    }

    private static IndexBounds build(List<List<Interval>> perField, Ordering ordering) {
        int n = perField.size();
        int points = 0;
        long combinations = 1;
        while (points < n && allPoints(perField.get(points))
                && combinations * Math.max(1, perField.get(points).size()) <= MAX_RANGES) {
            combinations *= Math.max(1, perField.get(points).size());
            points++;
        }
        List<List<Interval>> used = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            used.add(i <= points ? perField.get(i) : List.of(Interval.ALL));
        }
        List<KeyRange> ranges = new ArrayList<>();
        expand(used, ordering, points, 0, new ArrayList<>(), ranges);
        boolean bounded = !(used.getFirst().size() == 1 && used.getFirst().getFirst().isAll());
        return new IndexBounds(used, ranges, points, bounded);
    }

    private static boolean allPoints(List<Interval> intervals) {
        return intervals.stream().allMatch(Interval::isPoint);
    }

    private static void expand(List<List<Interval>> used, Ordering ordering, int points, int i, List<BsonValue> prefix,
            List<KeyRange> out) {
        if (i == points) {
            if (points == used.size()) {
                byte[] p = KeyString.encode(prefix, prefixOrdering(ordering, points));
                out.add(new KeyRange(p, KeyString.afterPrefix(p)));
                return;
            }
            boolean desc = ordering.isDescending(points);
            for (Interval iv : desc ? used.get(points).reversed() : used.get(points)) {
                BsonValue first = desc ? iv.high() : iv.low();
                boolean firstIn = desc ? iv.highInclusive() : iv.lowInclusive();
                BsonValue last = desc ? iv.low() : iv.high();
                boolean lastIn = desc ? iv.lowInclusive() : iv.highInclusive();
                Ordering o = prefixOrdering(ordering, points + 1);
                byte[] low = encodeWith(prefix, first, o);
                byte[] high = encodeWith(prefix, last, o);
                out.add(new KeyRange(firstIn ? low : KeyString.afterPrefix(low), lastIn ? KeyString.afterPrefix(high) : high));
            }
            return;
        }
        List<Interval> intervals = new ArrayList<>(used.get(i));
        if (ordering.isDescending(i)) {
            intervals = intervals.reversed();
        }
        for (Interval iv : intervals) {
            prefix.add(iv.low());
            expand(used, ordering, points, i + 1, prefix, out);
            prefix.removeLast();
        }
    }

    private static byte[] encodeWith(List<BsonValue> prefix, BsonValue v, Ordering o) {
        List<BsonValue> key = new ArrayList<>(prefix);
        key.add(v);
        return KeyString.encode(key, o);
    }

    private static Ordering prefixOrdering(Ordering ordering, int n) {
        return new Ordering(ordering.directions().subList(0, n)); // n >= 1: an index has at least one field
    }

    /** The intervals of one field: sorted distinct points, one range, or {@code [MinKey, MaxKey]}. */
    static List<Interval> field(BsonDocument filter, String field, boolean multikey, UnaryOperator<BsonValue> keyOf) {
        List<BsonValue> conditions = new ArrayList<>();
        collect(filter, field, conditions);
        TreeSet<BsonValue> points = null;
        Interval range = null;
        for (BsonValue condition : conditions) {
            if (condition.isDocument() && isOperatorDocument(condition.asDocument())) {
                for (var op : condition.asDocument().entrySet()) {
                    BsonValue v = keyOf.apply(op.getValue());
                    switch (op.getKey()) {
                        case "$eq" -> points = intersect(points, equalityPoints(v));
                        case "$in" -> points = intersect(points, inPoints(v));
                        case "$gt", "$gte", "$lt", "$lte" -> {
                            Interval r = range(op.getKey(), v);
                            if (r != null) {
                                range = range == null ? r : multikey ? range : range.intersect(r);
                            }
                        }
                        default -> { } // does not narrow the bounds
                    }
                }
            } else {
                points = intersect(points, equalityPoints(keyOf.apply(condition)));
            }
        }
        if (points != null) {
            Interval within = multikey ? null : range;
            return points.stream().filter(p -> within == null || within.contains(p)).map(Interval::point).toList();
        }
        if (range != null) {
            return range.isEmpty() ? List.of() : List.of(range);
        }
        return List.of(Interval.ALL);
    }

    private static boolean isOperatorDocument(BsonDocument d) {
        return !d.isEmpty() && d.getFirstKey().startsWith("$");
    }

    /** The field's conditions at the top level and in nested {@code $and}s. */
    private static void collect(BsonDocument filter, String field, List<BsonValue> out) {
        for (var e : filter.entrySet()) {
            if (e.getKey().equals(field)) {
                out.add(e.getValue());
            } else if (e.getKey().equals("$and") && e.getValue().isArray()) {
                for (BsonValue clause : e.getValue().asArray()) {
                    if (clause.isDocument()) {
                        collect(clause.asDocument(), field, out);
                    }
                }
            }
        }
    }

    /** Points of an equality; null (unbounded) for values the index cannot look up as a point. */
    private static @Nullable TreeSet<BsonValue> equalityPoints(BsonValue v) {
        if (v.isArray() || v.isRegularExpression() || (v.getBsonType() == org.bson.BsonType.MIN_KEY) || (v.getBsonType() == org.bson.BsonType.MAX_KEY)) {
            return null;
        }
        TreeSet<BsonValue> set = new TreeSet<>(BsonOrder.COMPARATOR);
        set.add(v);
        return set;
    }

    private static @Nullable TreeSet<BsonValue> inPoints(BsonValue v) {
        if (!v.isArray()) {
            return null;
        }
        TreeSet<BsonValue> set = new TreeSet<>(BsonOrder.COMPARATOR);
        for (BsonValue e : v.asArray()) {
            if (e.isArray() || e.isRegularExpression() || (e.getBsonType() == org.bson.BsonType.MIN_KEY) || (e.getBsonType() == org.bson.BsonType.MAX_KEY)) {
                return null;
            }
            set.add(e);
        }
        return set;
    }

    /** AND of two point sets; null stands for "unbounded" and leaves the other. */
    private static @Nullable TreeSet<BsonValue> intersect(@Nullable TreeSet<BsonValue> a, @Nullable TreeSet<BsonValue> b) {
        if (a == null) {
            return b;
        }
        if (b == null) {
            return a;
        }
        TreeSet<BsonValue> out = new TreeSet<>(BsonOrder.COMPARATOR);
        a.stream().filter(b::contains).forEach(out::add);
        return out;
    }

    /** A comparison's interval within the value's type bracket; null when it does not narrow. */
    private static @Nullable Interval range(String op, BsonValue v) {
        BsonValue min;
        BsonValue max;
        boolean maxInclusive = true;
        if (v.isNumber() || v.isDecimal128()) {
            if (v.isDouble() && Double.isNaN(v.asDouble().getValue())) {
                return null;
            }
            min = new BsonDouble(Double.NEGATIVE_INFINITY);
            max = new BsonDouble(Double.POSITIVE_INFINITY);
        } else if (v.isString()) {
            min = new BsonString("");
            max = new BsonDocument();
            maxInclusive = false;
        } else if (v.isDateTime()) {
            // MongoDB's date bracket; time-series bucket bounds (control.min/max) and shard keys on them need it
            min = new BsonDateTime(Long.MIN_VALUE);
            max = new BsonDateTime(Long.MAX_VALUE);
        } else {
            return null;
        }
        return switch (op) {
            case "$gt" -> new Interval(v, false, max, maxInclusive);
            case "$gte" -> new Interval(v, true, max, maxInclusive);
            case "$lt" -> new Interval(min, true, v, false);
            default -> new Interval(min, true, v, true);
        };
    }

    /** Explain's {@code indexBounds}: per field its intervals rendered, in index order. */
    public BsonDocument explain(List<String> names, Ordering ordering) {
        BsonDocument out = new BsonDocument();
        for (int i = 0; i < names.size(); i++) {
            BsonArray rendered = new BsonArray();
            List<Interval> intervals = fields.get(i);
            if (ordering.isDescending(i)) {
                intervals = intervals.reversed();
            }
            for (Interval iv : intervals) {
                rendered.add(new BsonString(iv.render(ordering.isDescending(i))));
            }
            out.append(names.get(i), rendered);
        }
        return out;
    }
}
