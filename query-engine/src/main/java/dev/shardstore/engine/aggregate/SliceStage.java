package dev.shardstore.engine.aggregate;

import java.util.stream.Stream;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.engine.aggregate.expression.Numbers;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * {@code {$skip: <n>}} (n ≥ 0) and {@code {$limit: <n>}} (n &gt; 0), n a whole number of any numeric type.
 * Errors: BadValue (2) {@code "invalid argument to $limit stage: ..."}.
 *
 * @param skip documents to drop from the front
 * @param limit most documents to keep after that
 */
record SliceStage(long skip, long limit) implements Stage {
    static Stage skip(BsonValue argument) {
        return new SliceStage(count("$skip", argument, 0), Long.MAX_VALUE);
    }

    static Stage limit(BsonValue argument) {
        return new SliceStage(0, count("$limit", argument, 1));
    }

    @Override
    public Stream<BsonDocument> apply(Stream<BsonDocument> input) {
        return input.skip(skip).limit(limit);
    }

    private static long count(String stage, BsonValue argument, long minimum) {
        if (Numbers.isNumber(argument)) {
            double value = Numbers.toDouble(argument);
            if (value == Math.rint(value) && value >= minimum) {
                return (long) value;
            }
        }
        throw new CommandException(ErrorCode.BadValue, "invalid argument to " + stage + " stage: "
                + "Expected " + (minimum == 0 ? "a non-negative" : "a positive") + " number in: " + argument);
    }
}
