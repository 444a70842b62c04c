package dev.shardstore.engine.aggregate;

import java.util.stream.Stream;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.engine.aggregate.expression.Numbers;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * {@code {$sample: {size: <n>}}} (MongoDB manual, "$sample"): {@code n} documents chosen uniformly at random
 * without repetition, in random order (all of them when there are fewer).
 *
 * <p>Errors: BadValue (2) for a missing, negative or non-numeric size or another field.
 *
 * @param size how many documents to pick
 */
record SampleStage(long size) implements Stage {
    static Stage parse(BsonDocument spec) {
        BsonValue size = spec.get("size");
        if (spec.size() != 1 || !Numbers.isNumber(size) || Numbers.toDouble(size) < 0) {
            throw new CommandException(ErrorCode.BadValue, "$sample stage takes exactly one option, 'size', "
                    + "a non-negative number: " + spec.toJson());
        }
        return new SampleStage((long) Numbers.toDouble(size));
    }

    @Override
    public Stream<BsonDocument> apply(Stream<BsonDocument> input) {
        List<BsonDocument> shuffled;
        try (input) {
            shuffled = new ArrayList<>(input.toList());
        }
        Collections.shuffle(shuffled, ThreadLocalRandom.current());
        return shuffled.subList(0, (int) Math.min(size, shuffled.size())).stream();
    }
}
