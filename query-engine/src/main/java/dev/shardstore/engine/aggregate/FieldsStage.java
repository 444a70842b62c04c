package dev.shardstore.engine.aggregate;

import java.util.stream.Stream;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.engine.aggregate.expression.CommandVariables;
import dev.shardstore.engine.aggregate.expression.Expression;
import dev.shardstore.engine.aggregate.expression.ExpressionParser;
import dev.shardstore.engine.aggregate.expression.Numbers;
import dev.shardstore.engine.aggregate.expression.Variables;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * The field-shaping stages (MongoDB manual, "$project", "$addFields", "$unset"), one tree of field
 * specifications applied in one of three modes:
 * <ul>
 *   <li>{@code $project} inclusion: {@code {a: 1, "b.c": true, d: <expression>, e: {f: 1}}} keeps the listed
 *       fields in document order (through arrays of documents for nested paths), then adds computed fields in
 *       specification order; {@code _id} is kept unless {@code _id: 0};</li>
 *   <li>{@code $project} exclusion: {@code {a: 0, "b.c": false}} drops the listed fields (only {@code _id} may
 *       be excluded in an inclusion projection);</li>
 *   <li>{@code $addFields}/{@code $set}: {@code {a: <expression>, "b.c": <expression>}} sets fields, replacing
 *       existing ones in place and appending new ones; a value that is missing ({@code $$REMOVE}) removes the
 *       field; {@code $unset: "a"} or {@code ["a", "b.c"]} is exclusion.</li>
 * </ul>
 * Expressions see the whole document as {@code $$ROOT}/{@code $$CURRENT}, also in nested specifications.
 *
 * <p>Errors: BadValue (2) for an empty specification ({@code "$project requires at least one output field"}),
 * mixing inclusion and exclusion ({@code "Cannot do exclusion on field b in inclusion projection"}), an
 * {@code $unset} argument that is not a string or array of strings; InvalidPipelineOperator (168) for an
 * unknown expression.
 */
final class FieldsStage implements Stage {
    private enum Mode { INCLUDE, EXCLUDE, ADD }

    private sealed interface Node permits Keep, Drop, Computed, Nested {}

    private record Keep() implements Node {}

    private record Drop() implements Node {}

    private record Computed(Expression expression) implements Node {}

    private record Nested(Map<String, Node> children) implements Node {}

    private final Mode mode;
    private final Map<String, Node> tree;
    private final CommandVariables variables;

    private FieldsStage(Mode mode, Map<String, Node> tree, CommandVariables variables) {
        this.mode = mode;
        this.tree = tree;
        this.variables = variables;
    }

    static Stage project(BsonDocument spec, CommandVariables variables) {
        if (spec.isEmpty()) {
            throw new CommandException(ErrorCode.BadValue, "$project requires at least one output field");
        }
        Map<String, Node> tree = new LinkedHashMap<>();
        spec.forEach((path, value) -> put(tree, path, node(value, true)));
        boolean excludes = hasNode(tree, Drop.class, false);
        boolean includes = hasNode(tree, Keep.class, false) || hasNode(tree, Computed.class, true);
        if (excludes && includes) {
            throw new CommandException(ErrorCode.BadValue, "Invalid $project :: caused by :: Cannot do exclusion on field "
                    + firstExcluded(spec) + " in inclusion projection");
        }
        if (includes || !excludes && tree.get("_id") instanceof Keep) {
            tree.putIfAbsent("_id", new Keep());
            if (tree.get("_id") instanceof Drop) {
                tree.remove("_id");
            }
            return new FieldsStage(Mode.INCLUDE, tree, variables);
        }
        return new FieldsStage(Mode.EXCLUDE, tree, variables);
    }

    static Stage addFields(BsonDocument spec, CommandVariables variables) {
        Map<String, Node> tree = new LinkedHashMap<>();
        spec.forEach((path, value) -> put(tree, path, node(value, false)));
        return new FieldsStage(Mode.ADD, tree, variables);
    }

    static Stage unset(BsonValue argument, CommandVariables variables) {
        List<BsonValue> paths = argument.isArray() ? argument.asArray().getValues() : List.of(argument);
        if (paths.isEmpty() || paths.stream().anyMatch(p -> !p.isString())) {
            throw new CommandException(ErrorCode.BadValue,
                    "$unset specification must be a string or an array containing only string values");
        }
        Map<String, Node> tree = new LinkedHashMap<>();
        paths.forEach(path -> put(tree, path.asString().getValue(), new Drop()));
        return new FieldsStage(Mode.EXCLUDE, tree, variables);
    }

    /**
     * The node for one specification value: in {@code $project} a number or boolean includes or excludes; a
     * document whose first field is not an operator nests; anything else is an expression.
     */
    private static Node node(BsonValue value, boolean project) {
        if (project && (value.isBoolean() || Numbers.isNumber(value))) {
            boolean keep = value.isBoolean() ? value.asBoolean().getValue() : Numbers.toDouble(value) != 0;
            return keep ? new Keep() : new Drop();
        }
        if (value.isDocument() && !value.asDocument().isEmpty() && !value.asDocument().getFirstKey().startsWith("$")) {
            Map<String, Node> children = new LinkedHashMap<>();
            value.asDocument().forEach((path, child) -> put(children, path, node(child, project)));
            return new Nested(children);
        }
        return new Computed(ExpressionParser.INSTANCE.parse(value));
    }

    /** Puts {@code node} at dotted {@code path}, creating nested nodes. */
    private static void put(Map<String, Node> tree, String path, Node node) {
        int dot = path.indexOf('.');
        if (path.isEmpty() || path.startsWith("$") || dot == 0 || path.endsWith(".")) {
            throw new CommandException(ErrorCode.BadValue, "Invalid field path in specification: '" + path + "'");
        }
        if (dot < 0) {
            tree.put(path, node);
            return;
        }
        Node parent = tree.computeIfAbsent(path.substring(0, dot), k -> new Nested(new LinkedHashMap<>()));
        if (!(parent instanceof Nested nested)) {
            throw new CommandException(ErrorCode.BadValue, "Invalid specification: path collision at " + path);
        }
        put(nested.children(), path.substring(dot + 1), node);
    }

    /** Whether the tree holds a node of {@code type}; a top-level {@code _id} counts only when {@code topLevelId}. */
    private static boolean hasNode(Map<String, Node> tree, Class<? extends Node> type, boolean topLevelId) {
        return tree.entrySet().stream().anyMatch(e -> e.getValue() instanceof Nested nested
                ? hasNode(nested.children(), type, true)
                : type.isInstance(e.getValue()) && (topLevelId || !e.getKey().equals("_id")));
    }

    private static String firstExcluded(BsonDocument spec) {
        return spec.entrySet().stream().filter(e -> !e.getKey().equals("_id") && node(e.getValue(), true) instanceof Drop)
                .map(Map.Entry::getKey).findFirst().orElse("_id");
    }

    @Override
    public Stream<BsonDocument> apply(Stream<BsonDocument> input) {
        return input.map(doc -> shape(doc, tree, variables.scope(doc)));
    }

    private BsonDocument shape(BsonDocument doc, Map<String, Node> nodes, Variables variables) {
        BsonDocument out = new BsonDocument();
        for (Map.Entry<String, BsonValue> field : doc.entrySet()) {
            Node node = nodes.get(field.getKey());
            BsonValue value = field.getValue();
            if (node == null ? mode != Mode.INCLUDE : node instanceof Keep || node instanceof Computed && mode == Mode.ADD) {
                out.put(field.getKey(), value);
            } else if (node instanceof Nested nested && (value.isDocument() || value.isArray())) {
                out.put(field.getKey(), descend(value, nested.children(), variables));
            } else if (node instanceof Nested && mode == Mode.EXCLUDE) {
                out.put(field.getKey(), value);
            }
        }
        if (mode != Mode.EXCLUDE) {
            addComputed(out, nodes, variables);
        }
        return out;
    }

    private BsonValue descend(BsonValue value, Map<String, Node> nodes, Variables variables) {
        if (value.isDocument()) {
            return shape(value.asDocument(), nodes, variables);
        }
        BsonArray out = new BsonArray();
        for (BsonValue element : value.asArray()) {
            if (element.isDocument() || element.isArray()) {
                out.add(descend(element, nodes, variables));
            } else if (mode == Mode.EXCLUDE) {
                out.add(element);
            } else if (mode == Mode.ADD) {
                out.add(shape(new BsonDocument(), nodes, variables));
            }
        }
        return out;
    }

    /**
     * Sets the computed fields of {@code nodes} (in place when {@code out} has the field, so {@code $addFields}
     * keeps positions), and nested ones under fields the document lacks or holds a scalar in.
     */
    private void addComputed(BsonDocument out, Map<String, Node> nodes, Variables variables) {
        nodes.forEach((name, node) -> {
            if (node instanceof Computed computed) {
                BsonValue value = computed.expression().evaluate(variables);
                if (value == null) {
                    out.remove(name);
                } else {
                    out.put(name, value);
                }
            } else if (node instanceof Nested nested && !out.containsKey(name) && hasNode(nested.children(), Computed.class, true)) {
                out.put(name, shape(new BsonDocument(), nested.children(), variables));
            }
        });
    }
}
