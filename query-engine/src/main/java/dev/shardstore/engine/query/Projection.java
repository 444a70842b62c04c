package dev.shardstore.engine.query;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * A parsed find projection (MongoDB manual, "Project Fields to Return from Query", "Projection
 * Restrictions"). Immutable and thread-safe.
 *
 * <p>Shape: {@code {<path>: 1|true|0|false, ...}}, dotted or nested ({@code {a: {b: 1}}} is
 * {@code {"a.b": 1}}). Either an inclusion (only the listed fields) or an exclusion (all but the listed
 * fields); {@code _id} is included unless {@code _id: 0}, which is the one exclusion allowed in an inclusion.
 * Paths reach through arrays of documents: {@code {"a.b": 1}} on {@code {a: [{b: 1, c: 2}, 3]}} gives
 * {@code {a: [{b: 1}]}} (an inclusion drops the scalars of the array, an exclusion keeps them). Fields keep
 * the document's order. {@code {}} returns the document as is.
 *
 * <p>Operators: {@code {path: {$slice: n | [skip, limit]}}} ({@link ProjectionSlice}; neither inclusion nor
 * exclusion, so {@code {a: {$slice: 2}}} alone returns every field) and {@code {field: {$elemMatch: ...}}}
 * ({@link ProjectionElemMatch}; an inclusion), and the positional {@code {"<path>.$": 1}} (an inclusion of the path
 * that keeps, of the first array along it, only the element by which the query matched: {@link #apply(BsonDocument,
 * Filter)}; MongoDB manual, "$ (projection)").
 *
 * <p>Errors, all BadValue (2) here: "Cannot do exclusion on field b in inclusion projection" (31254 in
 * MongoDB) and the inclusion-in-exclusion twin (31253); "Path collision at a.b" (31249/31250); an empty
 * sub-projection (51270); the operators' errors ("Cannot specify more than one positional projection per
 * query.", "Positional projection may only be used at the end"); values that are neither numbers nor booleans,
 * the operator {@code $meta} and {@code $}-prefixed or empty field names, which this engine does not support yet.
 */
public final class Projection {
    private final Node root;
    private final boolean inclusion;
    private final List<ProjectionSlice> slices;
    private final List<ProjectionElemMatch> elemMatches;
    private final List<String> positional;

    private Projection(Node root, boolean inclusion, List<ProjectionSlice> slices, List<ProjectionElemMatch> elemMatches,
            List<String> positional) {
        this.root = root;
        this.inclusion = inclusion;
        this.slices = slices;
        this.elemMatches = elemMatches;
        this.positional = positional;
    }

    /** The projection operators found while flattening a spec; {@code positional}: the path of {@code <path>.$}. */
    private record Operators(Map<String, ProjectionSlice> slices, List<ProjectionElemMatch> elemMatches,
            List<List<String>> positional) {}

    /**
     * Parses a projection; the argument is not retained.
     *
     * @throws CommandException BadValue (2) as listed on the class
     */
    public static Projection parse(BsonDocument spec) {
        Map<String, Boolean> fields = new LinkedHashMap<>();
        Operators operators = new Operators(new LinkedHashMap<>(), new ArrayList<>(), new ArrayList<>());
        flatten("", spec, fields, operators);
        Boolean includeId = fields.remove("_id");
        Boolean mode = null;
        for (Map.Entry<String, Boolean> field : fields.entrySet()) {
            if (mode == null) {
                mode = field.getValue();
            } else if (!mode.equals(field.getValue())) {
                throw new CommandException(ErrorCode.BadValue, "Cannot do " + (mode ? "exclusion" : "inclusion")
                        + " on field " + field.getKey() + " in " + (mode ? "inclusion" : "exclusion") + " projection");
            }
        }
        boolean inclusion = mode != null ? mode : Boolean.TRUE.equals(includeId);
        boolean idByDefault = inclusion && fields.keySet().stream().noneMatch(path -> path.startsWith("_id."));
        if (includeId != null ? includeId == inclusion : idByDefault) {
            fields.put("_id", inclusion);
        }
        Node root = new Node(new LinkedHashMap<>());
        fields.keySet().forEach(path -> root.add(path, Paths.split(path)));
        if (inclusion) {
            operators.slices().keySet().forEach(path -> root.add(path, Paths.split(path)));
        }
        return new Projection(root, inclusion, List.copyOf(operators.slices().values()), List.copyOf(operators.elemMatches()),
                operators.positional().isEmpty() ? List.of() : operators.positional().getFirst());
    }

    /**
     * The projected copy of {@code doc} when it matched {@code filter}, which a positional projection needs
     * ({@link Filter#matchedPosition}); {@code doc} is not modified.
     *
     * @throws CommandException BadValue (2) for a positional projection when the query matched {@code doc}
     *     without an array position ("positional operator '.$' couldn't find a matching element in the array")
     */
    public BsonDocument apply(BsonDocument doc, Filter filter) {
        BsonDocument result = apply(doc);
        if (!positional.isEmpty()) {
            OptionalInt position = filter.matchedPosition(doc);
            if (position.isEmpty() || !keepOnlyPosition(result, position.getAsInt())) {
                throw new CommandException(ErrorCode.BadValue,
                        "positional operator '.$' couldn't find a matching element in the array");
            }
        }
        return result;
    }

    /** Replaces the first array along the positional path by its element at {@code position}; false if none. */
    private boolean keepOnlyPosition(BsonDocument result, int position) {
        BsonDocument container = result;
        for (String component : positional) {
            BsonValue value = container.get(component);
            if (value != null && value.isArray()) {
                if (position >= value.asArray().size()) {
                    return false;
                }
                container.put(component, new BsonArray(List.of(value.asArray().get(position))));
                return true;
            }
            if (value == null || !value.isDocument()) {
                return false;
            }
            container = value.asDocument();
        }
        return false;
    }

    /**
     * The projected copy of {@code doc}, for a projection without the positional {@code $}; {@code doc} is not
     * modified.
     */
    public BsonDocument apply(BsonDocument doc) {
        BsonDocument result = root.children.isEmpty() ? Values.copy(doc) : inclusion ? include(doc, root) : exclude(doc, root);
        elemMatches.forEach(elemMatch -> elemMatch.applyTo(doc, result));
        slices.forEach(slice -> slice.applyTo(result));
        return result;
    }

    private static void flatten(String prefix, BsonDocument spec, Map<String, Boolean> into, Operators operators) {
        for (Map.Entry<String, BsonValue> entry : spec.entrySet()) {
            String name = entry.getKey();
            String path = prefix + name;
            if (name.endsWith(".$") && !name.equals(".$")) {
                path = path.substring(0, path.length() - 2);
                positional(path, entry.getValue(), operators);
                put(into, path, true);
                continue;
            }
            if (Paths.split(name).stream().anyMatch(component -> component.isEmpty() || component.startsWith("$"))) {
                throw new CommandException(ErrorCode.BadValue, "projection field path '" + path
                        + "' is not supported: field names may not be empty or start with '$'");
            }
            BsonValue value = entry.getValue();
            if (value.isDocument()) {
                BsonDocument sub = value.asDocument();
                if (sub.isEmpty()) {
                    throw new CommandException(ErrorCode.BadValue,
                            "An empty sub-projection is not a valid value. Found empty object at path " + path);
                }
                switch (sub.getFirstKey()) { // an operator's argument is the first field's value
                    case "$slice" -> {
                        if (operators.slices().put(path, ProjectionSlice.parse(path, sub.values().iterator().next())) != null) {
                            throw new CommandException(ErrorCode.BadValue, "Path collision at " + path);
                        }
                    }
                    case "$elemMatch" -> {
                        operators.elemMatches().add(ProjectionElemMatch.parse(path, sub.values().iterator().next()));
                        put(into, path, true);
                    }
                    default -> {
                        if (sub.getFirstKey().startsWith("$")) {
                            throw new CommandException(ErrorCode.BadValue,
                                    "projection operator " + sub.getFirstKey() + " is not supported (field " + path + ")");
                        }
                        flatten(path + ".", sub, into, operators);
                    }
                }
            } else if (value.isBoolean() || value.isNumber() || value.isDecimal128()) {
                put(into, path, isTrue(value));
            } else {
                throw new CommandException(ErrorCode.BadValue, "projection value for field " + path
                        + " must be a number or a boolean, not " + TypeNames.of(value.getBsonType()));
            }
        }
    }

    private static void positional(String path, BsonValue value, Operators operators) {
        if (Paths.split(path).stream().anyMatch(component -> component.isEmpty() || component.startsWith("$"))) {
            throw new CommandException(ErrorCode.BadValue,
                    "Positional projection may only be used at the end, for example: a.b.$ (found " + path + ".$)");
        }
        if (!(value.isBoolean() || value.isNumber()) || !isTrue(value)) {
            throw new CommandException(ErrorCode.BadValue, "Cannot exclude a positional projection: " + path + ".$");
        }
        if (!operators.positional().isEmpty()) {
            throw new CommandException(ErrorCode.BadValue, "Cannot specify more than one positional projection per query.");
        }
        operators.positional().add(Paths.split(path));
    }

    private static void put(Map<String, Boolean> into, String path, boolean included) {
        if (into.put(path, included) != null) {
            throw new CommandException(ErrorCode.BadValue, "Path collision at " + path);
        }
    }

    private static boolean isTrue(BsonValue value) {
        return value.isBoolean() ? value.asBoolean().getValue() : value.asNumber().doubleValue() != 0;
    }

    private static BsonDocument include(BsonDocument doc, Node node) {
        BsonDocument result = new BsonDocument();
        doc.forEach((name, value) -> {
            Node child = node.children.get(name);
            if (child == null) {
                return;
            }
            BsonValue projected = child.isWholeField() ? Values.copy(value) : includeWithin(value, child);
            if (projected != null) {
                result.put(name, projected);
            }
        });
        return result;
    }

    /** The included part of a value under a sub-path; {@code null} for a scalar, which has none. */
    private static @Nullable BsonValue includeWithin(BsonValue value, Node node) {
        if (value.isDocument()) {
            return include(value.asDocument(), node);
        }
        if (!value.isArray()) {
            return null;
        }
        BsonArray result = new BsonArray();
        for (BsonValue element : value.asArray()) {
            BsonValue projected = includeWithin(element, node);
            if (projected != null) {
                result.add(projected);
            }
        }
        return result;
    }

    private static BsonDocument exclude(BsonDocument doc, Node node) {
        BsonDocument result = new BsonDocument();
        doc.forEach((name, value) -> {
            Node child = node.children.get(name);
            if (child == null) {
                result.put(name, Values.copy(value));
            } else if (!child.isWholeField()) {
                result.put(name, excludeWithin(value, child));
            }
        });
        return result;
    }

    private static BsonValue excludeWithin(BsonValue value, Node node) {
        if (value.isDocument()) {
            return exclude(value.asDocument(), node);
        }
        if (!value.isArray()) {
            return value;
        }
        BsonArray result = new BsonArray();
        value.asArray().forEach(element -> result.add(excludeWithin(element, node)));
        return result;
    }

    /** A path component; a node without children stands for the whole field. */
    private record Node(Map<String, Node> children) {
        boolean isWholeField() {
            return children.isEmpty();
        }

        void add(String path, List<String> components) {
            Node node = this;
            for (int i = 0; i < components.size(); i++) {
                Node child = node.children.get(components.get(i));
                boolean last = i == components.size() - 1;
                if (child != null && (last || child.isWholeField())) {
                    throw new CommandException(ErrorCode.BadValue, "Path collision at " + path);
                }
                if (child == null) {
                    child = new Node(new LinkedHashMap<>());
                    node.children.put(components.get(i), child);
                }
                node = child;
            }
        }
    }
}
