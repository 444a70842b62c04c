package dev.shardstore.engine.aggregate.expression;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.engine.query.TypeNames;
import java.util.Map;
import java.util.Set;
import org.bson.BsonDocument;
import org.bson.BsonNull;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * The field operators that name a field literally, so that names with dots or a leading {@code $} can be read and
 * written (MongoDB manual, "$getField", "$setField", "$unsetField"):
 * <ul>
 *   <li>{@code {$getField: {field: <name>, input: <expr>}}} (input defaults to {@code $$CURRENT}) or
 *       {@code {$getField: <name>}}: the field's value, missing when absent;</li>
 *   <li>{@code {$setField: {field: <name>, input: <expr>, value: <expr>}}}: a copy of the input document with the
 *       field set (appended when new), or removed when the value is missing ({@code $$REMOVE});</li>
 *   <li>{@code {$unsetField: {field: <name>, input: <expr>}}}: a copy without the field.</li>
 * </ul>
 * The name is a constant string, written as {@code {$literal: "$price"}} when it starts with {@code $} (a plain
 * {@code "$price"} would be a field path). An input that is null, undefined or missing gives null.
 *
 * <p>Errors: BadValue (2) for a field argument that is not a constant string ({@code "$getField requires 'field' to
 * evaluate to a constant, but got a non-constant argument"}), a missing or unknown named argument; TypeMismatch (14)
 * when the input is not a document ({@code "$setField requires 'input' to evaluate to type Object"}).
 */
final class Fields {
    static final Map<String, OperatorParser> OPERATORS = Map.of(
            "$getField", Fields::getField,
            "$setField", (name, arg, p) -> setField(name, arg, p, true),
            "$unsetField", (name, arg, p) -> setField(name, arg, p, false));

    private Fields() {}

    private static Expression getField(String name, BsonValue arg, ExpressionParser parser) {
        if (!arg.isDocument() || arg.asDocument().isEmpty() || arg.asDocument().getFirstKey().startsWith("$")) {
            String field = fieldName(name, arg);
            return variables -> get(name, variables.get("CURRENT"), field);
        }
        BsonDocument named = named(name, arg, Set.of("field", "input"));
        String field = fieldName(name, Operands.required(name, named, "field"));
        Expression input = named.containsKey("input") ? parser.parse(named.get("input")) : variables -> variables.get("CURRENT");
        return variables -> get(name, input.evaluate(variables), field);
    }

    private static @Nullable BsonValue get(String name, @Nullable BsonValue input, String field) {
        if (Operands.nullish(input)) {
            return BsonNull.VALUE;
        }
        return document(name, input).get(field);
    }

    /** {@code $setField} ({@code set}) or {@code $unsetField}. */
    private static Expression setField(String name, BsonValue arg, ExpressionParser parser, boolean set) {
        BsonDocument named = named(name, arg, set ? Set.of("field", "input", "value") : Set.of("field", "input"));
        String field = fieldName(name, Operands.required(name, named, "field"));
        Expression input = parser.parse(Operands.required(name, named, "input"));
        Expression value = set ? parser.parse(Operands.required(name, named, "value")) : variables -> null;
        return variables -> {
            BsonValue in = input.evaluate(variables);
            if (Operands.nullish(in)) {
                return BsonNull.VALUE;
            }
            BsonDocument out = document(name, in).clone();
            BsonValue newValue = value.evaluate(variables);
            if (newValue == null) {
                out.remove(field);
            } else {
                out.put(field, newValue);
            }
            return out;
        };
    }

    private static BsonDocument named(String name, BsonValue arg, Set<String> allowed) {
        BsonDocument named = Operands.named(name, arg);
        for (String key : named.keySet()) {
            if (!allowed.contains(key)) {
                throw new CommandException(ErrorCode.BadValue, name + " found an unknown argument: " + key);
            }
        }
        return named;
    }

    /** The constant field name: a string not starting with {@code $}, or {@code {$literal: <string>}}. */
    private static String fieldName(String name, BsonValue spec) {
        BsonValue value = spec;
        if (spec.isDocument() && spec.asDocument().size() == 1 && spec.asDocument().containsKey("$literal")) {
            value = spec.asDocument().get("$literal");
        } else if (spec.isString() && spec.asString().getValue().startsWith("$") || spec.isDocument()) {
            throw new CommandException(ErrorCode.BadValue, name + " requires 'field' to evaluate to a constant, but got a"
                    + " non-constant argument");
        }
        if (!value.isString()) {
            throw new CommandException(ErrorCode.BadValue, name + " requires 'field' to evaluate to type String, but got "
                    + TypeNames.of(value.getBsonType()));
        }
        return value.asString().getValue();
    }

    private static BsonDocument document(String name, BsonValue input) {
        if (!input.isDocument()) {
            throw new CommandException(ErrorCode.TypeMismatch, name + " requires 'input' to evaluate to type Object, but got "
                    + TypeNames.of(input.getBsonType()));
        }
        return input.asDocument();
    }
}
