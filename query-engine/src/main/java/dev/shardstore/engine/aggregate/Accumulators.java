package dev.shardstore.engine.aggregate;

import dev.shardstore.contracts.bson.BsonOrder;
import dev.shardstore.contracts.bson.Collation;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.engine.aggregate.expression.Numbers;
import dev.shardstore.engine.spill.BsonSizes;
import java.math.BigDecimal;
import java.math.MathContext;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.Supplier;
import org.bson.BsonArray;
import org.bson.BsonDecimal128;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonNull;
import org.bson.BsonValue;
import org.bson.types.Decimal128;
import org.jspecify.annotations.Nullable;

/**
 * The {@code $group} accumulators (MongoDB manual, "Accumulator Operators"), an operator table of state
 * factories. Each state sees the values of its expression for the group's documents in order ({@code null}
 * for missing):
 * <ul>
 *   <li>{@code $sum}: the sum of the numeric values (others are ignored), 0 when there are none, typed as
 *       {@code $add} would type it; {@code $count: {}} counts documents;</li>
 *   <li>{@code $avg}: the mean of the numeric values as a double (decimal if one is decimal), null when none;</li>
 *   <li>{@code $min}/{@code $max}: the least/greatest value in BSON order (strings under the command's collation),
 *       ignoring null and missing; null when none;</li>
 *   <li>{@code $first}/{@code $last}: the first/last value, missing counted as null;</li>
 *   <li>{@code $push}: all values except missing, {@code $addToSet}: the distinct ones (BSON equality, so 1 and
 *       1.0 are one value, and strings equal under the command's collation, the first seen kept; order unspecified,
 *       here BSON order).</li>
 * </ul>
 * Errors: InvalidPipelineOperator (168) {@code "unknown group operator '$foo'"}; BadValue (2) for {@code $count}
 * with an argument other than {@code {}}.
 */
final class Accumulators {
    /** The running state of one accumulator for one group. */
    interface State {
        /** Takes one input value; null is missing. */
        void add(@Nullable BsonValue value);

        BsonValue result();

        /**
         * Estimated bytes the state holds ({@link BsonSizes}), for {@code $group}'s budget: a fixed 16 for a running
         * value, the values held for {@code $push} and {@code $addToSet}.
         */
        default long bytes() {
            return 16;
        }
    }

    private static final Map<String, Function<Collation, State>> TABLE = Map.of(
            "$sum", collation -> new Sum(),
            "$count", collation -> new Sum(),
            "$avg", collation -> new Avg(),
            "$min", collation -> new Extreme(-1, collation),
            "$max", collation -> new Extreme(1, collation),
            "$first", collation -> new First(),
            "$last", collation -> new Last(),
            "$push", collation -> new Push(),
            "$addToSet", AddToSet::new);

    private Accumulators() {}

    /** The state factory of {@code operator}, comparing strings under {@code collation}. */
    static Supplier<State> factory(String operator, Collation collation) {
        Function<Collation, State> factory = TABLE.get(operator);
        if (factory == null) {
            throw new CommandException(ErrorCode.InvalidPipelineOperator, "unknown group operator '" + operator + "'");
        }
        return () -> factory.apply(collation);
    }

    private static final class Sum implements State {
        private BsonValue total = new BsonInt32(0);

        @Override
        public void add(@Nullable BsonValue value) {
            if (Numbers.isNumber(value)) {
                total = Numbers.add(total, value);
            }
        }

        @Override
        public BsonValue result() {
            return total;
        }
    }

    private static final class Avg implements State {
        private final Sum sum = new Sum();
        private long count;

        @Override
        public void add(@Nullable BsonValue value) {
            if (Numbers.isNumber(value)) {
                sum.add(value);
                count++;
            }
        }

        @Override
        public BsonValue result() {
            BsonValue total = sum.result();
            if (count == 0) {
                return BsonNull.VALUE;
            }
            if (total.isDecimal128()) {
                BigDecimal mean = total.asDecimal128().getValue().bigDecimalValue()
                        .divide(BigDecimal.valueOf(count), MathContext.DECIMAL128);
                return new BsonDecimal128(new Decimal128(mean));
            }
            return new BsonDouble(Numbers.toDouble(total) / count);
        }
    }

    private static final class Extreme implements State {
        private final int sign;
        private final Collation collation;
        private @Nullable BsonValue best;

        Extreme(int sign, Collation collation) {
            this.sign = sign;
            this.collation = collation;
        }

        @Override
        public void add(@Nullable BsonValue value) {
            if (value != null && !value.isNull() && (best == null || Integer.signum(BsonOrder.compare(value, best, collation)) == sign)) {
                best = value;
            }
        }

        @Override
        public BsonValue result() {
            return best == null ? BsonNull.VALUE : best;
        }
    }

    private static final class First implements State {
        private @Nullable BsonValue first;

        @Override
        public void add(@Nullable BsonValue value) {
            if (first == null) {
                first = value == null ? BsonNull.VALUE : value;
            }
        }

        @Override
        public BsonValue result() {
            return first == null ? BsonNull.VALUE : first;
        }
    }

    private static final class Last implements State {
        private BsonValue last = BsonNull.VALUE;

        @Override
        public void add(@Nullable BsonValue value) {
            last = value == null ? BsonNull.VALUE : value;
        }

        @Override
        public BsonValue result() {
            return last;
        }
    }

    private static final class Push implements State {
        private final BsonArray values = new BsonArray();
        private long bytes = 16;

        @Override
        public void add(@Nullable BsonValue value) {
            if (value != null) {
                values.add(value);
                bytes += BsonSizes.of(value);
            }
        }

        @Override
        public long bytes() {
            return bytes;
        }

        @Override
        public BsonValue result() {
            return values;
        }
    }

    private static final class AddToSet implements State {
        private final TreeSet<BsonValue> values;

        AddToSet(Collation collation) {
            values = new TreeSet<>((a, b) -> BsonOrder.compare(a, b, collation));
        }

        private long bytes = 16;

        @Override
        public void add(@Nullable BsonValue value) {
            if (value != null && values.add(value)) {
                bytes += BsonSizes.of(value);
            }
        }

        @Override
        public long bytes() {
            return bytes;
        }

        @Override
        public BsonValue result() {
            return new BsonArray(values.stream().toList());
        }
    }
}
