package dev.shardstore.engine.aggregate.expression;

import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * The condition of a query's {@code {$expr: <expression>}} (MongoDB manual, "$expr"): the aggregation expression
 * evaluated on a document with the command's variables ({@code $$ROOT}/{@code $$CURRENT} the document,
 * {@code $$NOW}, {@code let}), the document matching when the value is truthy (not false, null, undefined,
 * missing or zero). Immutable and thread-safe.
 */
public final class ExprCondition {
    private final Expression expression;
    private final CommandVariables variables;

    private ExprCondition(Expression expression, CommandVariables variables) {
        this.expression = expression;
        this.variables = variables;
    }

    /**
     * Parses the argument of {@code $expr}.
     *
     * @throws dev.shardstore.contracts.error.CommandException the expression's parse errors ({@link ExpressionParser})
     */
    public static ExprCondition parse(BsonValue expression, CommandVariables variables) {
        return new ExprCondition(ExpressionParser.INSTANCE.parse(expression), variables);
    }

    /**
     * Whether {@code doc} satisfies the expression.
     *
     * @throws dev.shardstore.contracts.error.CommandException the expression's evaluation errors on this document
     */
    public boolean test(BsonDocument doc) {
        return Booleans.truthy(expression.evaluate(variables.scope(doc)));
    }
}
