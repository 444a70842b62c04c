package dev.shardstore.shard.versioning;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** Critical sections: held until exit, released by their timeout when the config service never comes back. */
class CriticalSectionsTest {
    private final List<String> released = new CopyOnWriteArrayList<>();
    private final CriticalSections sections = new CriticalSections(released::add);

    @Test
    void waitersAreHeldUntilExit() {
        sections.enter("db.c", Duration.ofMinutes(1));
        assertThat(sections.awaitExit("db.c", Duration.ofMillis(200))).isFalse();
        assertThat(sections.awaitExit("db.other", Duration.ofMillis(1))).as("other collections are not held").isTrue();

        sections.exit("db.c");
        assertThat(sections.awaitExit("db.c", Duration.ofMillis(200))).isTrue();
        assertThat(sections.held()).isEmpty();
        assertThat(released).containsExactly("db.c");
    }

    @Test
    void aSectionNobodyReleasesExpiresAndMarksTheMetadataStale() {
        sections.enter("db.lost", Duration.ofMillis(300)); // the config service died after the prepare
        long start = System.nanoTime();
        assertThat(sections.awaitExit("db.lost", Duration.ofSeconds(10))).isTrue();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
        assertThat(sections.held()).isEmpty();
        assertThat(released).as("the waiters refresh before trusting the metadata").containsExactly("db.lost");
    }

    @Test
    void enteringAgainKeepsTheFirstSection() {
        sections.enter("db.twice", Duration.ofMinutes(1));
        sections.enter("db.twice", Duration.ofMillis(1));
        assertThat(sections.awaitExit("db.twice", Duration.ofMillis(200))).isFalse();
        assertThat(sections.held()).containsExactly("db.twice");
        sections.exit("db.twice");
        assertThat(sections.held()).isEmpty();
    }
}
