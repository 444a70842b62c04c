package dev.shardstore.contracts.keystring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.bson.BsonOrder;
import java.math.BigDecimal;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.Tuple.Tuple2;
import net.jqwik.api.Tuple.Tuple3;
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

/** KeyString's byte order is BsonOrder, for random values of every type and for compound keys. */
class KeyStringProperties {

    @Property(tries = 3000)
    void byteOrderIsBsonOrder(@ForAll("values") BsonValue a, @ForAll("values") BsonValue b) {
        assertSameOrder(a, b);
    }

    @Property(tries = 3000)
    void byteOrderIsBsonOrderForNumbers(@ForAll("numbers") BsonValue a, @ForAll("numbers") BsonValue b) {
        assertSameOrder(a, b);
    }

    @Property(tries = 3000)
    void byteOrderIsBsonOrderWithinEachTypeBracket(@ForAll("sameBracket") Tuple2<BsonValue, BsonValue> pair) {
        assertSameOrder(pair.get1(), pair.get2());
    }

    /** Neighbours of a random double and a random long in all four types: the closest calls there are. */
    @Property(tries = 2000)
    void byteOrderIsBsonOrderNearAnyDoubleOrLong(@ForAll("anyDouble") double d, @ForAll long l) {
        List<BsonValue> near = new ArrayList<>();
        for (double x : new double[] {d, Math.nextUp(d), Math.nextDown(d), (double) l, Math.nextUp((double) l)}) {
            near.add(new BsonDouble(x));
        }
        if (Double.isFinite(d)) {
            addDecimalAndNeighbours(near, new BigDecimal(d));
        }
        addDecimalAndNeighbours(near, BigDecimal.valueOf(l));
        near.addAll(List.of(new BsonInt64(l), new BsonInt64(l + 1), new BsonInt64(l - 1)));
        for (BsonValue a : near) {
            for (BsonValue b : near) {
                assertSameOrder(a, b);
            }
        }
    }

    /**
     * Doubles of few significant bits around the 59-fraction-bit limit of the long-arithmetic path,
     * against decimals (the BigDecimal path) of the same and of neighbouring values.
     */
    @Property(tries = 2000)
    void shortBinaryFractionsEncodeLikeTheSameDecimal(
            @ForAll @IntRange(min = 1, max = 1 << 20) int significand,
            @ForAll @IntRange(min = -8, max = 70) int fractionBits,
            @ForAll boolean negative) {
        double d = Math.scalb(negative ? -significand : significand, -fractionBits);
        BigDecimal exact = new BigDecimal(d);
        BsonArbitraries.decimal128(exact.stripTrailingZeros())
                .ifPresent(same -> assertThat(KeyString.encode(same)).isEqualTo(KeyString.encode(new BsonDouble(d))));
        List<BsonValue> near = new ArrayList<>(List.of(new BsonDouble(d), new BsonDouble(Math.nextUp(d))));
        addDecimalAndNeighbours(near, exact);
        for (BsonValue a : near) {
            for (BsonValue b : near) {
                assertSameOrder(a, b);
            }
        }
    }

    @Property(tries = 2000)
    void equalValuesEncodeToIdenticalBytes(@ForAll("values") BsonValue a, @ForAll Random random) {
        BsonValue b = BsonArbitraries.equivalent(a, random);
        assertThat(BsonOrder.compare(a, b)).as("%s vs %s", a, b).isZero();
        assertThat(KeyString.encode(b)).as("%s vs %s", a, b).isEqualTo(KeyString.encode(a));
    }

    @Property(tries = 2000)
    void noEncodingIsAProperPrefixOfAnother(@ForAll("values") BsonValue a, @ForAll("values") BsonValue b) {
        byte[] x = KeyString.encode(a);
        byte[] y = KeyString.encode(b);
        int shorter = Math.min(x.length, y.length);
        if (x.length != y.length) {
            assertThat(Arrays.equals(x, 0, shorter, y, 0, shorter)).as("%s vs %s", a, b).isFalse();
        }
    }

    @Property(tries = 3000)
    void compoundKeysCompareComponentByComponentInTheirDirections(
            @ForAll("compoundKeys") Tuple3<List<BsonValue>, List<BsonValue>, Ordering> keys) {
        List<BsonValue> a = keys.get1();
        List<BsonValue> b = keys.get2();
        Ordering ordering = keys.get3();
        int expected = 0;
        for (int i = 0; i < a.size() && expected == 0; i++) {
            int c = Integer.signum(BsonOrder.compare(a.get(i), b.get(i)));
            expected = ordering.isDescending(i) ? -c : c;
        }
        assertThat(Integer.signum(KeyString.compare(KeyString.encode(a, ordering), KeyString.encode(b, ordering))))
                .as("%s vs %s in %s", a, b, ordering)
                .isEqualTo(expected);
    }

    @Property(tries = 1000)
    void equalCompoundKeysEncodeToIdenticalBytes(
            @ForAll("compoundKeys") Tuple3<List<BsonValue>, List<BsonValue>, Ordering> keys, @ForAll Random random) {
        List<BsonValue> a = keys.get1();
        List<BsonValue> b = a.stream().map(v -> BsonArbitraries.equivalent(v, random)).toList();
        assertThat(KeyString.encode(b, keys.get3())).isEqualTo(KeyString.encode(a, keys.get3()));
    }

    @Property(tries = 1000)
    void orderingBoundsEncloseEveryKey(@ForAll("compoundKeys") Tuple3<List<BsonValue>, List<BsonValue>, Ordering> keys) {
        byte[] key = KeyString.encode(keys.get1(), keys.get3());
        assertThat(KeyString.compare(KeyString.minKey(keys.get3()), key)).isLessThanOrEqualTo(0);
        assertThat(KeyString.compare(key, KeyString.maxKey(keys.get3()))).isLessThanOrEqualTo(0);
    }

    @Provide
    Arbitrary<BsonValue> values() {
        return BsonArbitraries.values(3);
    }

    @Provide
    Arbitrary<BsonValue> numbers() {
        return BsonArbitraries.numbers();
    }

    @Provide
    Arbitrary<Tuple2<BsonValue, BsonValue>> sameBracket() {
        return Arbitraries.of(BsonArbitraries.typeBrackets(2)).flatMap(bracket -> Combinators.combine(bracket, bracket).as(Tuple::of));
    }

    @Provide
    Arbitrary<Double> anyDouble() {
        return Arbitraries.oneOf(
                Arbitraries.longs().map(Double::longBitsToDouble),
                Arbitraries.doubles().withStandardSpecialValues(),
                Arbitraries.longs().map(l -> (double) l));
    }

    /** Two keys of 1..4 components and an ordering; components often equal, so later ones matter. */
    @Provide
    Arbitrary<Tuple3<List<BsonValue>, List<BsonValue>, Ordering>> compoundKeys() {
        Arbitrary<BsonValue> component = Arbitraries.frequencyOf(
                Tuple.of(1, BsonArbitraries.values(2)),
                Tuple.of(2, Arbitraries.of(new BsonMinKey(), new BsonMaxKey(), BsonNull.VALUE, new BsonInt32(1),
                        new BsonDouble(1.0), new BsonDecimal128(Decimal128.parse("1.00")), new BsonInt64(2),
                        new BsonString(""), new BsonString("a"), new BsonString("a\u0000"), new BsonDocument(),
                        new BsonArray(), BsonBoolean.TRUE)));
        return Arbitraries.integers().between(1, 4).flatMap(n -> Combinators.combine(
                        component.list().ofSize(n),
                        component.list().ofSize(n),
                        Arbitraries.of(Ordering.Direction.class).list().ofSize(n).map(Ordering::new))
                .as(Tuple::of));
    }

    private static void addDecimalAndNeighbours(List<BsonValue> out, BigDecimal exact) {
        BigDecimal rounded = exact.round(MathContext.DECIMAL128);
        for (BigDecimal x : List.of(rounded, rounded.add(rounded.ulp()), rounded.subtract(rounded.ulp()))) {
            BsonArbitraries.decimal128(x).ifPresent(out::add);
        }
    }

    private static void assertSameOrder(BsonValue a, BsonValue b) {
        int expected = Integer.signum(BsonOrder.compare(a, b));
        assertThat(Integer.signum(KeyString.compare(KeyString.encode(a), KeyString.encode(b))))
                .as("%s vs %s", a, b)
                .isEqualTo(expected);
    }
}
