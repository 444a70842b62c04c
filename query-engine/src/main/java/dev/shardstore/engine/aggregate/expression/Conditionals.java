package dev.shardstore.engine.aggregate.expression;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * Conditional expression operators (MongoDB manual, "Conditional Expression Operators"):
 * {@code $cond} as {@code [if, then, else]} or {@code {if, then, else}}; {@code $ifNull: [expr..., replacement]}
 * (the first operand that is neither null nor missing, else the last); {@code $switch: {branches: [{case,
 * then}, ...], default}}.
 *
 * <p>Errors: BadValue (2) for a missing {@code if/then/else} argument, a {@code $switch} without branches or
 * a branch without {@code case}/{@code then}, and a {@code $switch} no branch matched and without
 * {@code default} ({@code "$switch could not find a matching branch for an input, and no default was
 * specified."}).
 */
final class Conditionals {
    static final Map<String, OperatorParser> OPERATORS = Map.of(
            "$cond", Conditionals::cond,
            "$ifNull", (name, arg, p) -> ifNull(Operands.between(name, arg, p, 2, Integer.MAX_VALUE)),
            "$switch", Conditionals::switchOf);

    private Conditionals() {}

    private static Expression cond(String name, BsonValue arg, ExpressionParser parser) {
        List<Expression> parts;
        if (arg.isDocument()) {
            BsonDocument named = arg.asDocument();
            parts = List.of(parser.parse(Operands.required(name, named, "if")),
                    parser.parse(Operands.required(name, named, "then")), parser.parse(Operands.required(name, named, "else")));
        } else {
            parts = Operands.exactly(name, arg, parser, 3);
        }
        return variables -> (Booleans.truthy(parts.get(0).evaluate(variables)) ? parts.get(1) : parts.get(2))
                .evaluate(variables);
    }

    private static Expression ifNull(List<Expression> operands) {
        return variables -> {
            for (Expression operand : operands.subList(0, operands.size() - 1)) {
                BsonValue value = operand.evaluate(variables);
                if (!Operands.nullish(value)) {
                    return value;
                }
            }
            return operands.getLast().evaluate(variables);
        };
    }

    private record Branch(Expression when, Expression then) {}

    private static Expression switchOf(String name, BsonValue arg, ExpressionParser parser) {
        BsonDocument named = Operands.named(name, arg);
        BsonValue branchSpecs = Operands.required(name, named, "branches");
        if (!branchSpecs.isArray()) {
            throw new CommandException(ErrorCode.BadValue, "$switch expected an array for 'branches'");
        }
        List<Branch> branches = new ArrayList<>();
        for (BsonValue spec : branchSpecs.asArray()) {
            BsonDocument branch = Operands.named("$switch branch", spec);
            branches.add(new Branch(parser.parse(Operands.required("$switch branch", branch, "case")),
                    parser.parse(Operands.required("$switch branch", branch, "then"))));
        }
        Expression otherwise = named.containsKey("default") ? parser.parse(named.get("default")) : null;
        return variables -> {
            for (Branch branch : branches) {
                if (Booleans.truthy(branch.when.evaluate(variables))) {
                    return branch.then.evaluate(variables);
                }
            }
            if (otherwise == null) {
                throw new CommandException(ErrorCode.BadValue,
                        "$switch could not find a matching branch for an input, and no default was specified.");
            }
            return otherwise.evaluate(variables);
        };
    }
}
