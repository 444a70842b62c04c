package dev.shardstore.engine.query;

import dev.shardstore.contracts.bson.BsonLimits;
import dev.shardstore.contracts.error.CommandException;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonUndefined;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * Dotted-path resolution with MongoDB's implicit array traversal, shared by {@link Filter}, {@link Sort}
 * and the update and projection code.
 *
 * <p>{@link #resolve} in {@link Mode#MATCH} follows MongoDB's {@code BSONElementIterator}
 * ({@code src/mongo/db/matcher/path.cpp}), which implements the manual's rules for dot notation through arrays
 * ("Query an Array", "Query an Array of Embedded Documents", "Query on Embedded/Nested Documents"):
 * <ul>
 *   <li>the path descends through embedded documents; a missing field, or a scalar where a document is
 *       needed, yields <em>missing</em> (Java {@code null});</li>
 *   <li>an array reached through a field name is traversed implicitly, one level: each element that is a
 *       document is searched for the rest of the path (so a document without the field yields missing); an
 *       element that is itself an array is not searched by a field name ({@code "a.b"} reaches nothing in
 *       {@code {a: [[{b: 1}]]}}), and scalar elements yield nothing;</li>
 *   <li>a numeric component {@code n} after an array does two things: it looks up the field {@code "n"} in the
 *       element documents (the rule above), and it indexes the array ("Query an Array": query for an element by
 *       the array index position); so {@code "a.0.b"} reaches {@code a[0].b} and a field named {@code "0"} in
 *       the elements. The indexed element is one value: at the end of the path it is yielded as it is, even when
 *       it is an array ({@code {"a.0": [1, 2]}} matches {@code {a: [[1, 2]]}}, {@code {"a.0": 1}} does not);
 *       before the end, an indexed array is traversed by the rest of the path like an array reached through a
 *       field ({@code "a.0.0"} reaches {@code 1} there, {@code "a.0.b"} reaches {@code 1} in
 *       {@code {a: [[{b: 1}]]}});</li>
 *   <li>an array at the end of the path reached through a field name yields each element and then the array
 *       itself, so that the array is matched as a whole and element by element ({@code {a: [1, 2]}} matches
 *       both {@code {a: 1}} and {@code {a: [1, 2]}}, and {@code {a: {"0": [42]}}} matches {@code {"a.0": 42}});
 *       elements that are arrays are yielded whole, never searched ({@code {a: 1}} does not match
 *       {@code {a: [[1]]}}).</li>
 * </ul>
 * MongoDB's {@code jstests/core/match_numeric_components.js} pins these rules for numeric components; the filter
 * test tables carry its cases.
 * {@link Mode#SORT_KEY} is the view of MongoDB's index-key generator, which sort keys use: a number after
 * an array is a position only, and an array at the end of the path yields its elements only, or
 * {@code undefined} when it is empty.
 */
public final class Paths {
    /** Which of MongoDB's two views of a path through arrays to take. */
    public enum Mode {
        /** The query matcher's view. */
        MATCH,
        /** The index-key (and sort-key) generator's view. */
        SORT_KEY,
        /**
         * The view of MongoDB's array operators ({@code $size}, {@code $elemMatch}, {@code $all} of
         * {@code $elemMatch}es; its {@code LeafArrayBehavior::kNoTraversal}): as {@link #MATCH}, but an array at the
         * end of the path yields only the array itself, not its elements, since these operators test arrays, not
         * their elements (MongoDB manual, "$size", "$elemMatch (query)").
         */
        WHOLE_ARRAY
    }

    private Paths() {}

    /**
     * Splits a dotted path into its components ({@code "a.b.0"} → {@code [a, b, 0]}).
     *
     * @throws CommandException Overflow (15) for a path of more than {@link BsonLimits#MAX_DEPTH} components: it
     *     could reach nothing (no document nests that deep), and the code walking paths recurses once per component
     */
    public static List<String> split(String path) {
        List<String> components = List.of(path.split("\\.", -1));
        if (components.size() > BsonLimits.MAX_DEPTH) {
            throw BsonLimits.tooDeep(BsonLimits.MAX_DEPTH, "the path '" + (path.length() > 60 ? path.substring(0, 60) + "..." : path)
                    + "' of " + components.size() + " components");
        }
        return components;
    }

    /** Whether a path component is an array index: all ASCII digits, as MongoDB's {@code str::isAllDigits}. */
    public static boolean isIndex(String component) {
        if (component.isEmpty()) {
            return false;
        }
        for (int i = 0; i < component.length(); i++) {
            char c = component.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    /**
     * Every value the path reaches in {@code doc}, in document order; a {@code null} entry stands for
     * a missing value. An empty list means the path ran into an array that offered nothing to follow
     * (e.g. {@code "a.b"} in {@code {a: [1, 2]}} or {@code {a: []}}).
     */
    public static List<BsonValue> resolve(BsonDocument doc, List<String> path, Mode mode) {
        List<BsonValue> out = new ArrayList<>();
        descend(doc, path, 0, mode, NO_POSITION, (value, position) -> out.add(value));
        return out;
    }

    /** A value {@link #resolveWithPositions} reached, and the position it was reached through. */
    record Reached(@Nullable BsonValue value, int position) {}

    /** No array was traversed implicitly on the way to a value. */
    static final int NO_POSITION = -1;

    /**
     * As {@link #resolve}, with each value's position in the first array the path traversed implicitly (an
     * element reached at or through it), or {@link #NO_POSITION} (a value reached without such an array, or a
     * whole array at the end of the path): MongoDB's {@code elemMatchKey}, which the positional {@code $}
     * update operator uses.
     */
    static List<Reached> resolveWithPositions(BsonDocument doc, List<String> path, Mode mode) {
        List<Reached> out = new ArrayList<>();
        descend(doc, path, 0, mode, NO_POSITION, (value, position) -> out.add(new Reached(value, position)));
        return out;
    }

    /** Receives each value reached and its position. */
    @FunctionalInterface
    private interface Sink {
        void accept(@Nullable BsonValue value, int position);
    }

    /**
     * {@code value} is what the components before {@code index} reached ({@code null}: missing), through
     * the array position {@code position}.
     */
    private static void descend(@Nullable BsonValue value, List<String> path, int index, Mode mode, int position, Sink out) {
        if (value != null && value.isArray()) {
            fromArray(value.asArray(), path, index, mode, position, out);
        } else if (index == path.size()) {
            out.accept(value, position);
        } else if (value == null || !value.isDocument()) {
            out.accept(null, position);
        } else {
            descend(value.asDocument().get(path.get(index)), path, index + 1, mode, position, out);
        }
    }

    /** {@code index} is the position, in {@code path}, of the component after the array. */
    private static void fromArray(BsonArray array, List<String> path, int index, Mode mode, int position, Sink out) {
        if (index == path.size()) {
            switch (mode) {
                case MATCH -> {
                    elements(array, position, out);
                    out.accept(array, position);
                }
                case WHOLE_ARRAY -> out.accept(array, position);
                case SORT_KEY -> {
                    elements(array, position, out);
                    if (array.isEmpty()) {
                        out.accept(new BsonUndefined(), position);
                    }
                }
            }
            return;
        }
        String next = path.get(index);
        if (mode == Mode.SORT_KEY && isIndex(next)) {
            int at = next.length() > 9 ? Integer.MAX_VALUE : Integer.parseInt(next);
            descend(at < array.size() ? array.get(at) : null, path, index + 1, mode, position, out);
            return;
        }
        for (int i = 0; i < array.size(); i++) {
            BsonValue element = array.get(i);
            if (element.isDocument()) {
                descend(element, path, index, mode, position == NO_POSITION ? i : position, out);
            }
            if (!next.equals(Integer.toString(i))) {
                continue;
            }
            if (index + 1 == path.size()) {
                out.accept(element, position);
            } else if (element.isDocument() || element.isArray()) {
                descend(element, path, index + 1, mode, position, out);
            }
        }
    }

    private static void elements(BsonArray array, int position, Sink out) {
        for (int i = 0; i < array.size(); i++) {
            out.accept(array.get(i), position == NO_POSITION ? i : position);
        }
    }
}
