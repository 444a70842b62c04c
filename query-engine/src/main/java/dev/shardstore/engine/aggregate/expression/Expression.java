package dev.shardstore.engine.aggregate.expression;

import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * A parsed aggregation expression (MongoDB manual, "Expressions"): evaluated against {@link Variables}
 * ({@code $$ROOT}, {@code $$CURRENT} and user variables such as {@code $$this}). Implementations are
 * immutable and thread-safe.
 *
 * <p>The result is {@code null} for <em>missing</em> (a field path that reaches nothing), which is distinct
 * from BSON null: a computed field whose value is missing is left out of the output document.
 */
@FunctionalInterface
public interface Expression {
    /**
     * Evaluates this expression.
     *
     * @throws dev.shardstore.contracts.error.CommandException when an operator meets a value of a type it does
     *     not take (TypeMismatch (14), BadValue (2), ConversionFailure (241)), with MongoDB's message wording
     */
    @Nullable BsonValue evaluate(Variables variables);
}
