package dev.shardstore.engine.aggregate.expression;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.engine.query.TypeNames;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonNull;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * String expression operators (MongoDB manual, "String Expression Operators"): {@code $concat} (null when an
 * operand is null or missing), {@code $substrCP: [s, start, count]} and {@code $strLenCP} (by code point),
 * {@code $toLower}/{@code $toUpper} (null or missing gives {@code ""}), {@code $split: [s, delimiter]}
 * (null when {@code s} is null), {@code $regexMatch: {input, regex, options?}} (false for a null input).
 *
 * <p>Errors: TypeMismatch (14) for a non-string operand ({@code "$concat only supports strings, not int"}),
 * BadValue (2) for an empty {@code $split} delimiter, a negative {@code $substrCP} index and a bad regex.
 */
final class Strings {
    static final Map<String, OperatorParser> OPERATORS = Map.of(
            "$concat", (name, arg, p) -> concat(Operands.list(arg, p)),
            "$substrCP", (name, arg, p) -> substr(Operands.exactly(name, arg, p, 3)),
            "$toLower", (name, arg, p) -> caseOf(name, Operands.exactly(name, arg, p, 1).getFirst(), false),
            "$toUpper", (name, arg, p) -> caseOf(name, Operands.exactly(name, arg, p, 1).getFirst(), true),
            "$split", (name, arg, p) -> split(Operands.exactly(name, arg, p, 2)),
            "$strLenCP", (name, arg, p) -> strLen(Operands.exactly(name, arg, p, 1).getFirst()),
            "$regexMatch", Strings::regexMatch);

    private Strings() {}

    private static Expression concat(List<Expression> operands) {
        return variables -> {
            StringBuilder out = new StringBuilder();
            for (Expression operand : operands) {
                BsonValue value = operand.evaluate(variables);
                if (Operands.nullish(value)) {
                    return BsonNull.VALUE;
                }
                out.append(string("$concat", value));
            }
            return new BsonString(out.toString());
        };
    }

    private static Expression substr(List<Expression> operands) {
        return variables -> {
            BsonValue value = operands.get(0).evaluate(variables);
            String s = Operands.nullish(value) ? "" : string("$substrCP", value);
            int start = index("$substrCP", operands.get(1).evaluate(variables));
            int count = index("$substrCP", operands.get(2).evaluate(variables));
            int length = s.codePointCount(0, s.length());
            if (start >= length) {
                return new BsonString("");
            }
            int from = s.offsetByCodePoints(0, start);
            int to = s.offsetByCodePoints(from, Math.min(count, length - start));
            return new BsonString(s.substring(from, to));
        };
    }

    private static int index(String name, @Nullable BsonValue value) {
        if (!Numbers.isNumber(value)) {
            throw new CommandException(ErrorCode.TypeMismatch, name + " requires numeric arguments, found: "
                    + (value == null ? "missing" : TypeNames.of(value.getBsonType())));
        }
        double d = Numbers.toDouble(value);
        if (d < 0 || d != Math.floor(d)) {
            throw new CommandException(ErrorCode.BadValue, name + " requires non-negative integral arguments, found: " + d);
        }
        return (int) Math.min(d, Integer.MAX_VALUE);
    }

    private static Expression caseOf(String name, Expression operand, boolean upper) {
        return variables -> {
            BsonValue value = operand.evaluate(variables);
            String s = Operands.nullish(value) ? "" : string(name, value);
            return new BsonString(upper ? s.toUpperCase(Locale.ROOT) : s.toLowerCase(Locale.ROOT));
        };
    }

    private static Expression split(List<Expression> operands) {
        return variables -> {
            BsonValue value = operands.get(0).evaluate(variables);
            BsonValue delimiter = operands.get(1).evaluate(variables);
            if (Operands.nullish(value) || Operands.nullish(delimiter)) {
                return BsonNull.VALUE;
            }
            String s = string("$split", value);
            String d = string("$split", delimiter);
            if (d.isEmpty()) {
                throw new CommandException(ErrorCode.BadValue, "$split requires a non-empty separator");
            }
            BsonArray out = new BsonArray();
            for (String part : s.split(Pattern.quote(d), -1)) {
                out.add(new BsonString(part));
            }
            return out;
        };
    }

    private static Expression strLen(Expression operand) {
        return variables -> {
            BsonValue value = operand.evaluate(variables);
            if (value == null || !value.isString()) {
                throw new CommandException(ErrorCode.TypeMismatch, "$strLenCP requires a string argument, found: "
                        + (value == null ? "missing" : TypeNames.of(value.getBsonType())));
            }
            String s = value.asString().getValue();
            return new BsonInt32(s.codePointCount(0, s.length()));
        };
    }

    private static Expression regexMatch(String name, BsonValue arg, ExpressionParser parser) {
        BsonDocument named = Operands.named(name, arg);
        Expression input = parser.parse(Operands.required(name, named, "input"));
        Expression regex = parser.parse(Operands.required(name, named, "regex"));
        Expression options = named.containsKey("options") ? parser.parse(named.get("options")) : variables -> null;
        return variables -> {
            BsonValue value = input.evaluate(variables);
            BsonValue pattern = regex.evaluate(variables);
            if (Operands.nullish(value) || Operands.nullish(pattern)) {
                return BsonBoolean.FALSE;
            }
            String text = string(name, value);
            BsonValue flags = options.evaluate(variables);
            String source = pattern.isRegularExpression() ? pattern.asRegularExpression().getPattern() : string(name, pattern);
            String optionText = (pattern.isRegularExpression() ? pattern.asRegularExpression().getOptions() : "")
                    + (Operands.nullish(flags) ? "" : string(name, flags));
            return BsonBoolean.valueOf(compile(source, optionText).matcher(text).find());
        };
    }

    private static Pattern compile(String source, String options) {
        int flags = 0;
        for (char c : options.toCharArray()) {
            flags |= switch (c) {
                case 'i' -> Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE;
                case 'm' -> Pattern.MULTILINE;
                case 's' -> Pattern.DOTALL;
                case 'x' -> Pattern.COMMENTS;
                default -> throw new CommandException(ErrorCode.BadValue, "$regexMatch invalid flag in regex options: " + c);
            };
        }
        try {
            return Pattern.compile(source, flags);
        } catch (PatternSyntaxException e) {
            throw new CommandException(ErrorCode.BadValue, "$regexMatch: invalid regular expression: " + e.getDescription());
        }
    }

    private static String string(String name, BsonValue value) {
        if (!value.isString()) {
            throw new CommandException(ErrorCode.TypeMismatch,
                    name + " only supports strings, not " + TypeNames.of(value.getBsonType()));
        }
        return value.asString().getValue();
    }
}
