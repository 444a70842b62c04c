package dev.shardstore.engine.aggregate;

import java.util.stream.Stream;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.engine.aggregate.expression.Expression;
import dev.shardstore.engine.aggregate.expression.ExpressionParser;
import dev.shardstore.engine.aggregate.expression.CommandVariables;
import dev.shardstore.engine.query.TypeNames;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * {@code {$replaceRoot: {newRoot: <expression>}}} and its alias {@code {$replaceWith: <expression>}} (MongoDB
 * manual, "$replaceRoot"): each document becomes the document the expression evaluates to.
 *
 * <p>Errors: BadValue (2) when {@code newRoot} is absent, and per document when the value is not a document
 * ({@code "'newRoot' expression must evaluate to an object, but resulting value was: ... Type of resulting
 * value: 'missing'"}, 40228 in MongoDB).
 */
final class ReplaceRootStage implements Stage {
    private final Expression newRoot;
    private final CommandVariables variables;

    private ReplaceRootStage(Expression newRoot, CommandVariables variables) {
        this.newRoot = newRoot;
        this.variables = variables;
    }

    static Stage parse(BsonDocument spec, CommandVariables variables) {
        if (!spec.containsKey("newRoot") || spec.size() != 1) {
            throw new CommandException(ErrorCode.BadValue, "$replaceRoot expects exactly one field, 'newRoot'");
        }
        return of(spec.get("newRoot"), variables);
    }

    static Stage of(BsonValue expression, CommandVariables variables) {
        return new ReplaceRootStage(ExpressionParser.INSTANCE.parse(expression), variables);
    }

    @Override
    public Stream<BsonDocument> apply(Stream<BsonDocument> input) {
        return input.map(doc -> {
            BsonValue value = newRoot.evaluate(variables.scope(doc));
            if (value == null || !value.isDocument()) {
                throw new CommandException(ErrorCode.BadValue, "'newRoot' expression must evaluate to an object, but "
                        + "resulting value was: " + (value == null ? "MISSING" : value.toString()) + ". Type of resulting value: '"
                        + (value == null ? "missing" : TypeNames.of(value.getBsonType())) + "'.");
            }
            return value.asDocument();
        });
    }
}
