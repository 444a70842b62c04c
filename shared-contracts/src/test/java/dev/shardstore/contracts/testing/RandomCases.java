package dev.shardstore.contracts.testing;

import java.util.Random;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Seeded randomized property checks for plain JUnit 5 tests: {@link #check} draws {@code cases} inputs, one after
 * the other, from a single {@link Random} and asserts the property on each.
 *
 * <p>Every run takes a fresh seed, so that runs explore different inputs, unless the system property
 * {@value #SEED_PROPERTY} fixes it (Maven passes it on to the tests:
 * {@code ./mvnw -pl shared-contracts test -Dtest=KeyStringProperties -Dshardstore.seed=42}). On the first failing
 * case the check stops and fails with an {@link AssertionError} whose message, which the test report prints, gives
 * the seed, the case's number and the case itself; re-running with that seed draws the same cases in the same order
 * and fails on the same one. Failing inputs are reported as drawn, not shrunk.
 */
public final class RandomCases {
    /** The system property that fixes the seed of every check in the run (a decimal {@code long}). */
    public static final String SEED_PROPERTY = "shardstore.seed";

    private RandomCases() {}

    /**
     * Asserts {@code property} on {@code cases} inputs drawn by {@code generator}.
     *
     * @param cases how many inputs to draw, at least 1
     * @param generator draws one input; it gets the check's {@link Random} and must take all its randomness from it
     * @param property throws (an {@link AssertionError} or any exception) when the property does not hold
     * @throws AssertionError naming the seed, the case number and the input when a case fails, with the case's
     *     failure as its cause
     * @throws IllegalArgumentException when {@code cases} is not positive or {@value #SEED_PROPERTY} is not a long
     */
    public static <T> void check(int cases, Function<Random, T> generator, Consumer<T> property) {
        if (cases < 1) {
            throw new IllegalArgumentException("cases must be at least 1, was " + cases);
        }
        long seed = seed();
        Random random = new Random(seed);
        for (int i = 1; i <= cases; i++) {
            T input = null;
            try {
                input = generator.apply(random);
                property.accept(input);
            } catch (AssertionError | RuntimeException e) {
                throw new AssertionError("case " + i + " of " + cases + " failed for seed " + seed + " (re-run with -D"
                        + SEED_PROPERTY + "=" + seed + "): " + printable(String.valueOf(input)), e);
            }
        }
    }

    private static long seed() {
        String fixed = System.getProperty(SEED_PROPERTY);
        if (fixed == null || fixed.isBlank()) {
            return ThreadLocalRandom.current().nextLong();
        }
        try {
            return Long.parseLong(fixed.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(SEED_PROPERTY + " must be a long, was '" + fixed + "'", e);
        }
    }

    /** {@code text} with control characters, surrogates and non-ASCII characters as {@code \}{@code uXXXX} escapes. */
    private static String printable(String text) {
        StringBuilder out = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c >= 0x20 && c < 0x7F) {
                out.append(c);
            } else {
                out.append(String.format("\\u%04X", (int) c));
            }
        }
        return out.toString();
    }
}
