package dev.shardstore.engine.query;

import dev.shardstore.contracts.bson.BsonOrder;
import dev.shardstore.contracts.bson.Collation;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.math.BigInteger;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.stream.IntStream;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * The operator form of an update ({@code {$set: {...}, $unset: {...}, $inc: {...}}}) as a tree of paths,
 * MongoDB's {@code UpdateObjectNode}: interior nodes are path components, leaves are {@link UpdateOperation}s.
 * Operators: {@code $set $setOnInsert} ({@link SetField}), {@code $unset}, {@code $inc $mul}
 * ({@link ArithmeticField}), {@code $min $max} ({@link CompareField}), {@code $currentDate}, {@code $rename}
 * ({@link RenameField}: a leaf at both paths), {@code $push}, {@code $addToSet}, {@code $pop},
 * {@code $pull $pullAll} ({@link PullField}). Path components {@code $} (the array position the query matched),
 * {@code $[]} (every element) and {@code $[<identifier>]} (the elements the {@link ArrayFilters} accept) stand
 * for array positions.
 *
 * <p>Rules (MongoDB manual, "Update Operators", and each operator's page):
 * <ul>
 *   <li>fields are processed in lexicographic order of their names, numeric names (array indexes) first and in
 *       numeric order ("Starting in MongoDB 5.0, update operators process document fields with string-based names
 *       in lexicographic order"), so new fields are appended in that order;</li>
 *   <li>two operations on the same path or on a path and its prefix are ConflictingUpdateOperators (40),
 *       detected at parse time;</li>
 *   <li>dotted paths create missing intermediate documents (numeric components too: they name fields);
 *       a numeric component indexes an array; creating a field inside a scalar, or a non-numeric field
 *       inside an array, is PathNotViable (28); an operation that does not create ({@code $unset}) is a no-op
 *       along a path that does not exist.</li>
 * </ul>
 */
final class UpdateTree {
    /**
     * The operators by name. The collation-aware ones — {@code $min $max $addToSet $push} (its {@code $sort})
     * {@code $pull $pullAll}, as MongoDB's update nodes that take the statement's collator — compare strings
     * under the statement's collation; the others do not compare values.
     */
    private static final Map<String, OperatorFactory> OPERATORS = Map.ofEntries(
            Map.entry("$set", (path, value, collation) -> new SetField(value, false)),
            Map.entry("$setOnInsert", (path, value, collation) -> new SetField(value, true)),
            Map.entry("$unset", (path, value, collation) -> new UnsetField()),
            Map.entry("$inc", (path, value, collation) -> ArithmeticField.inc(path, value)),
            Map.entry("$mul", (path, value, collation) -> ArithmeticField.mul(path, value)),
            Map.entry("$min", (path, value, collation) -> new CompareField(false, value, collation)),
            Map.entry("$max", (path, value, collation) -> new CompareField(true, value, collation)),
            Map.entry("$currentDate", (path, value, collation) -> CurrentDateField.parse(path, value)),
            Map.entry("$push", PushField::parse),
            Map.entry("$addToSet", AddToSetField::parse),
            Map.entry("$pop", (path, value, collation) -> PopField.parse(path, value)),
            Map.entry("$pull", (path, value, collation) -> PullField.pull(value, collation)),
            Map.entry("$pullAll", (path, value, collation) -> PullField.pullAll(value, collation)));

    /** Makes the operation of one operator at one path. */
    @FunctionalInterface
    private interface OperatorFactory {
        /**
         * @param path the update path, for messages
         * @param value the operator's argument for that path
         * @param collation the statement's collation
         */
        UpdateOperation create(String path, BsonValue value, Collation collation);
    }

    /**
     * Array indexes in numeric order, then other names in code point order. (MongoDB compares an index with
     * a name as strings, which is not transitive; putting indexes first keeps this a total order and agrees
     * with MongoDB whenever the names under one parent are all indexes or all non-indexes.)
     */
    private static final Comparator<String> FIELD_ORDER = (a, b) -> {
        boolean indexA = Paths.isIndex(a);
        boolean indexB = Paths.isIndex(b);
        if (indexA && indexB) {
            int c = new BigInteger(a).compareTo(new BigInteger(b));
            return c != 0 ? c : a.compareTo(b);
        }
        return indexA != indexB ? Boolean.compare(indexB, indexA) : BsonOrder.compareStrings(a, b);
    };

    private final Interior root = new Interior();
    private final ArrayFilters arrayFilters;

    private UpdateTree(ArrayFilters arrayFilters) {
        this.arrayFilters = arrayFilters;
    }

    /**
     * @param update a document whose every key is an update operator
     * @param collation the statement's collation, for the operators that compare values
     * @throws CommandException FailedToParse (9) for an unknown operator or an argument that is not a
     *     document; EmptyFieldName (56), DollarPrefixedFieldName (52) or BadValue (misplaced positional
     *     operators, an identifier without array filter) for a bad path; FailedToParse for an unused array filter;
     *     ConflictingUpdateOperators (40); the operators' own errors
     */
    static UpdateTree parse(BsonDocument update, ArrayFilters arrayFilters, Collation collation) {
        UpdateTree tree = new UpdateTree(arrayFilters);
        for (Map.Entry<String, BsonValue> operator : update.entrySet()) {
            OperatorFactory factory = OPERATORS.get(operator.getKey());
            if (factory == null && !operator.getKey().equals("$rename")) {
                throw new CommandException(ErrorCode.FailedToParse, "Unknown modifier: " + operator.getKey()
                        + ". Expected a valid update modifier or pipeline-style update specified as an array");
            }
            if (!operator.getValue().isDocument()) {
                throw new CommandException(ErrorCode.FailedToParse, "Modifiers operate on fields but we found type "
                        + TypeNames.of(operator.getValue().getBsonType()) + " instead. For example: {$mod: {<field>: ...}} not "
                        + Values.element(operator.getKey(), operator.getValue()));
            }
            for (Map.Entry<String, BsonValue> field : operator.getValue().asDocument().entrySet()) {
                String path = field.getKey();
                List<String> components = tree.validatedComponents(path);
                if (factory == null) { // $rename, the one operator without a factory (checked above)
                    if (components.stream().anyMatch(UpdateTree::isPositional)) {
                        throw new CommandException(ErrorCode.BadValue, "The source field for $rename may not be dynamic: " + path);
                    }
                    String to = RenameField.destination(path, field.getValue());
                    tree.add(path, components, RenameField.placeholder());
                    tree.add(to, tree.validatedComponents(to), new RenameField(components, to));
                } else {
                    tree.add(path, components, factory.create(path, field.getValue(), collation));
                }
            }
        }
        arrayFilters.requireAllUsed(update);
        return tree;
    }

    /** Applies every operation to {@code context.root()} in place (the caller passes a working copy). */
    void applyTo(UpdateContext context) {
        applyChildren(context.root(), "", root, context);
    }


    private List<String> validatedComponents(String path) {
        if (path.isEmpty()) {
            throw new CommandException(ErrorCode.EmptyFieldName, "An empty update path is not valid.");
        }
        List<String> components = Paths.split(path);
        for (String component : components) {
            if (component.isEmpty()) {
                throw new CommandException(ErrorCode.EmptyFieldName,
                        "The update path '" + path + "' contains an empty field name, which is not allowed.");
            }
            if (isPositional(component)) {
                validatePositional(path, components, component);
                continue;
            }
            if (component.startsWith("$")) {
                throw new CommandException(ErrorCode.DollarPrefixedFieldName,
                        "The dollar ($) prefixed field '" + component + "' in '" + path + "' is not valid for storage.");
            }
        }
        return components;
    }

    /** {@code $}, {@code $[]} or {@code $[<identifier>]}. */
    private static boolean isPositional(String component) {
        return component.equals("$") || component.startsWith("$[") && component.endsWith("]");
    }

    private void validatePositional(String path, List<String> components, String component) {
        if (components.getFirst().equals(component)) {
            throw new CommandException(ErrorCode.BadValue,
                    "Cannot have positional (i.e. '$') element in the first position in path '" + path + "'");
        }
        if (component.equals("$") && components.stream().filter(c -> c.equals("$")).count() > 1) {
            throw new CommandException(ErrorCode.BadValue,
                    "Too many positional (i.e. '$') elements found in path '" + path + "'");
        }
        String identifier = component.length() > 3 ? component.substring(2, component.length() - 1) : "";
        if (!identifier.isEmpty()) {
            arrayFilters.use(identifier, path);
        }
    }

    private void add(String path, List<String> components, UpdateOperation operation) {
        Interior node = root;
        for (int i = 0; i < components.size() - 1; i++) {
            Node child = node.children.get(components.get(i));
            if (child instanceof Leaf) {
                throw conflict(path, components.subList(0, i + 1));
            }
            if (child == null) {
                child = new Interior();
                node.children.put(components.get(i), child);
            }
            node = (Interior) child;
        }
        String last = components.get(components.size() - 1);
        if (node.children.containsKey(last)) {
            throw conflict(path, components);
        }
        node.children.put(last, new Leaf(operation));
    }

    private static CommandException conflict(String path, List<String> at) {
        return new CommandException(ErrorCode.ConflictingUpdateOperators,
                "Updating the path '" + path + "' would create a conflict at '" + String.join(".", at) + "'");
    }

    /** {@code container} is a document or an array; {@code containerName} its field name, for messages. */
    private void applyChildren(BsonValue container, String containerName, Interior node, UpdateContext context) {
        for (Map.Entry<String, Node> entry : node.children.entrySet()) {
            String name = entry.getKey();
            Node child = entry.getValue();
            if (isPositional(name)) {
                for (int index : positions(container, containerName, name, context)) {
                    applyAt(container, Integer.toString(index), child, context);
                }
            } else if (container.isArray() && !Paths.isIndex(name)) {
                if (child.createsPath()) {
                    throw cannotCreate(name, containerName, container);
                }
            } else {
                applyAt(container, name, child, context);
            }
        }
    }

    private void applyAt(BsonValue container, String name, Node child, UpdateContext context) {
        Slot slot = Slot.of(container, name);
        BsonValue existing = slot.get();
        switch (child) {
            case Leaf leaf -> leaf.operation.apply(slot, existing, context);
            case Interior interior -> applyInterior(slot, name, existing, interior, context);
        }
    }

    /**
     * The array positions a positional component stands for (MongoDB manual, "$ (update)", "$[]",
     * "$[<identifier>]"): the query's matched position, every position, or those whose element the array filter
     * accepts.
     *
     * @throws CommandException BadValue (2) "The positional operator did not find the match needed from the
     *     query." or "The path 'a' must exist in the document in order to apply array updates."
     */
    private List<Integer> positions(BsonValue container, String containerName, String component, UpdateContext context) {
        if (component.equals("$")) {
            if (context.matchedPosition().isEmpty()) {
                throw new CommandException(ErrorCode.BadValue, "The positional operator did not find the match needed from the query.");
            }
            if (!container.isArray()) {
                throw cannotCreate(component, containerName, container);
            }
            return List.of(context.matchedPosition().getAsInt());
        }
        if (!container.isArray()) {
            throw new CommandException(ErrorCode.BadValue,
                    "The path '" + containerName + "' must exist in the document in order to apply array updates.");
        }
        BsonArray array = container.asArray();
        String identifier = component.substring(2, component.length() - 1);
        return IntStream.range(0, array.size())
                .filter(i -> identifier.isEmpty() || arrayFilters.matches(identifier, array.get(i)))
                .boxed().toList();
    }

    private void applyInterior(Slot slot, String name, @Nullable BsonValue existing, Interior node, UpdateContext context) {
        if (existing != null && (existing.isDocument() || existing.isArray())) {
            applyChildren(existing, name, node, context);
        } else if (node.createsPath()) {
            if (existing != null && node.children.keySet().stream().anyMatch(child -> child.startsWith("$["))) {
                throw new CommandException(ErrorCode.BadValue,
                        "Cannot apply array updates to non-array element " + Values.element(name, existing));
            }
            if (existing != null) {
                throw cannotCreate(node.children.firstKey(), name, existing);
            }
            BsonDocument created = new BsonDocument();
            applyChildren(created, name, node, context);
            if (!created.isEmpty()) { // all of the operations below may have been no-ops ($setOnInsert, $rename)
                slot.set(created);
            }
        }
    }

    private static CommandException cannotCreate(String field, String containerName, BsonValue container) {
        return new CommandException(ErrorCode.PathNotViable,
                "Cannot create field '" + field + "' in element " + Values.element(containerName, container));
    }

    private sealed interface Node permits Interior, Leaf {
        boolean createsPath();
    }

    private static final class Interior implements Node {
        private final NavigableMap<String, Node> children = new TreeMap<>(FIELD_ORDER);

        @Override
        public boolean createsPath() {
            return children.values().stream().anyMatch(Node::createsPath);
        }
    }

    private record Leaf(UpdateOperation operation) implements Node {
        @Override
        public boolean createsPath() {
            return operation.createsPath();
        }
    }
}
