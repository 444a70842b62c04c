package dev.shardstore.contracts.keystring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.bson.BsonOrder;
import dev.shardstore.contracts.testing.RandomCases;
import java.math.BigDecimal;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.Function;
import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDecimal128;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonMaxKey;
import org.bson.BsonMinKey;
import org.bson.BsonNull;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.types.Decimal128;
import org.junit.jupiter.api.Test;

/**
 * KeyString's byte order is BsonOrder, for random values of every type and for compound keys: seeded randomized
 * properties ({@link RandomCases}; a failure names the seed to re-run it with).
 */
class KeyStringProperties {
    /** Components a compound key draws often besides random values, so that equal and neighbouring components abound. */
    private static final List<BsonValue> COMMON_COMPONENTS = List.of(new BsonMinKey(), new BsonMaxKey(), BsonNull.VALUE,
            new BsonInt32(1), new BsonDouble(1.0), new BsonDecimal128(Decimal128.parse("1.00")), new BsonInt64(2),
            new BsonString(""), new BsonString("a"), new BsonString("a\u0000"), new BsonDocument(), new BsonArray(),
            BsonBoolean.TRUE);

    /** Two values, compared in this order. */
    private record Pair(BsonValue a, BsonValue b) {}

    /** A double and a long whose neighbourhoods are compared. */
    private record DoubleAndLong(double d, long l) {}

    /** The double {@code ±significand * 2^-fractionBits}. */
    private record BinaryFraction(int significand, int fractionBits, boolean negative) {}

    /** Two compound keys of the same length and the ordering to encode them in. */
    private record CompoundKeys(List<BsonValue> a, List<BsonValue> b, Ordering ordering) {}

    @Test
    void byteOrderIsBsonOrder() {
        RandomCases.check(3000, pairOf(r -> BsonGenerators.value(r, 3)), pair -> assertSameOrder(pair.a(), pair.b()));
    }

    @Test
    void byteOrderIsBsonOrderForNumbers() {
        RandomCases.check(3000, pairOf(BsonGenerators::number), pair -> assertSameOrder(pair.a(), pair.b()));
    }

    @Test
    void byteOrderIsBsonOrderWithinEachTypeBracket() {
        List<Function<Random, BsonValue>> brackets = BsonGenerators.typeBrackets(2);
        RandomCases.check(3000, r -> pairOf(BsonGenerators.pick(r, brackets)).apply(r),
                pair -> assertSameOrder(pair.a(), pair.b()));
    }

    /** Neighbours of a random double and a random long in all four types: the closest calls there are. */
    @Test
    void byteOrderIsBsonOrderNearAnyDoubleOrLong() {
        RandomCases.check(2000, r -> new DoubleAndLong(anyDouble(r), BsonGenerators.anyLong(r)), input -> {
            double d = input.d();
            long l = input.l();
            List<BsonValue> near = new ArrayList<>();
            for (double x : new double[] {d, Math.nextUp(d), Math.nextDown(d), (double) l, Math.nextUp((double) l)}) {
                near.add(new BsonDouble(x));
            }
            if (Double.isFinite(d)) {
                addDecimalAndNeighbours(near, new BigDecimal(d));
            }
            addDecimalAndNeighbours(near, BigDecimal.valueOf(l));
            near.addAll(List.of(new BsonInt64(l), new BsonInt64(l + 1), new BsonInt64(l - 1)));
            assertEveryPairInSameOrder(near);
        });
    }

    /**
     * Doubles of few significant bits around the 59-fraction-bit limit of the long-arithmetic path,
     * against decimals (the BigDecimal path) of the same and of neighbouring values.
     */
    @Test
    void shortBinaryFractionsEncodeLikeTheSameDecimal() {
        RandomCases.check(2000, r -> new BinaryFraction(
                (int) BsonGenerators.longBetween(r, 1, 1 << 20), (int) BsonGenerators.longBetween(r, -8, 70), r.nextBoolean()),
                input -> {
                    double d = Math.scalb(input.negative() ? -input.significand() : input.significand(), -input.fractionBits());
                    BigDecimal exact = new BigDecimal(d);
                    BsonGenerators.decimal128(exact.stripTrailingZeros())
                            .ifPresent(same -> assertThat(KeyString.encode(same)).isEqualTo(KeyString.encode(new BsonDouble(d))));
                    List<BsonValue> near = new ArrayList<>(List.of(new BsonDouble(d), new BsonDouble(Math.nextUp(d))));
                    addDecimalAndNeighbours(near, exact);
                    assertEveryPairInSameOrder(near);
                });
    }

    @Test
    void equalValuesEncodeToIdenticalBytes() {
        RandomCases.check(2000, r -> {
            BsonValue a = BsonGenerators.value(r, 3);
            return new Pair(a, BsonGenerators.equivalent(a, r));
        }, pair -> {
            assertThat(BsonOrder.compare(pair.a(), pair.b())).isZero();
            assertThat(KeyString.encode(pair.b())).isEqualTo(KeyString.encode(pair.a()));
        });
    }

    @Test
    void noEncodingIsAProperPrefixOfAnother() {
        RandomCases.check(2000, pairOf(r -> BsonGenerators.value(r, 3)), pair -> {
            byte[] x = KeyString.encode(pair.a());
            byte[] y = KeyString.encode(pair.b());
            int shorter = Math.min(x.length, y.length);
            if (x.length != y.length) {
                assertThat(Arrays.equals(x, 0, shorter, y, 0, shorter)).isFalse();
            }
        });
    }

    @Test
    void compoundKeysCompareComponentByComponentInTheirDirections() {
        RandomCases.check(3000, KeyStringProperties::compoundKeys, keys -> {
            List<BsonValue> a = keys.a();
            List<BsonValue> b = keys.b();
            Ordering ordering = keys.ordering();
            int expected = 0;
            for (int i = 0; i < a.size() && expected == 0; i++) {
                int c = Integer.signum(BsonOrder.compare(a.get(i), b.get(i)));
                expected = ordering.isDescending(i) ? -c : c;
            }
            assertThat(Integer.signum(KeyString.compare(KeyString.encode(a, ordering), KeyString.encode(b, ordering))))
                    .isEqualTo(expected);
        });
    }

    @Test
    void equalCompoundKeysEncodeToIdenticalBytes() {
        RandomCases.check(1000, r -> {
            CompoundKeys keys = compoundKeys(r);
            List<BsonValue> equivalents = keys.a().stream().map(v -> BsonGenerators.equivalent(v, r)).toList();
            return new CompoundKeys(keys.a(), equivalents, keys.ordering());
        }, keys -> assertThat(KeyString.encode(keys.b(), keys.ordering())).isEqualTo(KeyString.encode(keys.a(), keys.ordering())));
    }

    @Test
    void orderingBoundsEncloseEveryKey() {
        RandomCases.check(1000, KeyStringProperties::compoundKeys, keys -> {
            byte[] key = KeyString.encode(keys.a(), keys.ordering());
            assertThat(KeyString.compare(KeyString.minKey(keys.ordering()), key)).isLessThanOrEqualTo(0);
            assertThat(KeyString.compare(key, KeyString.maxKey(keys.ordering()))).isLessThanOrEqualTo(0);
        });
    }

    @Test
    void afterPrefixFollowsEveryKeyExtendingThePrefixAndPrecedesTheOthers() {
        // a.b's first component as the prefix, the whole of a as a key that extends it, b as any other key
        RandomCases.check(2000, KeyStringProperties::compoundKeys, keys -> {
            Ordering ordering = keys.ordering();
            byte[] prefix = KeyString.encode(keys.a().subList(0, 1), new Ordering(List.of(ordering.isDescending(0)
                    ? Ordering.Direction.DESCENDING : Ordering.Direction.ASCENDING)));
            byte[] extending = KeyString.encode(keys.a(), ordering);
            byte[] other = KeyString.encode(keys.b(), ordering);
            byte[] after = KeyString.afterPrefix(prefix);
            assertThat(KeyString.compare(extending, after)).isNegative();
            assertThat(KeyString.compare(after, KeyString.aboveEveryKey())).isLessThanOrEqualTo(0);
            assertThat(KeyString.compare(other, KeyString.aboveEveryKey())).isNegative();
            boolean otherExtends = Arrays.equals(other, 0, Math.min(prefix.length, other.length), prefix, 0, prefix.length)
                    && other.length >= prefix.length;
            if (!otherExtends && KeyString.compare(other, prefix) > 0) {
                assertThat(KeyString.compare(after, other)).as("a key above the prefix that does not extend it").isNegative();
            }
        });
        assertThat(KeyString.compare(KeyString.maxKey(), KeyString.aboveEveryKey())).isNegative();
    }

    private static Function<Random, Pair> pairOf(Function<Random, BsonValue> values) {
        return r -> new Pair(values.apply(r), values.apply(r));
    }

    /** Any bit pattern, a double of two decimals or a special value, or a long converted: one of the three. */
    private static double anyDouble(Random random) {
        return switch (random.nextInt(3)) {
            case 0 -> Double.longBitsToDouble(BsonGenerators.anyLong(random));
            case 1 -> BsonGenerators.twoDecimalsOrSpecial(random);
            default -> (double) BsonGenerators.anyLong(random);
        };
    }

    /** Two keys of 1..4 components and an ordering; components often equal, so later ones matter. */
    private static CompoundKeys compoundKeys(Random random) {
        int n = random.nextInt(1, 5);
        List<BsonValue> a = new ArrayList<>();
        List<BsonValue> b = new ArrayList<>();
        for (List<BsonValue> key : List.of(a, b)) {
            for (int i = 0; i < n; i++) {
                key.add(random.nextInt(3) == 0 ? BsonGenerators.value(random, 2) : BsonGenerators.pick(random, COMMON_COMPONENTS));
            }
        }
        List<Ordering.Direction> directions = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            directions.add(BsonGenerators.pick(random, List.of(Ordering.Direction.values())));
        }
        return new CompoundKeys(a, b, new Ordering(directions));
    }

    private static void assertEveryPairInSameOrder(List<BsonValue> values) {
        for (BsonValue a : values) {
            for (BsonValue b : values) {
                assertSameOrder(a, b);
            }
        }
    }

    private static void addDecimalAndNeighbours(List<BsonValue> out, BigDecimal exact) {
        BigDecimal rounded = exact.round(MathContext.DECIMAL128);
        for (BigDecimal x : List.of(rounded, rounded.add(rounded.ulp()), rounded.subtract(rounded.ulp()))) {
            BsonGenerators.decimal128(x).ifPresent(out::add);
        }
    }

    private static void assertSameOrder(BsonValue a, BsonValue b) {
        int expected = Integer.signum(BsonOrder.compare(a, b));
        assertThat(Integer.signum(KeyString.compare(KeyString.encode(a), KeyString.encode(b))))
                .as("%s vs %s", a, b)
                .isEqualTo(expected);
    }
}
