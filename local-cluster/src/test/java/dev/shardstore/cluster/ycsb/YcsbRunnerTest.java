package dev.shardstore.cluster.ycsb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

class YcsbRunnerTest {
    private final YcsbRunner runner = new YcsbRunner(Path.of("ycsb"), Map.of("recordcount", "10"));

    @Test
    void aThrottledRunnerSetsYcsbsTargetAndLeavesTheOriginalAsFastAsItCan() {
        YcsbRunner throttled = runner.throttled(4800);
        assertThat(throttled.properties()).containsEntry("target", "4800").containsEntry("recordcount", "10");
        assertThat(runner.properties()).doesNotContainKey("target");
    }

    @Test
    void aThrottleBelowOneOperationPerSecondIsRefused() {
        assertThatThrownBy(() -> runner.throttled(0)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not 0");
    }
}
