package dev.shardstore.engine.aggregate.expression;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.engine.query.Paths;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonNull;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * Parses aggregation expressions (MongoDB manual, "Expressions"). Thread-safe; use {@link #INSTANCE}.
 *
 * <p>Shapes: {@code "$a.b"} (field path), {@code "$$ROOT"}, {@code "$$CURRENT.a"}, {@code "$$this"} (variables),
 * {@code {$op: <args>}} (an operator from the families' tables), {@code {$literal: <value>}}, {@code {f: <expr>,
 * ...}} (an object whose fields are expressions), {@code [<expr>, ...]}, and any other value as a constant.
 *
 * <p>Errors: InvalidPipelineOperator (168) {@code "Unrecognized expression '$foo'"}; BadValue (2) for an object
 * mixing an operator with other fields and a {@code "$"} path with an empty component. A variable nothing binds is
 * Location17276 "Use of undefined variable" when the expression reads it ({@link Variables#get}; MongoDB refuses it
 * earlier, when it parses the pipeline); {@code $$REMOVE} is missing. {@code $$NOW} and a
 * command's {@code let} variables are bound by {@link CommandVariables}; {@code $$CLUSTER_TIME} is refused with
 * NotImplemented (238) until the cluster's logical clock is exposed.
 */
public final class ExpressionParser {
    /** The parser with every supported operator. */
    public static final ExpressionParser INSTANCE = new ExpressionParser();

    private final Map<String, OperatorParser> operators = new HashMap<>();

    private ExpressionParser() {
        Stream.of(Arithmetic.OPERATORS, Comparisons.OPERATORS, Booleans.OPERATORS, Conditionals.OPERATORS,
                Strings.OPERATORS, Arrays.OPERATORS, Dates.OPERATORS, Conversions.OPERATORS, Fields.OPERATORS, Randomness.OPERATORS)
                .forEach(operators::putAll);
    }

    /** Parses an expression; see the class comment for shapes and errors. */
    public Expression parse(BsonValue spec) {
        if (spec.isString()) {
            return parseString(spec.asString().getValue(), spec);
        }
        if (spec.isArray()) {
            List<Expression> elements = spec.asArray().stream().map(this::parse).toList();
            return variables -> {
                BsonArray out = new BsonArray();
                elements.forEach(e -> out.add(orNull(e.evaluate(variables))));
                return out;
            };
        }
        if (spec.isDocument()) {
            return parseDocument(spec.asDocument());
        }
        return variables -> spec;
    }

    /**
     * Parses {@code {field: <expr>, ...}} as an object expression even when it would read as an operator;
     * used for field specifications of stages such as {@code $addFields}.
     */
    public Expression parseObject(BsonDocument spec) {
        Map<String, Expression> fields = new LinkedHashMap<>();
        spec.forEach((name, value) -> fields.put(name, parse(value)));
        return variables -> {
            BsonDocument out = new BsonDocument();
            fields.forEach((name, e) -> {
                BsonValue value = e.evaluate(variables);
                if (value != null) {
                    out.put(name, value);
                }
            });
            return out;
        };
    }

    private Expression parseDocument(BsonDocument spec) {
        if (spec.isEmpty() || !spec.getFirstKey().startsWith("$")) {
            return parseObject(spec);
        }
        String name = spec.getFirstKey();
        if (spec.size() != 1) {
            throw new CommandException(ErrorCode.BadValue, "an expression specification must contain exactly one field, "
                    + "the name of the expression. Found " + spec.size() + " fields in " + spec.toJson());
        }
        BsonValue argument = spec.values().iterator().next(); // the one field's value
        if (name.equals("$literal")) {
            return variables -> argument;
        }
        OperatorParser operator = operators.get(name);
        if (operator == null) {
            throw new CommandException(ErrorCode.InvalidPipelineOperator, "Unrecognized expression '" + name + "'");
        }
        return operator.parse(name, argument, this);
    }

    private static Expression parseString(String text, BsonValue constant) {
        if (!text.startsWith("$")) {
            return variables -> constant;
        }
        boolean variable = text.startsWith("$$");
        List<String> components = Paths.split(text.substring(variable ? 2 : 1));
        if (components.contains("")) {
            throw new CommandException(ErrorCode.BadValue, "FieldPath field names may not be empty strings: '" + text + "'");
        }
        if (!variable) {
            return new FieldPath("CURRENT", components);
        }
        if (components.getFirst().equals("CLUSTER_TIME")) {
            throw new CommandException(ErrorCode.NotImplemented, "$$CLUSTER_TIME is not supported yet: expressions have"
                    + " no access to the cluster's logical clock");
        }
        return new FieldPath(components.getFirst(), components.subList(1, components.size()));
    }

    /** The value of an array element or argument: missing becomes null. */
    static BsonValue orNull(@Nullable BsonValue value) {
        return value == null ? BsonNull.VALUE : value;
    }
}
