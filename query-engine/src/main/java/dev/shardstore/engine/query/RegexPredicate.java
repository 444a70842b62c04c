package dev.shardstore.engine.query;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.bson.BsonRegularExpression;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * A regular expression test ({@code {a: /re/}}, {@code $regex}, regex elements of {@code $in}), as
 * MongoDB's {@code RegexMatchExpression}: strings and symbols match when the pattern is found anywhere
 * in them; a stored regex matches only an identical pattern and options; other types never match.
 * Options {@code i m s x} map to Java's flags (Java's regex dialect stands in for PCRE).
 */
record RegexPredicate(String pattern, String options, Pattern compiled) implements ValuePredicate {
    /**
     * @throws CommandException BadValue for an unknown option or an invalid pattern
     */
    static RegexPredicate of(String pattern, String options) {
        int flags = 0;
        for (char option : options.toCharArray()) {
            flags |= switch (option) {
                case 'i' -> Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE;
                case 'm' -> Pattern.MULTILINE;
                case 's' -> Pattern.DOTALL;
                case 'x' -> Pattern.COMMENTS;
                default -> throw new CommandException(ErrorCode.BadValue, "invalid flag in regex options: " + option);
            };
        }
        try {
            String canonicalOptions = new BsonRegularExpression(pattern, options).getOptions(); // sorted, as stored
            return new RegexPredicate(pattern, canonicalOptions, Pattern.compile(pattern, flags));
        } catch (PatternSyntaxException e) {
            throw new CommandException(ErrorCode.BadValue, "Regular expression is invalid: " + e.getDescription());
        }
    }

    static RegexPredicate of(BsonRegularExpression regex) {
        return of(regex.getPattern(), regex.getOptions());
    }

    @Override
    public boolean test(@Nullable BsonValue value) {
        if (value == null) {
            return false;
        }
        return switch (value.getBsonType()) {
            case STRING -> compiled.matcher(value.asString().getValue()).find();
            case SYMBOL -> compiled.matcher(value.asSymbol().getSymbol()).find();
            case REGULAR_EXPRESSION -> value.asRegularExpression().getPattern().equals(pattern)
                    && value.asRegularExpression().getOptions().equals(options);
            default -> false;
        };
    }
}
