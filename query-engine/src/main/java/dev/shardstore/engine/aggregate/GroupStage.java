package dev.shardstore.engine.aggregate;

import dev.shardstore.contracts.bson.BsonOrder;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.engine.aggregate.expression.Expression;
import dev.shardstore.engine.aggregate.expression.ExpressionParser;
import dev.shardstore.engine.aggregate.expression.CommandVariables;
import dev.shardstore.engine.aggregate.expression.Variables;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonNull;
import org.bson.BsonValue;

/**
 * {@code {$group: {_id: <expression>, <field>: {<accumulator>: <expression>}, ...}}} (MongoDB manual,
 * "$group"): one output document per distinct {@code _id} value, with each field computed by its
 * {@link Accumulators accumulator}. {@code _id} may be any expression, including an object expression for a
 * compound key ({@code {_id: {y: {$year: "$d"}, m: "$m"}}}); missing counts as null and keys are grouped by BSON
 * equality (so 1 and 1.0 are one group, keeping the first value seen), strings by equality under the command's
 * collation (at strength 2, "a" and "A" are one group whose {@code _id} is the first seen, as in MongoDB). Groups
 * come out in BSON order of their keys (MongoDB leaves the order unspecified).
 *
 * <p>Errors: BadValue (2) {@code "a group specification must include an _id"}, a field that is not a one-operator
 * document ({@code "The field 'total' must be an accumulator object"}), a dotted field name;
 * InvalidPipelineOperator (168) for an unknown accumulator.
 */
final class GroupStage implements Stage {
    private record Field(String name, Supplier<Accumulators.State> factory, Expression argument) {}

    private final Expression id;
    private final List<Field> fields;
    private final CommandVariables variables;

    private GroupStage(Expression id, List<Field> fields, CommandVariables variables) {
        this.id = id;
        this.fields = fields;
        this.variables = variables;
    }

    static Stage parse(BsonDocument spec, CommandVariables variables) {
        if (!spec.containsKey("_id")) {
            throw new CommandException(ErrorCode.BadValue, "a group specification must include an _id");
        }
        List<Field> fields = new ArrayList<>();
        for (Map.Entry<String, BsonValue> entry : spec.entrySet()) {
            String name = entry.getKey();
            if (name.equals("_id")) {
                continue;
            }
            BsonValue value = entry.getValue();
            if (name.contains(".") || !value.isDocument() || value.asDocument().size() != 1) {
                throw new CommandException(ErrorCode.BadValue, "The field '" + name + "' must be an accumulator object");
            }
            String operator = value.asDocument().getFirstKey();
            BsonValue argument = value.asDocument().values().iterator().next(); // the accumulator's argument
            if (operator.equals("$count")) {
                if (!argument.isDocument() || !argument.asDocument().isEmpty()) {
                    throw new CommandException(ErrorCode.BadValue, "$count takes no arguments, i.e. $count:{}");
                }
                argument = new BsonInt32(1);
            }
            fields.add(new Field(name, Accumulators.factory(operator, variables.collation()), ExpressionParser.INSTANCE.parse(argument)));
        }
        return new GroupStage(ExpressionParser.INSTANCE.parse(spec.get("_id")), List.copyOf(fields), variables);
    }

    @Override
    public List<BsonDocument> apply(List<BsonDocument> input) {
        Map<BsonValue, Map<String, Accumulators.State>> groups = new TreeMap<>((a, b) -> BsonOrder.compare(a, b, variables.collation()));
        for (BsonDocument doc : input) {
            Variables scope = variables.scope(doc);
            BsonValue key = id.evaluate(scope);
            Map<String, Accumulators.State> states = groups.computeIfAbsent(key == null ? BsonNull.VALUE : key, k -> {
                Map<String, Accumulators.State> fresh = new LinkedHashMap<>();
                fields.forEach(f -> fresh.put(f.name(), f.factory().get()));
                return fresh;
            });
            // every group's states are made from the same fields, so each field finds its state
            fields.forEach(f -> Objects.requireNonNull(states.get(f.name())).add(f.argument().evaluate(scope)));
        }
        List<BsonDocument> out = new ArrayList<>(groups.size());
        groups.forEach((key, states) -> {
            BsonDocument group = new BsonDocument("_id", key);
            states.forEach((name, state) -> group.put(name, state.result()));
            out.add(group);
        });
        return out;
    }
}
