package dev.shardstore.engine.aggregate.expression;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.engine.query.TypeNames;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonType;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * Argument handling shared by the operator families: MongoDB accepts {@code {$op: [a, b]}} and, for one
 * operand, {@code {$op: a}}; the arity check fails with {@code "Expression $op takes exactly N arguments.
 * M were passed in."} (code 16020 in MongoDB; BadValue (2) here).
 */
final class Operands {
    private Operands() {}

    /** The operands of {@code argument}: each element of an array, or the value itself. */
    static List<Expression> list(BsonValue argument, ExpressionParser parser) {
        List<Expression> out = new ArrayList<>();
        if (argument.isArray()) {
            argument.asArray().forEach(v -> out.add(parser.parse(v)));
        } else {
            out.add(parser.parse(argument));
        }
        return out;
    }

    /** {@link #list} checked to hold between {@code min} and {@code max} operands. */
    static List<Expression> between(String name, BsonValue argument, ExpressionParser parser, int min, int max) {
        List<Expression> operands = list(argument, parser);
        if (operands.size() < min || operands.size() > max) {
            String count = min == max ? "exactly " + min : min + " to " + max;
            throw new CommandException(ErrorCode.BadValue, "Expression " + name + " takes " + count + " arguments. "
                    + operands.size() + " were passed in.");
        }
        return operands;
    }

    /** {@link #list} checked to hold exactly {@code n} operands. */
    static List<Expression> exactly(String name, BsonValue argument, ExpressionParser parser, int n) {
        return between(name, argument, parser, n, n);
    }

    /** The named-argument document of operators such as {@code $filter} or {@code $convert}. */
    static BsonDocument named(String name, BsonValue argument) {
        if (!argument.isDocument()) {
            throw new CommandException(ErrorCode.BadValue, name + " expects an object of named arguments but found: "
                    + TypeNames.of(argument.getBsonType()));
        }
        return argument.asDocument();
    }

    /** A required named argument. */
    static BsonValue required(String name, BsonDocument arguments, String field) {
        BsonValue value = arguments.get(field);
        if (value == null) {
            throw new CommandException(ErrorCode.BadValue, "Missing '" + field + "' parameter to " + name);
        }
        return value;
    }

    /** Whether a value is null, undefined or missing: the operands most operators answer null for. */
    @Contract("null -> true")
    static boolean nullish(@Nullable BsonValue value) {
        return value == null || value.isNull() || value.getBsonType() == BsonType.UNDEFINED;
    }
}
