package dev.shardstore.contracts.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The randomized-case runner: every case runs, and a failure names what replays it. */
class RandomCasesTest {
    private static final Pattern FAILURE =
            Pattern.compile("case (\\d+) of 1000 failed for seed (-?\\d+) \\(re-run with -Dshardstore\\.seed=\\2\\): (\\d+)");

    @Test
    void runsEveryCaseWhenThePropertyHolds() {
        AtomicInteger runs = new AtomicInteger();
        RandomCases.check(1234, r -> r.nextLong(), x -> runs.incrementAndGet());
        assertThat(runs).hasValue(1234);
    }

    @Test
    void aFailureNamesTheSeedTheCaseAndTheInputAndThatSeedReplaysTheSameCases() {
        List<Integer> drawn = new ArrayList<>();
        AssertionError failure = catchThrowableOfType(AssertionError.class, () -> checkBelow90(drawn));

        Matcher reported = FAILURE.matcher(failure.getMessage());
        assertThat(reported.find()).as(failure.getMessage()).isTrue();
        assertThat(drawn).hasSize(Integer.parseInt(reported.group(1)));
        assertThat(drawn.getLast()).isEqualTo(Integer.parseInt(reported.group(3))).isGreaterThanOrEqualTo(90);
        assertThat(failure).cause().isInstanceOf(AssertionError.class);

        String before = System.getProperty(RandomCases.SEED_PROPERTY);
        System.setProperty(RandomCases.SEED_PROPERTY, reported.group(2));
        try {
            List<Integer> replayed = new ArrayList<>();
            AssertionError again = catchThrowableOfType(AssertionError.class, () -> checkBelow90(replayed));
            assertThat(replayed).isEqualTo(drawn);
            assertThat(again).hasMessage(failure.getMessage());
        } finally {
            restore(before);
        }
    }

    @Test
    void refusesASeedThatIsNotALong() {
        String before = System.getProperty(RandomCases.SEED_PROPERTY);
        System.setProperty(RandomCases.SEED_PROPERTY, "12ab");
        try {
            assertThatThrownBy(() -> RandomCases.check(1, r -> 1, x -> {}))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("shardstore.seed must be a long, was '12ab'");
        } finally {
            restore(before);
        }
    }

    /** Draws numbers below 100 and fails on the first one of 90 or more, recording every number drawn. */
    private static void checkBelow90(List<Integer> drawn) {
        RandomCases.check(1000, r -> r.nextInt(100), i -> {
            drawn.add(i);
            assertThat(i).isLessThan(90);
        });
    }

    private static void restore(String before) {
        if (before == null) {
            System.clearProperty(RandomCases.SEED_PROPERTY);
        } else {
            System.setProperty(RandomCases.SEED_PROPERTY, before);
        }
    }
}
