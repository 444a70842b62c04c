package dev.shardstore.engine.aggregate;

import java.util.stream.Stream;
import java.util.Comparator;
import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.engine.spill.BsonSizes;
import dev.shardstore.engine.spill.ExternalSorter;
import dev.shardstore.engine.spill.MemoryLimits;
import dev.shardstore.engine.spill.SpillStats;
import org.bson.BsonDouble;
import org.bson.RawBsonDocument;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.engine.aggregate.expression.Numbers;
import java.util.concurrent.ThreadLocalRandom;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * {@code {$sample: {size: <n>}}} (MongoDB manual, "$sample"): {@code n} documents chosen uniformly at random
 * without repetition, in random order (all of them when there are fewer).
 *
 * <p>Errors: BadValue (2) for a missing, negative or non-numeric size or another field.
 *
 * @param size   how many documents to pick
 * @param limits the sort budget its random top-k sort holds within
 */
record SampleStage(long size, MemoryLimits limits) implements Stage {
    private static final String RANDOM = "r";
    private static final String DOCUMENT = "d";
    private static final Comparator<BsonDocument> BY_RANDOM = Comparator.comparingDouble(d -> d.getDouble(RANDOM).getValue());

    static Stage parse(BsonDocument spec, MemoryLimits limits) {
        BsonValue size = spec.get("size");
        if (spec.size() != 1 || !Numbers.isNumber(size) || Numbers.toDouble(size) < 0) {
            throw new CommandException(ErrorCode.BadValue, "$sample stage takes exactly one option, 'size', "
                    + "a non-negative number: " + spec.toJson());
        }
        return new SampleStage((long) Numbers.toDouble(size), limits);
    }

    /**
     * Each document gets a random key and a top-{@code size} sort keeps the smallest keys (MongoDB's $sample over a
     * collection scan sorts by a random key too), so only {@code size} documents are held, within the sort budget, and
     * spilled past it like any blocking sort.
     */
    @Override
    public Stream<BsonDocument> apply(Stream<BsonDocument> input) {
        if (size == 0) {
            input.close();
            return Stream.empty();
        }
        ExternalSorter sorter = ExternalSorter.of("$sample", BY_RANDOM, size, limits, new SpillStats());
        try (input) {
            input.forEachOrdered(document -> sorter.add(new BsonDocument(RANDOM, new BsonDouble(ThreadLocalRandom.current().nextDouble()))
                    .append(DOCUMENT, document), (document instanceof RawBsonDocument raw ? BsonBytes.size(raw) : BsonSizes.ofDocument(document)) + 16));
        } catch (RuntimeException | Error e) { // the spill files go, whatever ends the read
            sorter.close();
            throw e;
        }
        return sorter.sorted().map(wrapped -> wrapped.getDocument(DOCUMENT));
    }
}
