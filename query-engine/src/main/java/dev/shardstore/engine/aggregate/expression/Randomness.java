package dev.shardstore.engine.aggregate.expression;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.bson.BsonDouble;
import org.bson.BsonValue;

/**
 * {@code {$rand: {}}} (MongoDB manual, "$rand"): a double from 0 (inclusive) to 1 (exclusive), drawn anew each time
 * the expression is evaluated — per document in a stage, once for a command's {@code let} variable.
 *
 * <p>Errors, MongoDB's: Location3040501 "$rand does not currently accept arguments" for a non-empty document or array
 * (an empty array is accepted, as MongoDB reads it as an empty object); Location10065 "invalid parameter: expected an
 * object ($rand)" for any other argument.
 */
final class Randomness {
    static final Map<String, OperatorParser> OPERATORS = Map.of("$rand", Randomness::rand);

    private Randomness() {}

    private static Expression rand(String name, BsonValue arg, ExpressionParser parser) {
        boolean empty = arg.isDocument() ? arg.asDocument().isEmpty() : arg.isArray() && arg.asArray().isEmpty();
        if (!empty) {
            if (arg.isDocument() || arg.isArray()) {
                throw new CommandException(ErrorCode.Location3040501, "$rand does not currently accept arguments");
            }
            throw new CommandException(ErrorCode.Location10065, "invalid parameter: expected an object ($rand)");
        }
        // a generator per thread, not per operation: the draws share no state that a caller could observe
        return variables -> new BsonDouble(ThreadLocalRandom.current().nextDouble());
    }
}
